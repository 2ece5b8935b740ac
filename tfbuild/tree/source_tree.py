"""What a TensorFlow source tree is, as a user checks it before building: version, the Bazel it
wants and where that is written, which build flavours it has, which mobile filegroup family
its kernels BUILD file uses, and the commit.

Read from the files TensorFlow keeps these facts in: ``tensorflow/core/public/version.h``;
``.bazelversion`` (later trees) or ``configure.py``'s ``check_bazel_version('min', 'max')``
(TF 1.x) and ``_TF_MIN/MAX_BAZEL_VERSION`` constants (TF 1.15-2.x); the contrib Makefile (gone
from 2.1); ``android_*`` (to 2.3) or ``portable_*`` (2.4 on) filegroups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import SourceTreeError
from tfbuild.tree.facts import read_version

MAKEFILE = "tensorflow/contrib/makefile/Makefile"
OP_FILES_LIST = "tensorflow/contrib/makefile/tf_op_files.txt"
KERNELS_BUILD = "tensorflow/core/kernels/BUILD"
CONFIGURE_PY = "configure.py"
BAZELVERSION = ".bazelversion"

_CHECK_CALL = re.compile(
    r"""check_bazel_version\(\s*(['"])([0-9][^'"]*)\1(?:\s*,\s*(['"])([0-9][^'"]*)\3)?\s*\)""")
_CONSTANT = r"""^_TF_{kind}_BAZEL_VERSION\s*=\s*['"]([0-9][^'"]*)['"]"""
_FAMILY = re.compile(r'name\s*=\s*"(android|portable)_extended_ops_group1"')


@dataclass(frozen=True)
class SourceTreeInfo:
    """A source tree's facts, as ``tfbuild source`` reports them."""

    root: Path
    tf_version: str
    bazel_version: str | None
    """The Bazel the tree asks for (the newest it accepts, when it states a range)."""
    bazel_version_source: str
    """Where ``bazel_version`` was read, e.g. ``configure.py: check_bazel_version('0.19.0', '0.20.0')``."""
    flavours: tuple[str, ...]  # "makefile", "bazel"
    filegroup_family: str | None  # "android" | "portable"
    commit: str | None
    dirty: bool  # tracked files have uncommitted changes
    bazel_version_range: tuple[str | None, str | None] | None = None  # (min, max) when stated

    def to_json(self) -> dict:
        return {
            "root": str(self.root),
            "tf_version": self.tf_version,
            "bazel_version": self.bazel_version,
            "bazel_version_source": self.bazel_version_source,
            "bazel_version_range": list(self.bazel_version_range) if self.bazel_version_range else None,
            "flavours": list(self.flavours),
            "filegroup_family": self.filegroup_family,
            "commit": self.commit,
            "dirty": self.dirty,
        }


def inspect_source_tree(root: Path) -> SourceTreeInfo:
    """The facts of the tree at ``root``; :class:`SourceTreeError` naming the missing file when
    it is not a TensorFlow source tree."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise SourceTreeError(f"{root}: source tree not found", hint="pass --source DIR, a TensorFlow checkout")
    version = read_version(root)
    bazel, where, bounds = _bazel_version(root)
    flavours = []
    if (root / MAKEFILE).is_file() and (root / OP_FILES_LIST).is_file():
        flavours.append("makefile")
    if (root / "WORKSPACE").is_file() and (root / KERNELS_BUILD).is_file():
        flavours.append("bazel")
    commit, dirty = git_state(root)
    return SourceTreeInfo(
        root=root,
        tf_version=str(version),
        bazel_version=bazel,
        bazel_version_source=where,
        flavours=tuple(flavours),
        filegroup_family=_filegroup_family(root),
        commit=commit,
        dirty=dirty,
        bazel_version_range=bounds,
    )


def wanted_bazel_version(root: Path) -> str | None:
    """The Bazel release the tree asks for (see :class:`SourceTreeInfo.bazel_version`)."""
    return _bazel_version(Path(root))[0]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return None


def _bazel_version(root: Path) -> tuple[str | None, str, tuple[str | None, str | None] | None]:
    """(version wanted, where it is written, (min, max) when a range is given)."""
    pinned = _read(root / BAZELVERSION)
    if pinned is not None:
        for line in pinned.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                return line, BAZELVERSION, None
    configure = _read(root / CONFIGURE_PY)
    if configure is not None:
        call = _CHECK_CALL.search(configure)
        if call is not None:
            low, high = call.group(2), call.group(4)
            written = f"'{low}', '{high}'" if high else f"'{low}'"
            return high or low, f"{CONFIGURE_PY}: check_bazel_version({written})", (low, high)
        low = re.search(_CONSTANT.format(kind="MIN"), configure, re.MULTILINE)
        high = re.search(_CONSTANT.format(kind="MAX"), configure, re.MULTILINE)
        if low or high:
            bounds = (low.group(1) if low else None, high.group(1) if high else None)
            return bounds[1] or bounds[0], f"{CONFIGURE_PY}: _TF_MIN/_TF_MAX_BAZEL_VERSION", bounds
    return None, f"neither {BAZELVERSION} nor {CONFIGURE_PY} states a Bazel version", None


def _filegroup_family(root: Path) -> str | None:
    build = _read(root / KERNELS_BUILD)
    if build is None:
        return None
    families = set(_FAMILY.findall(build))
    if "portable" in families:
        return "portable"
    return "android" if "android" in families else None


def git_state(root: Path) -> tuple[str | None, bool]:
    """(commit, tracked files changed); (None, False) outside git, e.g. a source tarball."""
    import git

    try:
        repo = git.Repo(root)
        commit = repo.head.commit.hexsha
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        return None, False
    return commit, repo.is_dirty(untracked_files=False)
