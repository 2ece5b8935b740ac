"""What a TensorFlow source tree is, read from its files without building anything.

The version (``tensorflow/core/public/version.h``, or from about TF 2.19, where the build defines
the numbers, ``tensorflow/tf_version.bzl``) decides which Bazel, which NDKs and which
package paths apply; the Bazel the tree wants is its ``.bazelversion`` (later trees) or
``configure.py``'s ``check_bazel_version('min', 'max')`` (TF 1.x) or ``_TF_MIN/MAX_BAZEL_VERSION``
constants (TF 1.15-2.x); configure.py also lists the Android NDK majors it supports
(``_SUPPORTED_ANDROID_NDK_VERSIONS``, from TF 1.6 or so) and, from about TF 1.13, the default
NDK API level (``var_default`` of its ``ANDROID_NDK_API_LEVEL`` prompt). What the tree states
wins; a fact it does not state is :class:`Stated` with no value and the reason, and
:mod:`tfbuild.toolchain.tf_versions` falls back to its version table for it. The layout says
which flavours the tree can build (the contrib ``Makefile`` and its ``tf_op_files.txt`` are gone
from 2.1 on); the commit goes into the manifest; the tree's identity names the cache volumes,
so a second app built from the same tree reuses the first one's objects.

Planning reads :class:`TreeFacts` (:func:`read_tree_facts`); ``tfbuild source`` reports the same
facts plus the mobile filegroup family and whether tracked files changed
(:func:`inspect_source_tree`). Every module that reads git opens the repository through
:func:`open_repo`.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from tfbuild.errors import SourceTreeError
from tfbuild.flavour import Flavour
from tfbuild.tree.build_files import op_files_list
from tfbuild.tree.build_files.kernels_build import KERNELS_BUILD, find_family
from tfbuild.tree.build_files.op_files_list import OP_FILES_LIST

if TYPE_CHECKING:
    from git import Repo

VERSION_H = "tensorflow/core/public/version.h"
TF_VERSION_BZL = "tensorflow/tf_version.bzl"
MAKEFILE_DIR = op_files_list.MAKEFILE_DIR
"""The contrib Makefile's directory (spelled in :mod:`~tfbuild.tree.build_files.op_files_list`, below this module)."""
MAKEFILE = f"{MAKEFILE_DIR}/Makefile"
WORKSPACE = "WORKSPACE"
CONFIGURE_PY = "configure.py"
BAZELVERSION = ".bazelversion"
CI_BUILD_DOCKERFILE = "tensorflow/tools/ci_build/Dockerfile.cpu"
_FROM_LINE = re.compile(r"^FROM\s+(?:--platform=\S+\s+)?(\S+)", re.MULTILINE)

_DEFINE = r"#define\s+{name}\s+(\S+)"
# tf_version.bzl (TF 2.19+, where version.h no longer defines the numbers): TF_VERSION = "2.21.0"
_TF_VERSION_BZL = re.compile(r"""^TF_VERSION\s*=\s*(['"])([^'"]*)\1""", re.MULTILINE)
_CHECK_CALL = re.compile(
    r"""check_bazel_version\(\s*(['"])([0-9][^'"]*)\1(?:\s*,\s*(['"])([0-9][^'"]*)\3)?\s*\)""")
_CONSTANT = r"""^_TF_{kind}_BAZEL_VERSION\s*=\s*['"]([0-9][^'"]*)['"]"""
NDK_VERSIONS_NAME = "_SUPPORTED_ANDROID_NDK_VERSIONS"
_NDK_VERSIONS = re.compile(rf"^{NDK_VERSIONS_NAME}\s*=\s*(\[[^\]]*\])", re.MULTILINE)
NDK_API_LEVEL_VAR = "ANDROID_NDK_API_LEVEL"
# prompt_loop_or_load_from_env(environ_cp, var_name='ANDROID_NDK_API_LEVEL', var_default='21', ...)
_NDK_API_LEVEL_PROMPT = re.compile(
    rf"""var_name\s*=\s*(['"]){NDK_API_LEVEL_VAR}\1\s*,\s*var_default\s*=\s*(['"]?)(\d+)\2""")

T = TypeVar("T")


@dataclass(frozen=True)
class Stated(Generic[T]):
    """A fact as the tree states it: the value and where it is written, or no value and why."""

    value: T | None
    source: str
    """Where it is written (``configure.py: _SUPPORTED_ANDROID_NDK_VERSIONS``), or, without a
    value, why there is none (``configure.py has no _SUPPORTED_ANDROID_NDK_VERSIONS``)."""


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
class WantedBazel:
    """The Bazel release a tree asks for, and where it says so."""

    version: str | None
    """The newest release the tree accepts (the only one, when it pins one)."""
    source: str
    """Where it is written, e.g. ``configure.py: check_bazel_version('0.19.0', '0.20.0')``."""
    bounds: tuple[str | None, str | None] | None = None
    """(min, max) when the tree states a range."""


