"""Build targets as data: one profile per ``toolchains/<target>.toml``, loaded into frozen values.

A profile says what a target is (platform, architecture, whether it can be built and run on this
kind of machine), how each flavour builds it (contrib Makefile variables and scripts, Bazel
config and labels, the compiler for an app's op library), which toolchain Dockerfile each
flavour runs in, what comes out, and what an app must link. Code never switches on target names:
adding a target means adding a file, and a reviewer sees every flag a build will use in one place.

Strings may hold placeholders filled in at planning time: ``{makefile_dir}`` (the tree's
``tensorflow/contrib/makefile`` as the build sees it), ``{ndk}`` (the NDK's path as the build
sees it) and ``{ndk_api_level}``.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Literal

from tfbuild.config import Check, did_you_mean, non_empty, read_toml
from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.resources import toolchains_dir
from tfbuild.toolchain.architectures import Architecture, find_architecture, known_architecture


class Platform(StrEnum):
    """The operating system a target runs; code compares members, never the words."""

    LINUX = "linux"
    ANDROID = "android"
    IOS = "ios"


# The other words a profile may use; loading refuses any other, with the closest as a guess.
HostRequirement = Literal["ndk", "sdk", "xcode"]
ArtifactKind = Literal["static-lib", "shared-lib", "aar", "executable", "header"]
Snippet = Literal["xcconfig", "cmake", "ndk-build", "gradle", "makefile"]
Linker = Literal["bfd", "gold", "lld", "ld64"]
"""The linker a flavour's compiler driver links with: GNU ld (bfd), gold, LLVM's lld, Apple's
ld64. It decides which of a size profile's link flags exist there (``toolchains/tensorflow/size_profiles.toml``)."""

FLAVOURS: tuple[Flavour, ...] = tuple(Flavour)
"""Every flavour, in the order :attr:`TargetProfile.flavours` lists them."""

PLACEHOLDERS = frozenset({"makefile_dir", "ndk", "ndk_api_level"})


def _known_placeholders(text: str) -> None:
    for _, name, _, _ in string.Formatter().parse(text):
        if name is not None and name not in PLACEHOLDERS:
            raise ConfigError(
                f"unknown placeholder '{{{name}}}'{did_you_mean(name, PLACEHOLDERS)}",
                hint=f"known placeholders: {', '.join(sorted(PLACEHOLDERS))}",
            )


def _dockerfile_name(name: str) -> None:
    if "/" in name or not name.endswith(".Dockerfile"):
        raise ConfigError(f"'{name}' is not a file name under docker/ ending in .Dockerfile")


Template = Annotated[str, Check(_known_placeholders)]
"""A string that may hold placeholders (``{ndk}``), filled in by :func:`fill` at planning time."""

DockerfileName = Annotated[str, Check(_dockerfile_name)]
"""A toolchain's Dockerfile: a file name under ``docker/``."""


@dataclass(frozen=True)
class ArtifactSpec:
    """An output of a flavour: ``path`` relative to the contrib Makefile directory (Makefile
    flavour), and the ``name`` it gets in the output directory."""

    path: str
    name: str
    kind: ArtifactKind


@dataclass(frozen=True)
class ProtobufBuild:
    """How the Makefile flavour builds protobuf for the target: one of TensorFlow's
    ``compile_*_protobuf.sh`` scripts (``script``, ``args``), or protobuf's own ``configure``
    cross-compiling to ``configure_host`` with ``cxx`` and the host protoc. ``prefix`` is where it
    installs, relative to the Makefile directory."""

    prefix: str
    script: str | None = None
    args: tuple[str, ...] = ()
    configure_host: str | None = None
    cxx: str | None = None

    def __post_init__(self) -> None:
        if (self.script is None) == (self.configure_host is None):
            raise ConfigError("give exactly one of 'script' or 'configure_host'")
        if self.configure_host is not None and self.cxx is None:
            raise ConfigError("a configure cross build needs 'cxx'")


@dataclass(frozen=True)
class NsyncBuild:
    """``compile_nsync.sh`` arguments for the target (empty: the host library), the library it
    leaves (relative to the Makefile directory), and ``cc``, a cross compiler the script has no
    option for (given to its make through ``MAKEFLAGS``). ``host_lib`` is where the script leaves
    the build machine's own library (``default.<host os>.c++11``)."""

    args: tuple[str, ...]
    lib: str
    cc: str | None = None
    host_lib: str = "downloads/nsync/builds/default.linux.c++11/nsync.a"


