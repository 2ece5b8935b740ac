"""Which protobuf a TF 1.x tree's contrib Makefile builds, and what its autotools scripts do.

``download_dependencies.sh`` fetches the protobuf archive ``tensorflow/workspace.bzl`` pins
(``.../protobuf/archive/v3.6.1.2.tar.gz``, or a commit in older trees). Two of tfbuild's toolchain
fix-ups work around that protobuf's autotools: protobuf before 3.6 downloads Google Mock in
``autogen.sh`` when ``gmock/`` is missing, and its ``configure`` recurses into ``gmock``
(``AC_CONFIG_SUBDIRS``); from 3.6 on ``autogen.sh`` downloads nothing and the subdirectory is
``third_party/googletest``, a git submodule the archive leaves empty. A fix-up's reason must be
true of the tree it runs on, so the plan reads the tree: the downloaded ``autogen.sh`` and
``configure.ac`` when a build has fetched them, else the pinned version (a release, or a commit
of :data:`PINNED_COMMITS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tfbuild.tree.build_files.op_files_list import MAKEFILE_DIR

WORKSPACE_BZL = "tensorflow/workspace.bzl"
PROTOBUF_DOWNLOAD = f"{MAKEFILE_DIR}/downloads/protobuf"
FETCHES_GMOCK = "protobuf-fetches-gmock"
"""The tree fact (:attr:`ProtobufPin.facts`) of a protobuf whose ``autogen.sh`` downloads gmock."""
SUBDIRS_SINCE = (3, 6)
"""The first protobuf whose autotools name ``third_party/googletest`` rather than ``gmock``."""
PINNED_COMMITS = {
    # TF 1.15 and 2.0 (workspace.bzl: "based on 3.8.0 with a fix for protobuf.bzl"; git describe
    # v3.8.0-4-g310ba5ee72): autogen.sh downloads nothing, configure recurses into third_party/googletest.
    "310ba5ee72661c081129eb878c1bbcec936b20f0": (3, 8),
}
"""Commits that TensorFlow releases pin in place of a protobuf release, with the release each
one follows, so a plan made before the downloads are there knows their autotools."""
_ARCHIVE = re.compile(r"github\.com/(?:google|protocolbuffers)/protobuf/archive/([\w.\-]+?)\.(?:tar\.gz|zip)")
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)*$")
_FETCH = re.compile(r"^\s*(?:curl|wget)\b.*(?:googlemock|gmock)", re.MULTILINE)
_SUBDIRS = re.compile(r"^\s*AC_CONFIG_SUBDIRS\(\[?([^\])]*)\]?\)", re.MULTILINE)


@dataclass(frozen=True)
class ProtobufPin:
    """The tree's protobuf: what it is and what its autotools do, each with where it was read."""

    ref: str | None
    """The archive's tag or commit (``v3.6.1.2``), None when the tree pins none tfbuild can read."""
    fetches_gmock: bool | None
    """Whether ``autogen.sh`` downloads Google Mock; None when neither read nor known."""
    subdirs: str | None
    """What ``configure`` recurses into (``gmock``, ``third_party/googletest``); None unknown."""
    evidence: str
    """Where the two facts come from."""

    @property
    def version(self) -> tuple[int, int] | None:
        match = _VERSION.match(self.ref or "")
        return (int(match.group(1)), int(match.group(2))) if match else PINNED_COMMITS.get(self.ref or "")

    @property
    def name(self) -> str:
        """``protobuf v3.6.1.2 (tensorflow/workspace.bzl)``; for a protobuf whose autotools
        are not known yet, what the plan takes them to be, said as such."""
        if self.fetches_gmock is None:
            return f"protobuf {self.pin}, not read yet and taken to be a protobuf before 3.6"
        return f"protobuf {self.pin}"

    @property
    def pin(self) -> str:
        """``v3.6.1.2 (tensorflow/workspace.bzl)``."""
        return f"{self.ref} ({WORKSPACE_BZL})" if self.ref else f"no pin read in {WORKSPACE_BZL}"

    def facts(self) -> frozenset[str]:
        """The tree facts fix-ups are conditioned on: :data:`FETCHES_GMOCK` unless it is known not to."""
        return frozenset() if self.fetches_gmock is False else frozenset({FETCHES_GMOCK})

    def line(self) -> str:
        """What the plan says: the protobuf, whether its autogen.sh downloads gmock, its subdirs."""
        fetch = {True: "downloads Google Mock", False: "downloads no Google Mock",
                 None: "may download Google Mock"}[self.fetches_gmock]
        subdirs = f"configure's subdirs is {self.subdirs}" if self.subdirs else "configure's subdirs unknown"
        return f"{self.pin}: its autogen.sh {fetch}, {subdirs} ({self.evidence})"


def read_protobuf_pin(root: Path) -> ProtobufPin:
    """``root``'s protobuf: from the downloaded sources when they are there, else from the pin."""
    ref = _pinned_ref(root)
    autogen, configure = (root / PROTOBUF_DOWNLOAD / name for name in ("autogen.sh", "configure.ac"))
    if autogen.is_file():
        text = autogen.read_text(encoding="utf-8", errors="replace")
        configure_text = configure.read_text(encoding="utf-8", errors="replace") if configure.is_file() else ""
        found = _SUBDIRS.search(configure_text)
        subdirs = found.group(1).strip() or None if found else None
        return ProtobufPin(ref, bool(_FETCH.search(text)), subdirs,
                           f"read in {PROTOBUF_DOWNLOAD}/autogen.sh" + (" and configure.ac" if found else ""))
    pin = ProtobufPin(ref, None, None, "")
    version = pin.version
    if version is None:
        return ProtobufPin(ref, None, None, "the downloads are not there yet and the pin names no release")
    old = version < SUBDIRS_SINCE
    follows = f"a commit after protobuf {'.'.join(map(str, version))}, " if ref in PINNED_COMMITS else ""
    return ProtobufPin(ref, old, "gmock" if old else "third_party/googletest",
                       f"{follows}as every protobuf {'before' if old else 'from'} "
                       f"{'.'.join(map(str, SUBDIRS_SINCE))}; the downloads are not there yet")


def _pinned_ref(root: Path) -> str | None:
    path = root / WORKSPACE_BZL
    if not path.is_file():
        return None
    found = _ARCHIVE.search(path.read_text(encoding="utf-8", errors="replace"))
    return found.group(1) if found else None