@dataclass(frozen=True)
class TreeFacts:
    """A source tree as planning sees it."""

    root: Path
    version: TensorFlowVersion
    commit: str | None  # None when the tree is not a git checkout
    flavours: tuple[Flavour, ...]
    """The tree flavours it has the build files for, in :data:`~tfbuild.flavour.TREE_FLAVOURS` order."""
    bazel: WantedBazel
    bazelrc_configs: frozenset[str]  # "--config" names the tree's own bazelrc files define
    android_ndk_majors: Stated[tuple[int, ...]]
    """The NDK majors configure.py supports (``Pkg.Revision`` majors)."""
    default_ndk_api_level: Stated[int]
    """The NDK API level configure.py offers when asked for none."""
    ci_build_os: Stated[str] = Stated(None, f"the tree has no {CI_BUILD_DOCKERFILE}")
    """The image TensorFlow's own CPU CI built this tree in (``ubuntu:16.04``): the era of
    compiler and C library the tree was written against."""

    @property
    def has_makefile(self) -> bool:
        return Flavour.MAKEFILE in self.flavours

    @property
    def bazel_version(self) -> str | None:
        """The Bazel the tree asks for: its .bazelversion, or the newest its configure.py accepts."""
        return self.bazel.version

    @property
    def tree_id(self) -> str:
        """A short, stable name for this tree (by its resolved path), for cache volume names."""
        return hashlib.sha256(str(self.root).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class SourceTreeInfo:
    """A source tree's facts, as ``tfbuild source`` reports them."""

    root: Path
    tf_version: str
    bazel_version: str | None
    """The Bazel the tree asks for (the newest it accepts, when it states a range)."""
    bazel_version_source: str
    """Where ``bazel_version`` was read, e.g. ``configure.py: check_bazel_version('0.19.0', '0.20.0')``."""
    flavours: tuple[Flavour, ...]
    filegroup_family: str | None  # "android" | "portable"
    commit: str | None
    dirty: bool  # tracked files have uncommitted changes
    facts: TreeFacts
    """Everything read, for reports that add what the tree leaves to tfbuild's tables."""
    bazel_version_range: tuple[str | None, str | None] | None = None  # (min, max) when stated
    work_commit: str | None = None
    """tfbuild's work commit when it is checked out (``commit`` is then the user's, below it)."""
    held_by: str | None = None
    """What holds the tree's tfbuild lock (``pid 123: build from``), None when nothing does."""

    def to_json(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "tf_version": self.tf_version,
            "bazel_version": self.bazel_version,
            "bazel_version_source": self.bazel_version_source,
            "bazel_version_range": list(self.bazel_version_range) if self.bazel_version_range else None,
            "flavours": [flavour.value for flavour in self.flavours],
            "filegroup_family": self.filegroup_family,
            "commit": self.commit,
            "work_commit": self.work_commit,
            "held_by": self.held_by,
            "dirty": self.dirty,
        }


def read_tree_facts(root: Path) -> TreeFacts:
    """Read ``root``; a directory that is not a TensorFlow tree is a :class:`SourceTreeError`
    naming the file it lacks."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise SourceTreeError(f"{root}: source tree not found", hint="pass --source DIR, a TensorFlow checkout")
    version = read_version(root)
    configure = read_text_if_present(root / CONFIGURE_PY)
    return TreeFacts(
        root=root,
        version=version,
        commit=git_commit(root),
        flavours=tree_flavours(root),
        bazel=wanted_bazel(root),
        bazelrc_configs=_bazelrc_configs(root),
        android_ndk_majors=supported_ndk_majors(configure),
        default_ndk_api_level=default_ndk_api_level(configure),
        ci_build_os=ci_build_os(root),
    )


def inspect_source_tree(root: Path) -> SourceTreeInfo:
    """The report of ``tfbuild source``: :func:`read_tree_facts` plus the mobile filegroup family
    and whether tracked files have uncommitted changes."""
    facts = read_tree_facts(root)
    return SourceTreeInfo(
        root=facts.root,
        tf_version=str(facts.version),
        bazel_version=facts.bazel.version,
        bazel_version_source=facts.bazel.source,
        flavours=facts.flavours,
        filegroup_family=_filegroup_family(facts.root),
        commit=facts.commit,
        dirty=_is_dirty(facts.root),
        facts=facts,
        bazel_version_range=facts.bazel.bounds,
    )


def parse_version(text: str) -> TensorFlowVersion:
    """``2.21.0`` or ``2.21.0rc1`` (a wheel's ``tf.__version__``) as a :class:`TensorFlowVersion`."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?(.*)", text.strip())
    if match is None:
        raise SourceTreeError(f"'{text}' is not a TensorFlow version")
    major, minor, patch, suffix = match.groups()
    return TensorFlowVersion(int(major), int(minor), int(patch or 0), suffix=suffix)


def read_version(root: Path) -> TensorFlowVersion:
    """The tree's TensorFlow version: ``TF_MAJOR/MINOR/PATCH_VERSION`` (and ``TF_VERSION_SUFFIX``)
    as numbers in ``version.h``; trees from about TF 2.19 on define those in the build from
    ``tensorflow/tf_version.bzl``'s ``TF_VERSION = "2.21.0"``, so that is read when version.h
    has no numeric defines."""
    root = Path(root)
    path = root / VERSION_H
    text = read_text_if_present(path)
    if text is None:
        raise SourceTreeError(
            f"{path}: not found, so {root} is not a TensorFlow source tree", hint="pass the checkout's top directory"
        )
    numbers: list[int] = []
    missing = None
    for name in ("TF_MAJOR_VERSION", "TF_MINOR_VERSION", "TF_PATCH_VERSION"):
        match = re.search(_DEFINE.format(name=name), text)
        if match is None or not match.group(1).isdigit():
            missing = name
            break
        numbers.append(int(match.group(1)))
    if missing is None:
        major, minor, patch = numbers
        suffix = re.search(r'#define\s+TF_VERSION_SUFFIX\s+"([^"]*)"', text)
        return TensorFlowVersion(major, minor, patch, suffix=suffix.group(1) if suffix else "")
    return _version_from_bzl(root, because=f"{path}: no numeric {missing}")


def _version_from_bzl(root: Path, *, because: str) -> TensorFlowVersion:
    """``TF_VERSION = "2.21.0"`` of the tree's tf_version.bzl (a suffix as :func:`parse_version`
    reads it); without one, an error that says ``because`` too."""
    path = root / TF_VERSION_BZL
    text = read_text_if_present(path)
    stated = _TF_VERSION_BZL.search(text) if text is not None else None
    if stated is not None:
        try:
            return parse_version(stated.group(2))
        except SourceTreeError:
            says = f'TF_VERSION = "{stated.group(2)}" is not a TensorFlow version'
    else:
        says = "not found" if text is None else 'no TF_VERSION = "X.Y.Z"'
    raise SourceTreeError(f"{because}, and {path}: {says}", hint="is this a TensorFlow source tree?")


def tree_flavours(root: Path) -> tuple[Flavour, ...]:
    """The flavours whose build files the tree has: the contrib Makefile with its op list, and
    a Bazel workspace with the kernels BUILD file."""
    root = Path(root)
    found = []
    listed = root / OP_FILES_LIST
    if (root / MAKEFILE).is_file() and listed.exists() and not listed.is_file():
        # not a tree without the Makefile flavour (which would send the build to Bazel): a broken one
        raise SourceTreeError(f"{listed}: Is a directory, not the kernel list the contrib Makefile reads"
                              if listed.is_dir() else f"{listed}: not a regular file, so not the kernel list the "
                              "contrib Makefile reads", hint="restore it with git checkout, then run again")
    if (root / MAKEFILE).is_file() and listed.is_file():
        found.append(Flavour.MAKEFILE)
    if (root / WORKSPACE).is_file() and (root / KERNELS_BUILD).is_file():
        found.append(Flavour.BAZEL)
    return tuple(found)


def wanted_bazel(root: Path) -> WantedBazel:
    """The Bazel release the tree asks for (see :class:`WantedBazel`)."""
    root = Path(root)
    pinned = read_text_if_present(root / BAZELVERSION)
    if pinned is not None:
        for line in pinned.splitlines():
            version = line.strip()
            if version and not version.startswith("#"):
                return WantedBazel(version, BAZELVERSION)
    configure = read_text_if_present(root / CONFIGURE_PY)
    if configure is not None:
        call = _CHECK_CALL.search(configure)
        if call is not None:
            low, high = call.group(2), call.group(4)
            written = f"'{low}', '{high}'" if high else f"'{low}'"
            return WantedBazel(high or low, f"{CONFIGURE_PY}: check_bazel_version({written})", (low, high))
        lowest = re.search(_CONSTANT.format(kind="MIN"), configure, re.MULTILINE)
        highest = re.search(_CONSTANT.format(kind="MAX"), configure, re.MULTILINE)
        if lowest or highest:
            bounds = (lowest.group(1) if lowest else None, highest.group(1) if highest else None)
            return WantedBazel(bounds[1] or bounds[0], f"{CONFIGURE_PY}: _TF_MIN/_TF_MAX_BAZEL_VERSION", bounds)
    return WantedBazel(None, f"neither {BAZELVERSION} nor {CONFIGURE_PY} states a Bazel version")


def supported_ndk_majors(configure: str | None) -> Stated[tuple[int, ...]]:
    """configure.py's ``_SUPPORTED_ANDROID_NDK_VERSIONS = [10, 11, ...]`` (a list literal, on
    one line or several); ``configure`` is the file's text, None when the tree has none."""
    where = f"{CONFIGURE_PY}: {NDK_VERSIONS_NAME}"
    if configure is None:
        return Stated(None, f"the tree has no {CONFIGURE_PY}")
    match = _NDK_VERSIONS.search(configure)
    if match is None:
        return Stated(None, f"{CONFIGURE_PY} has no {NDK_VERSIONS_NAME}")
    try:
        listed = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError):
        listed = None
    if not listed or not all(isinstance(major, int) and not isinstance(major, bool) for major in listed):
        return Stated(None, f"{where} is not a list of NDK majors: {' '.join(match.group(1).split())[:80]}")
    return Stated(tuple(sorted(set(listed))), where)


def default_ndk_api_level(configure: str | None) -> Stated[int]:
    """The ``var_default`` of configure.py's ``ANDROID_NDK_API_LEVEL`` prompt (``'18'`` around
    TF 1.13, ``'21'`` in 2.x). Older trees ask no NDK API level: their configure.py writes the
    NDK's own revision as ``api_level``, so they state no default."""
    if configure is None:
        return Stated(None, f"the tree has no {CONFIGURE_PY}")
    match = _NDK_API_LEVEL_PROMPT.search(configure)
    if match is None:
        return Stated(None, f"{CONFIGURE_PY} asks no {NDK_API_LEVEL_VAR}")
    return Stated(int(match.group(3)), f"{CONFIGURE_PY}: {NDK_API_LEVEL_VAR} prompt default")


def ci_build_os(root: Path) -> Stated[str]:
    """The ``FROM`` image of the tree's ``tensorflow/tools/ci_build/Dockerfile.cpu``, the
    environment TensorFlow's CI compiled that release in (``ubuntu:14.04`` for 1.4,
    ``ubuntu:16.04`` for 1.8 and 1.9)."""
    text = read_text_if_present(root / CI_BUILD_DOCKERFILE)
    if text is None:
        return Stated(None, f"the tree has no {CI_BUILD_DOCKERFILE}")
    match = _FROM_LINE.search(text)
    if match is None:
        return Stated(None, f"{CI_BUILD_DOCKERFILE} has no FROM line")
    return Stated(match.group(1), f"{CI_BUILD_DOCKERFILE}: FROM")


def open_repo(root: Path) -> Repo | None:
    """The git repository at ``root``, or None when there is none there (a source tarball, a
    plain or missing directory). Parent directories are not searched. What a missing repository
    means is the caller's to say: no commit to record, no cache key, or an error with a fix."""
    import git

    try:
        return git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def head_commit(repo: Repo) -> str | None:
    """The checked-out commit, or None in a repository that has no commit yet."""
    try:
        return repo.head.commit.hexsha
    except ValueError:
        return None


def git_commit(root: Path) -> str | None:
    """The checked-out commit, or None outside git (a tarball of the sources)."""
    repo = open_repo(root)
    return head_commit(repo) if repo is not None else None


def _is_dirty(root: Path) -> bool:
    """Whether tracked files have uncommitted changes; False outside git or before a commit."""
    repo = open_repo(root)
    if repo is None or head_commit(repo) is None:
        return False
    return repo.is_dirty(untracked_files=False)


def _filegroup_family(root: Path) -> str | None:
    build = read_text_if_present(root / KERNELS_BUILD)
    if build is None:
        return None
    try:
        return find_family(build, str(root / KERNELS_BUILD))
    except SourceTreeError:  # a BUILD file that does not parse has no family to report
        return None


def _bazelrc_configs(root: Path) -> frozenset[str]:
    """``build:<name>`` configs defined by the tree's checked-in bazelrc files (TF 1.x keeps
    them in tools/bazel.rc, later trees in .bazelrc); ./configure's output is not counted: the
    plan runs it with Android left unconfigured."""
    names = set()
    for relative in (".bazelrc", "tools/bazel.rc"):
        text = read_text_if_present(root / relative)
        if text is not None:
            names.update(re.findall(r"^\s*build:([A-Za-z0-9_.-]+)\s", text, flags=re.MULTILINE))
    return frozenset(names)


def read_text_if_present(path: Path) -> str | None:
    """A tree file's text (undecodable bytes replaced), None when it is not there."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return None
