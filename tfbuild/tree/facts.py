"""What planning needs to know about a TensorFlow source tree, read without building anything.

The version (``tensorflow/core/public/version.h``) decides which Bazel, which NDKs and which
package paths apply; the commit goes into the manifest; the layout says which flavours the tree
can build (``tensorflow/contrib/makefile`` is gone from 2.1 on); the tree's identity names the
cache volumes, so a second app built from the same tree reuses the first one's objects.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import SourceTreeError

VERSION_H = "tensorflow/core/public/version.h"
MAKEFILE_DIR = "tensorflow/contrib/makefile"
_DEFINE = r"#define\s+{name}\s+(\S+)"


@dataclass(frozen=True, order=True)
class TensorFlowVersion:
    major: int
    minor: int
    patch: int
    suffix: str = ""

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}{self.suffix}"

    @property
    def minor_version(self) -> tuple[int, int]:
        return (self.major, self.minor)


@dataclass(frozen=True)
class TreeFacts:
    """A source tree as planning sees it."""

    root: Path
    version: TensorFlowVersion
    commit: str | None  # None when the tree is not a git checkout
    has_makefile: bool
    bazel_version: str | None
    """The Bazel the tree asks for: its .bazelversion, or the newest its configure.py accepts."""
    bazelrc_configs: frozenset[str]  # "--config" names the tree's own bazelrc files define

    @property
    def tree_id(self) -> str:
        """A short, stable name for this tree (by its resolved path), for cache volume names."""
        return hashlib.sha256(str(self.root).encode()).hexdigest()[:12]


def read_tree_facts(root: Path) -> TreeFacts:
    """Read ``root``; a directory that is not a TensorFlow tree is a :class:`SourceTreeError`."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise SourceTreeError(f"{root}: source tree not found", hint="pass --source DIR, a TensorFlow checkout")
    return TreeFacts(
        root=root,
        version=read_version(root),
        commit=git_commit(root),
        has_makefile=(root / MAKEFILE_DIR / "Makefile").is_file(),
        bazel_version=_wanted_bazel(root),
        bazelrc_configs=_bazelrc_configs(root),
    )


def read_version(root: Path) -> TensorFlowVersion:
    path = Path(root) / VERSION_H
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise SourceTreeError(
            f"{path}: not found, so {root} is not a TensorFlow source tree", hint="pass the checkout's top directory"
        ) from None
    numbers = []
    for name in ("TF_MAJOR_VERSION", "TF_MINOR_VERSION", "TF_PATCH_VERSION"):
        match = re.search(_DEFINE.format(name=name), text)
        if match is None or not match.group(1).isdigit():
            raise SourceTreeError(f"{path}: no numeric {name}", hint="is this a TensorFlow source tree?")
        numbers.append(int(match.group(1)))
    suffix = re.search(r'#define\s+TF_VERSION_SUFFIX\s+"([^"]*)"', text)
    return TensorFlowVersion(*numbers, suffix=suffix.group(1) if suffix else "")


def git_commit(root: Path) -> str | None:
    """The checked-out commit, or None outside git (a tarball of the sources)."""
    # source_tree reads version.h through this module, so it is imported here, not at the top.
    from tfbuild.tree.source_tree import git_state

    return git_state(root)[0]


def _wanted_bazel(root: Path) -> str | None:
    # source_tree reads version.h through this module, so it is imported here, not at the top.
    from tfbuild.tree.source_tree import wanted_bazel_version

    return wanted_bazel_version(root)


def _bazelrc_configs(root: Path) -> frozenset[str]:
    """``build:<name>`` configs defined by the tree's checked-in bazelrc files (TF 1.x keeps
    them in tools/bazel.rc, later trees in .bazelrc); ./configure's output is not counted: the
    plan runs it with Android left unconfigured."""
    names = set()
    for relative in (".bazelrc", "tools/bazel.rc"):
        path = root / relative
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            names.update(re.findall(r"^\s*build:([A-Za-z0-9_.-]+)\s", text, flags=re.MULTILINE))
    return frozenset(names)
