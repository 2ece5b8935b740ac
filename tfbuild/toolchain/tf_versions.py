"""What a TensorFlow tree's build needs (Bazel version, usable Android NDKs, the default NDK API
level, package paths): the tree's own word where it says (:mod:`tfbuild.tree.facts`), else the
table in ``toolchains/tensorflow/versions.toml``.

A checkout states most of these in configure.py, and what it states wins
(:class:`TreeRequirements`); the table is the fallback for trees that do not say, and the only
source for what no tree states (the package path of the Android inference library). Table
facts change with every TensorFlow release and are looked up, not derived, so they live in data
a reviewer can check against TensorFlow's own configure.py, not in code. Every resolved value is
a :class:`Fact` that names where it came from, so messages and ``tfbuild source`` can say.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Generic, TypeVar

from tfbuild.config import Check, non_empty, read_toml
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.resources import toolchains_dir
from tfbuild.tree.facts import Stated, TensorFlowVersion, TreeFacts

VERSIONS_FILE = Path("tensorflow") / "versions.toml"
T = TypeVar("T")


def _major_minor(text: str) -> None:
    parts = text.split(".")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ConfigError(f"'{text}' is not MAJOR.MINOR")


@dataclass(frozen=True)
class VersionRequirements:
    """One ``[[versions]]`` entry: what the builds of TensorFlow ``tensorflow`` (``MAJOR.MINOR``)
    and later need, up to the next entry's version."""

    tensorflow: Annotated[str, Check(_major_minor)]
    bazel: str
    android_ndk_majors: tuple[int, ...]
    debian_suite: str
    android_inference_package: str

    @property
    def label(self) -> str:
        """How messages name the entry: ``TensorFlow 1.13 entry``."""
        return f"TensorFlow {self.tensorflow} entry"

    @property
    def since(self) -> tuple[int, int]:
        major, minor = self.tensorflow.split(".")
        return (int(major), int(minor))


def _glibc_version(text: str) -> None:
    if not all(part.isdigit() for part in text.split(".")):
        raise ConfigError(f"'{text}' is not a glibc version such as 2.31")


def _glibc_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


@dataclass(frozen=True)
class DebianSuite:
    """A Debian release tfbuild can make a base image of, and the C library and compiler it
    brings: what decides whether an older TensorFlow compiles in it."""

    name: str
    glibc: Annotated[str, Check(_glibc_version)]
    gcc: int


@dataclass(frozen=True)
class VersionTable:
    versions: Annotated[tuple[VersionRequirements, ...], Check(non_empty)]
    debian_suites: Annotated[tuple[DebianSuite, ...], Check(non_empty)]
    ubuntu_glibc: Mapping[str, str]
    min_build_tools: str
    default_ndk_api_level: int
    min_ndk_api_level_64bit: int
    configure_env: Mapping[str, str]
    source: Path

    @property
    def display_name(self) -> str:
        """``toolchains/tensorflow/versions.toml`` for the bundled table, else its path."""
        try:
            return str(Path("toolchains") / self.source.relative_to(toolchains_dir()))
        except ValueError:
            return str(self.source)

    def for_version(self, version: TensorFlowVersion) -> VersionRequirements:
        """The entry for ``version``: the last one whose ``since`` is not newer."""
        entries = sorted(self.versions, key=lambda entry: entry.since)
        applicable = [entry for entry in entries if entry.since <= version.minor_version]
        if not applicable:
            oldest = ".".join(map(str, entries[0].since))
            raise SourceTreeError(
                f"TensorFlow {version} is older than any version tfbuild knows ({oldest})",
                hint=f"use a TensorFlow {oldest} or newer tree, or add an entry to {self.source}",
            )
        return applicable[-1]


@functools.cache
def version_table(path: Path | None = None) -> VersionTable:
    """``toolchains/tensorflow/versions.toml`` (or ``path``), read and checked."""
    path = path or toolchains_dir() / VERSIONS_FILE
    return read_toml(VersionTable, path, source=path)


@dataclass(frozen=True)
class Fact(Generic[T]):
    """A value a build uses, and where it was read."""

    value: T
    source: str
    """``configure.py: _SUPPORTED_ANDROID_NDK_VERSIONS``, or ``table: toolchains/tensorflow/
    versions.toml, TensorFlow 1.6 entry`` and why the tree's word was not taken."""


@dataclass(frozen=True)
class FactLine:
    """One resolved fact as ``tfbuild source`` reports it; no value when neither the tree nor
    the table knows it (``source`` then says why)."""

    name: str
    value: Any
    source: str

    def to_json(self) -> dict[str, object]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"value": value, "source": self.source}