@dataclass(frozen=True)
class NdkClangBuild:
    """How tfbuild builds the contrib Makefile's ``TARGET=ANDROID`` with a clang-only NDK (r19
    and newer), whose GCC toolchains, ``platforms/`` sysroot and gnustl the Makefile's Android
    section names (:mod:`tfbuild.pipeline.outputs.android.ndk_clang`). ``triple`` is clang's
    ``--target`` without the API level (``aarch64-linux-android``); ``abi_triple`` names the
    NDK's ``sysroot/usr/lib/<abi_triple>`` and is protobuf's ``configure --host``; ``arch_flags``
    go to every compile (TensorFlow, protobuf, nsync); ``ldflags`` to the benchmark's link.
    ``page_size`` is the LOAD alignment every ELF linked for the ABI must have, whatever the
    NDK's default (16384 on 64-bit ABIs: Google Play's 16 KB pages; None: the NDK's own)."""

    triple: str
    abi_triple: str
    arch_flags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    linker: Linker = "lld"
    page_size: int | None = None

    @property
    def page_size_flags(self) -> tuple[str, ...]:
        """What every link for the ABI gets so that its LOAD segments have ``page_size``
        alignment: NDK r27 and older default to 4 KB, r28 to 16 KB on 64-bit ABIs."""
        return (f"-Wl,-z,max-page-size={self.page_size}",) if self.page_size else ()


@dataclass(frozen=True)
class MakefileProfile:
    variables: Mapping[str, Template]
    optflags: tuple[str, ...]
    protobuf: ProtobufBuild
    nsync: NsyncBuild
    artifacts: Annotated[tuple[ArtifactSpec, ...], Check(non_empty)]
    dockerfile: DockerfileName | None = None  # None: runs on the host (iOS, a Mac with Xcode)
    ndk_max_major: int | None = None
    """The newest NDK the Makefile's own Android section builds with (its GCC toolchains)."""
    ndk_gcc_stl: str | None = None
    """The C++ runtime that section compiles against (``gnustl_static``); the clang adapter's is
    libc++ (:data:`~tfbuild.pipeline.outputs.android.ndk_clang.CLANG_STL`)."""
    ndk_clang: NdkClangBuild | None = None
    """How a newer, clang-only NDK builds the target; None: such NDKs are refused."""
    linker: Linker = "bfd"


@dataclass(frozen=True)
class BazelTarget:
    """A Bazel label, ``package`` either a literal (``//tensorflow``) or ``android_inference``,
    which names the package the TF version keeps its Android inference library in."""

    package: str
    name: str
    kind: ArtifactKind


@dataclass(frozen=True)
class BazelProfile:
    dockerfile: DockerfileName
    config: str
    config_flags: tuple[str, ...]
    targets: Annotated[tuple[BazelTarget, ...], Check(non_empty)]
    needs_android_workspace: bool = False
    linker: Linker = "bfd"


@dataclass(frozen=True)
class OpsLibraryProfile:
    compiler: Template
    archiver: Template
    cflags: tuple[str, ...]
    kind: Literal["shared", "static"]
    dockerfile: DockerfileName | None = None
    linker: Linker = "bfd"  # only a shared library is linked; a static archive is linked by the app


@dataclass(frozen=True)
class LinkProfile:
    """What an app links: archives kept whole (their static initializers register ops and
    kernels), plain archives, system libraries, Apple frameworks; which snippets fit the
    platform; and the C++ runtime the libraries were built against (Android)."""

    whole_archive: tuple[str, ...]
    libs: tuple[str, ...]
    system_libs: tuple[str, ...]
    frameworks: tuple[str, ...]
    snippets: tuple[Snippet, ...]
    stl: str | None = None
    """The C++ runtime an app links (Android: ``c++_static``) when the build's manifest does not
    name the one its archives were compiled against (``android_ndk.stl``)."""


@dataclass(frozen=True)
class RunProfile:
    """That a program built for the target runs on this kind of machine (x86_64 Linux) and in
    its Linux toolchain container, as its architecture says (directly, or under qemu-user: see
    :meth:`TargetProfile.launcher`); ``static``: the programs are linked ``-static`` (Android's),
    so qemu-user needs no system root. ``tfbuild verify`` runs its C++ runner this way; a
    target without a ``[run]`` table (iOS) cannot be verified here."""

    static: bool = False


