"""Where one external repository's git mirror is, as ``--mirror`` and ``tfbuild.toml``'s
``[vendor] mirror`` write it: ``NAME=DIR[@REF[:SUBDIR]]``.

A directory of mirrors found by GitHub owner and name covers most archives; a mapping names the
rest outright: archives GitHub does not serve (Eigen's Mercurial pin, zlib's release tarball), a
repository another repository declares, a mirror kept under another name. A company's CI keeps
such a table in its ``tfbuild.toml`` next to the tree, so its DIRs are relative to that file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ConfigError

SYNTAX = "NAME=DIR[@REF[:SUBDIR]]"


@dataclass(frozen=True)
class MirrorMapping:
    """The repository ``name`` comes from the git mirror ``mirror``, at ``ref`` (default: the ref
    in its GitHub URL)."""

    name: str
    mirror: Path
    ref: str | None
    subdir: str = ""
    """``NAME=DIR@REF:SUBDIR``: the repository is this directory of the commit (a mirror that keeps
    the archive's files below its own top, as Android's mirror of fft2d does)."""


def parse_mapping(text: str, *, where: str = "--mirror", base: Path | None = None) -> MirrorMapping:
    """``text`` as a mapping; a relative DIR is relative to ``base`` (the file that holds it), else
    to the working directory. ``where`` names the flag or file key for the error."""
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise ConfigError(f"{where}: {text!r} is not {SYNTAX}")
    directory, at, ref = rest.rpartition("@") if "@" in rest else (rest, "", "")
    ref, _, subdir = ref.partition(":")
    path = Path(directory).expanduser()
    return MirrorMapping(name, base / path if base is not None else path, ref if at and ref else None,
                         subdir.strip("/"))