@dataclass(frozen=True)
class TreeRequirements:
    """What building ``tree`` needs: each fact from the tree where it states it, else from
    ``table``. A fact neither knows is a :class:`SourceTreeError` when asked for."""

    tree: TreeFacts
    table: VersionTable

    @property
    def version(self) -> TensorFlowVersion:
        return self.tree.version

    def bazel(self) -> Fact[str]:
        wanted = self.tree.bazel
        if wanted.version is not None:
            return Fact(wanted.version, wanted.source)
        entry = self._entry(because=wanted.source)
        return Fact(entry.bazel, self._table_source(entry.label, because=wanted.source))

    def android_ndk_majors(self) -> Fact[tuple[int, ...]]:
        stated = self.tree.android_ndk_majors
        if stated.value is not None:
            return Fact(stated.value, stated.source)
        entry = self._entry(because=stated.source)
        return Fact(entry.android_ndk_majors, self._table_source(entry.label, because=stated.source))

    def default_ndk_api_level(self) -> Fact[int]:
        stated = self.tree.default_ndk_api_level
        if stated.value is not None:
            return Fact(stated.value, stated.source)
        level = self.table.default_ndk_api_level
        return Fact(level, self._table_source("default_ndk_api_level", because=stated.source))

    def debian_suite(self) -> Fact[str]:
        """The Debian release to base the toolchain image on: the one closest to the OS the
        tree's own CI built it in, else the table's entry for its version."""
        return choose_debian_suite(self.tree.version, self.tree.ci_build_os, self.table)

    def android_inference_package(self) -> Fact[str]:
        """No tree states it: always the table's."""
        entry = self._entry()
        return Fact(entry.android_inference_package, self._table_source(entry.label))

    def report(self) -> tuple[FactLine, ...]:
        """Every fact, resolved, for ``tfbuild source``: one the table cannot give either is
        reported with no value and the reason."""
        lines = []
        resolvers: tuple[tuple[str, Callable[[], Fact[Any]]], ...] = (
            ("bazel", self.bazel),
            ("android_ndk_majors", self.android_ndk_majors),
            ("default_ndk_api_level", self.default_ndk_api_level),
            ("debian_suite", self.debian_suite),
            ("android_inference_package", self.android_inference_package),
        )
        for name, resolve in resolvers:
            try:
                fact = resolve()
            except SourceTreeError as error:
                lines.append(FactLine(name, None, f"unknown: {error.message}"))
            else:
                lines.append(FactLine(name, fact.value, fact.source))
        return tuple(lines)

    def _entry(self, *, because: str | None = None) -> VersionRequirements:
        """The table's entry for the tree's version; ``because`` says why the table is asked."""
        try:
            return self.table.for_version(self.tree.version)
        except SourceTreeError as error:
            if because is None:
                raise
            raise SourceTreeError(f"{error.message}, and {because}", hint=error.hint) from None

    def _table_source(self, label: str, *, because: str | None = None) -> str:
        where = f"table: {self.table.display_name}, {label}"
        return f"{where}; {because}" if because else where


def choose_debian_suite(
    version: TensorFlowVersion, ci_build_os: Stated[str] | None, table: VersionTable
) -> Fact[str]:
    """The Debian suite whose glibc is the oldest not older than that of the Ubuntu release the
    tree's CI Dockerfile names (a newer C library than the tree knew is what breaks old
    releases; an older one than any suite has, the oldest suite comes closest). A tree that
    names no Ubuntu release this table knows gets the table's entry for its version."""
    stated = ci_build_os.value if ci_build_os is not None else None
    if ci_build_os is not None and stated is not None:
        distro, _, release = stated.partition(":")
        glibc = table.ubuntu_glibc.get(release) if distro == "ubuntu" else None
        if glibc is not None:
            suites = sorted(table.debian_suites, key=lambda suite: _glibc_key(suite.glibc))
            newer = [suite for suite in suites if _glibc_key(suite.glibc) >= _glibc_key(glibc)]
            chosen = newer[0] if newer else suites[-1]
            return Fact(
                chosen.name,
                f"{ci_build_os.source} {stated} (glibc {glibc}); {chosen.name} has glibc {chosen.glibc}"
                f" and gcc {chosen.gcc}, the closest suite tfbuild can make",
            )
        because: str | None = f"{ci_build_os.source} {stated}, a base this table has no glibc for"
    else:
        because = ci_build_os.source if ci_build_os is not None else None
    entry = table.for_version(version)
    where = f"table: {table.display_name}, {entry.label}"
    return Fact(entry.debian_suite, f"{where}; {because}" if because else where)


def tree_requirements(tree: TreeFacts, table: VersionTable | None = None) -> TreeRequirements:
    """:class:`TreeRequirements` of ``tree`` against ``table`` (default: the bundled one)."""
    return TreeRequirements(tree, table or version_table())


def ndk_majors_text(majors: tuple[int, ...]) -> str:
    """``r10-r18`` for a consecutive run, else ``r19, r20, r21, r25``."""
    ordered = sorted(majors)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"r{ordered[0]}-r{ordered[-1]}"
    return ", ".join(f"r{major}" for major in ordered)