@dataclass(frozen=True)
class TargetProfile:
    """One ``toolchains/<name>.toml``: the target, and a section per flavour that builds it."""

    name: str
    description: str
    platform: Platform
    arch: Annotated[str, Check(known_architecture)]
    """The architecture as the platform spells it (``arm64-v8a``), one of a record's ``names``."""
    runnable_here: bool
    requires: tuple[HostRequirement, ...]
    link: LinkProfile
    makefile: MakefileProfile | None = None
    bazel: BazelProfile | None = None
    ops_library: OpsLibraryProfile | None = None
    run: RunProfile | None = None
    source: Path | None = None

    def __post_init__(self) -> None:
        if not self.flavours:
            raise ConfigError("no flavour builds this target", hint="add [makefile], [bazel] or [ops_library]")

    @property
    def flavours(self) -> tuple[Flavour, ...]:
        """The flavours that build this target, in :data:`FLAVOURS` order."""
        sections = {Flavour.MAKEFILE: self.makefile, Flavour.BAZEL: self.bazel, Flavour.OPS_LIBRARY: self.ops_library}
        return tuple(flavour for flavour in FLAVOURS if sections[flavour] is not None)

    @property
    def architecture(self) -> Architecture:
        """The record of :attr:`arch` (``toolchains/architectures``)."""
        return find_architecture(self.arch)

    @property
    def is_64bit(self) -> bool:
        return self.architecture.bits == 64

    @property
    def launcher(self) -> tuple[str, ...] | None:
        """The argv prefix that runs the target's programs here (empty: directly), or None when
        they cannot run here (no ``[run]`` table)."""
        if self.run is None:
            return None
        return self.architecture.launcher(static=self.run.static)


def load_targets(directory: Path | None = None) -> dict[str, TargetProfile]:
    """Every profile in ``directory`` (default: tfbuild's ``toolchains/``), by target name."""
    directory = directory or toolchains_dir()
    profiles = {}
    for path in sorted(directory.glob("*.toml")):
        profile = load_profile(path)
        profiles[profile.name] = profile
    return profiles


@functools.lru_cache(maxsize=1)
def _builtin_targets() -> dict[str, TargetProfile]:
    return load_targets()


def get_target(name: str) -> TargetProfile:
    """The built-in profile ``name``; an unknown name is a :class:`ConfigError` with a guess."""
    targets = _builtin_targets()
    if name not in targets:
        raise ConfigError(
            f"unknown target '{name}'{did_you_mean(name, targets)}",
            hint=f"known targets: {', '.join(targets)} (see 'tfbuild targets')",
        )
    return targets[name]


def load_profile(path: Path) -> TargetProfile:
    """Read one profile; every problem is a :class:`ConfigError` naming the file and key."""
    return read_toml(TargetProfile, path, name=path.stem, source=path)


def fill(text: str, **values: str) -> str:
    """``text`` with its placeholders replaced; profiles are tfbuild's own data, checked at load."""
    return text.format_map(values)


def builds_here(profile: TargetProfile) -> tuple[bool, str]:
    """Whether this machine can build ``profile`` now, and why: a target outside a Linux host's
    reach (Android without its NDK, iOS without Xcode) says what it needs; a Linux target needs
    its compiler on the PATH (a native or cross g++) or a Docker engine for its toolchain image.
    Looks, runs nothing."""
    import os
    import shutil

    if not profile.runnable_here:
        return False, f"plan only (needs {', '.join(profile.requires)})"
    compilers = []
    if profile.ops_library is not None and "{" not in profile.ops_library.compiler:
        compilers.append(profile.ops_library.compiler)
    if profile.makefile is not None and "{" not in profile.makefile.variables.get("CXX", "{"):
        compilers.append(profile.makefile.variables["CXX"])
    compilers = list(dict.fromkeys(compilers or ["g++"]))
    found = [compiler for compiler in compilers if shutil.which(compiler)]
    if found:
        return True, f"yes ({found[0]})"
    docker = shutil.which("docker") is not None and (
        bool(os.environ.get("DOCKER_HOST")) or Path("/var/run/docker.sock").exists()
    )
    if docker:
        return True, "yes (in a container)"
    return False, f"no (needs {' or '.join(compilers)}, or Docker)"
