"""The contrib Makefile's ``TARGET=ANDROID`` on the NDK at hand.

TensorFlow 1.x's Makefile (and ``compile_android_protobuf.sh``, ``compile_nsync.sh -t android``)
call the NDK's GCC 4.9 toolchains (``toolchains/<triple>-4.9/prebuilt/<host>/bin/<triple>-g++``)
with ``--sysroot platforms/android-21/arch-<arch>`` and gnustl. NDK r18 removed GCC and gnustl,
r22 ``platforms/``. :func:`choose_adapter` reads the NDK (:class:`NdkInfo`) and picks:

- an NDK with the GCC toolchains: the Makefile's own Android section, as
  ``build_all_android.sh`` runs it (the target profile's ``ndk_max_major`` bounds it);
- a clang-only NDK (r19 and newer, :data:`CLANG_ONLY_MAJOR`): tfbuild's adapter. make's
  command line gets ``CXX CC AR LD`` (the NDK's clang, llvm-ar, lld under
  ``toolchains/llvm/prebuilt/<host>/bin``) and ``CXXFLAGS INCLUDES LDFLAGS LIBS``: the values
  the tree's own Makefile computes for the target (:func:`makefile_variables`), without what
  names the GCC era (``$(NDK_ROOT)/toolchains|platforms|sources/cxx-stl|sources/android/support``,
  ``-lgnustl_static``), with clang's ``--target=<triple><api>``, the NDK's sysroot and libc++.
  A variable on make's command line wins over the Makefile's ``:=`` and suppresses its ``+=``,
  so each value is the whole set; ``$(OPTFLAGS)`` and ``$(MAKEFILE_DIR)`` stay references that
  make expands (selection and size profiles still ride on ``OPTFLAGS``). protobuf and nsync are
  cross-built with the same clang (protobuf's configure; nsync through the Makefile
  ``compile_nsync.sh`` generates, its variables given in ``MAKEFLAGS``).

The target profile holds what is data (``[makefile.ndk_clang]``: the triple, the ABI's
directory triple, arch flags, link flags); the fix-ups the static benchmark link needs are in
``toolchains/tensorflow/fixups.toml`` (``when = ["ndk-clang"]``), applied to the steps tagged
:data:`CLANG_TAG`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from tfbuild.errors import ConfigError
from tfbuild.pipeline.planning.notes import Note
from tfbuild.toolchain.android_ndk import (
    CLANG_ONLY_MAJOR,
    LLVM_PREBUILT,
    NdkInfo,
    check_abi,
    check_api_level,
)
from tfbuild.toolchain.targets import MakefileProfile, NdkClangBuild, TargetProfile
from tfbuild.tree.contrib_makefile import makefile_variables

MAKEFILE_NDK_API_LEVEL = 21
"""The API level the contrib Makefile builds Android for: its ``--sysroot`` is
``$(NDK_ROOT)/platforms/android-21/arch-<arch>`` for every ABI, whatever ``--ndk-api-level``
says; the clang adapter keeps it (``--target=<triple>21``)."""
CLANG_STL = "c++_static"
"""The C++ runtime the clang adapter compiles against (``-stdlib=libc++``; the benchmark links
it statically), as an app's build names it (``APP_STL``, ``ANDROID_STL``)."""
CLANG_TAG = "ndk-clang"
"""The tag of the steps the clang adapter plans (fix-ups select them with ``when``)."""
NSYNC_ANDROID_TAG = "nsync-android"
"""The tag of an Android nsync step: compile_nsync.sh's Android Makefile has no ``-Werror``."""
REPLACED = ("CXX", "CC", "AR", "LD", "CXXFLAGS", "INCLUDES", "LDFLAGS", "LIBS")
"""The Makefile variables the clang adapter gives on make's command line, in that order."""
KEPT = ("NDK_ROOT", "MAKEFILE_DIR", "OPTFLAGS", "ANDROID_TYPES", "TARGET_NSYNC_LIB", "HOST_NSYNC_LIB", "CC_PREFIX")
"""Variables left as ``$(NAME)`` in the derived values: make's command line or the Makefile
itself sets them."""
_GCC_ERA_PATH = re.compile(r"\$\(NDK_ROOT\)/(?:sources/cxx-stl|sources/android/support|platforms|toolchains)/")
_GCC_ERA_LIBS = frozenset({"-lgnustl_static", "-lgnustl_shared", "-lsupc++"})
_VALUE_FLAGS = frozenset({"--sysroot", "-isystem", "-I", "-L"})
"""Flags whose value may be the next word (``--sysroot $(NDK_ROOT)/platforms/...``)."""
NSYNC_CPPFLAGS = (
    "-DNSYNC_USE_CPP11_TIMEPOINT", "-DNSYNC_ATOMIC_CPP11",
    "-I../../platform/c++11", "-I../../platform/gcc", "-I../../platform/posix", "-pthread",
)
"""compile_nsync.sh's Android ``PLATFORM_CPPFLAGS`` without its sysroot and gnustl includes."""
RUNTIME_LIBS = frozenset({"atomic"})
"""Libraries of the compiler's runtime rather than the platform's: libatomic ships with clang in
NDK r23+ (``lib/clang/*/lib/linux/<arch>``), and compiler-rt's builtins cover its ``__atomic``
calls on ARM where it is absent."""
THREAD_ATEXIT = frozenset({"__cxa_thread_atexit_impl"})
"""What libc++abi calls to run a ``thread_local`` object's destructor: bionic's, from API 23."""
THREAD_ATEXIT_API_LEVEL = 23
PROTOBUF_LIBS = "-llog -lz"
"""compile_android_protobuf.sh's ``LIBS`` (for protoc, which protobuf links too) without gnustl."""


@dataclass(frozen=True)
class NdkAdapter:
    """How the Makefile flavour builds Android with ``ndk``: the tree's own GCC section
    (``clang`` None) or the clang adapter, and why (the plan's notes)."""

    ndk: NdkInfo
    clang: NdkClangBuild | None
    notes: tuple[Note, ...]


def choose_adapter(
    ndk: NdkInfo, target: TargetProfile, profile: MakefileProfile, *, host: str, tree_ndks: str | None = None
) -> NdkAdapter:
    """The adapter for ``ndk`` (read on this machine; ``host`` is the prebuilt directory the
    build runs), or a :class:`ConfigError` when neither fits. ``tree_ndks`` says which NDKs the
    tree lists itself (``NDK r10-r18 (configure.py: ...)``), for the note when the adapter goes
    past them."""
    check_abi(ndk, target.arch, target=target.name)
    if ndk.gcc_toolchains and (profile.ndk_max_major is None or ndk.major <= profile.ndk_max_major):
        _check_level(ndk, target, "the contrib Makefile's --sysroot platforms/android-21")
        note = (f"{ndk.name} has the GCC toolchains (toolchains/*-4.9): the contrib Makefile's own "
                "TARGET=ANDROID section builds it (GCC, platforms/android-21, gnustl)")
        return NdkAdapter(ndk, None, (Note("android-ndk", note),))
    clang = profile.ndk_clang
    if clang is None or ndk.major < CLANG_ONLY_MAJOR:
        newest = f"r{profile.ndk_max_major} or older" if profile.ndk_max_major is not None else "one with GCC"
        raise ConfigError(
            f"{ndk.where}: the contrib Makefile builds {target.name} with the NDK's GCC toolchains"
            f" (toolchains/*-4.9), which {ndk.name} no longer has"
            + (f", and tfbuild's clang adapter needs NDK r{CLANG_ONLY_MAJOR} or newer" if clang else ""),
            hint=f"use NDK {newest}" + (f" or r{CLANG_ONLY_MAJOR} and newer" if clang else "")
            + ", or --flavour bazel with an NDK the tree supports (see 'tfbuild source')",
        )
    if host not in ndk.hosts:
        raise ConfigError(
            f"{ndk.where}: {ndk.name} has no clang for {host} ({LLVM_PREBUILT}/{host}); "
            f"it has {', '.join(ndk.hosts) or 'none'}",
            hint=f"use an NDK built for {host}",
        )
    _check_level(ndk, target, "the API level the contrib Makefile builds Android for (platforms/android-21)")
    notes = [
        f"{ndk.name} has no GCC toolchains: tfbuild's clang adapter replaces the contrib Makefile's "
        f"Android toolchain variables ({' '.join(REPLACED)}) on make's command line with the NDK's clang "
        f"(--target={clang.triple}{MAKEFILE_NDK_API_LEVEL}), its sysroot and libc++, derived from the tree's own "
        "values for TARGET=ANDROID; protobuf and nsync are cross-built with the same clang",
    ]
    if profile.ndk_max_major is not None:
        past = f"the tree's Makefile was written for NDK r{profile.ndk_max_major} and older"
        if tree_ndks:
            past += f", and the tree lists {tree_ndks}"
        notes.append(f"{past}: {ndk.name} is past that; the tree itself was never built this way")
    strong = ndk.strong_runtime_references(clang.abi_triple, THREAD_ATEXIT, host)
    if strong is not None and MAKEFILE_NDK_API_LEVEL < THREAD_ATEXIT_API_LEVEL:
        notes.append(
            f"{strong} references __cxa_thread_atexit_impl strongly; bionic has it from API {THREAD_ATEXIT_API_LEVEL}, "
            f"so a shared library with thread_local destructors (TF 1.15 and newer have them) does not link for API "
            f"{MAKEFILE_NDK_API_LEVEL} with this NDK. An NDK as Google ships it builds libc++abi against its lowest "
            f"API level, where the reference is weak: use one of those, or --ndk-api-level {THREAD_ATEXIT_API_LEVEL} "
            "(the JNI library is linked for the app's lowest API level)"
        )
    return NdkAdapter(ndk, clang, tuple(Note("android-ndk", note) for note in notes))


def _check_level(ndk: NdkInfo, target: TargetProfile, why: str) -> None:
    check_api_level(ndk, MAKEFILE_NDK_API_LEVEL, needs=f"target {target.name}", why=why, choosable=False)


@dataclass(frozen=True)
class ClangToolchain:
    """The NDK's clang toolchain as the build's commands see it."""

    prebuilt: PurePosixPath
    build: NdkClangBuild
    api_level: int = MAKEFILE_NDK_API_LEVEL
    launcher: str | None = None
    """``ccache``, in front of the compilers (not of the archiver or linker)."""

    @property
    def bin(self) -> PurePosixPath:
        return self.prebuilt / "bin"

    @property
    def target_flags(self) -> tuple[str, ...]:
        """clang's target and the NDK's sysroot: what makes the driver an Android one."""
        return (f"--target={self.build.triple}{self.api_level}", f"--sysroot={self.prebuilt / 'sysroot'}")

    def compiler(self, name: str) -> str:
        """``clang++`` or ``clang``, behind the launcher."""
        path = str(self.bin / name)
        return f"{self.launcher} {path}" if self.launcher else path

    @property
    def ar(self) -> str:
        return str(self.bin / "llvm-ar")

    @property
    def target_cc(self) -> str:
        """The NDK's ``<triple><api>-clang`` driver: one path that needs no flags."""
        return str(self.bin / f"{self.build.triple}{self.api_level}-clang")


def clang_toolchain(
    ndk_in_build: PurePosixPath, host: str, build: NdkClangBuild, launcher: str | None
) -> ClangToolchain:
    """The toolchain of the NDK at ``ndk_in_build`` (as the build sees it) for ``host``."""
    return ClangToolchain(prebuilt=ndk_in_build / LLVM_PREBUILT / host, build=build, launcher=launcher)


def make_variables(
    toolchain: ClangToolchain,
    makefile_text: str,
    android_arch: str,
    *,
    library_kinds: Callable[[str], frozenset[str]],
) -> tuple[dict[str, str], tuple[Note, ...]]:
    """The clang adapter's make command-line variables (:data:`REPLACED`, in order) for
    ``android_arch``, from the tree's Makefile text; and notes on the NDK's libraries left out
    of a static link because the NDK has them only as shared libraries (``library_kinds(name)``
    says which kinds it has: :meth:`NdkInfo.library_kinds`), or, for :data:`RUNTIME_LIBS`, not at
    all. ``-llog`` stays: a fix-up gives it a static archive."""
    build = toolchain.build
    given = {"TARGET": "ANDROID", "ANDROID_ARCH": android_arch, "HOST_OS": "LINUX", "HOST_ARCH": "x86_64"}
    tree = makefile_variables(makefile_text, given, ("CXXFLAGS", "INCLUDES", "LDFLAGS", "LIBS"), kept=KEPT)
    cxxflags = _without_gcc_era(tree["CXXFLAGS"].split())
    ldflags = _without_gcc_era(tree["LDFLAGS"].split())
    libs, notes = [], []
    static = "-static" in build.ldflags
    for word in _without_gcc_era(tree["LIBS"].split()):
        name = word.removeprefix("-l") if word.startswith("-l") else None
        kinds = library_kinds(name) if static and name is not None and name != "log" else frozenset({"static"})
        if "static" not in kinds and (kinds or name in RUNTIME_LIBS):
            notes.append(f"-l{name} left out of the benchmark's static link: the NDK has no lib{name}.a for "
                         f"{android_arch}" + (f" (only lib{name}.so)" if kinds else ""))
            continue
        libs.append(word)
    variables = {
        "CXX": toolchain.compiler("clang++"),
        "CC": toolchain.compiler("clang"),
        "AR": toolchain.ar,
        "LD": str(toolchain.bin / "ld.lld"),
        "CXXFLAGS": _join(*toolchain.target_flags, "-stdlib=libc++", *cxxflags, *_missing(build.arch_flags, cxxflags)),
        "INCLUDES": _join(*_without_gcc_era(tree["INCLUDES"].split())),
        "LDFLAGS": _join(*ldflags, *_missing(build.arch_flags, ldflags), *build.ldflags, *build.page_size_flags),
        "LIBS": _join(*libs),
    }
    return variables, tuple(Note("android-ndk", note) for note in notes)


def nsync_make_variables(toolchain: ClangToolchain) -> dict[str, str]:
    """What the nsync step gives the Makefile compile_nsync.sh generates for Android (through
    ``MAKEFLAGS``): the NDK's clang++ (nsync's ``.c`` files are compiled as C++, ``-x c++``),
    llvm-ar, and compile_nsync.sh's Android flags with clang's target and sysroot."""
    return {
        "CC": toolchain.compiler("clang++"),
        "AR": toolchain.ar,
        "PLATFORM_CPPFLAGS": _join(*toolchain.target_flags, *NSYNC_CPPFLAGS),
        "PLATFORM_CFLAGS": _join("-x", "c++", "-std=c++11", "-Wno-narrowing", *toolchain.build.arch_flags,
                                 "-fPIE", "-fPIC"),
    }


def protobuf_configure(toolchain: ClangToolchain) -> tuple[str, tuple[str, ...]]:
    """protobuf's ``configure`` for the ABI: the ``CXX`` (clang++ with its target and sysroot)
    and the other variables, as compile_android_protobuf.sh gives them with gnustl left out."""
    arch, target = toolchain.build.arch_flags, " ".join(toolchain.target_flags)
    return f"{toolchain.compiler('clang++')} {target}", (
        f"CC={toolchain.compiler('clang')} {target}",
        f"AR={toolchain.ar}",
        f"CFLAGS={_join('-O2', *arch, '-fPIC')}",
        f"CXXFLAGS={_join('-O2', '-DNDEBUG', '-frtti', '-fexceptions', *arch, '-fPIC')}",
        f"LIBS={PROTOBUF_LIBS}",
    )


def fixup_values(toolchain: ClangToolchain, makefile_dir: PurePosixPath, android_arch: str) -> Mapping[str, str]:
    """The placeholders fix-ups for :data:`CLANG_TAG` steps may use."""
    return {
        "target_cc": toolchain.target_cc,
        "target_ar": toolchain.ar,
        "fixups_dir": str(makefile_dir / "gen" / "tfbuild_fixups" / f"android_{android_arch}"),
    }


@dataclass(frozen=True)
class StaticApp:
    """How a program is compiled and linked ``-static`` against what the clang adapter built
    (``tfbuild verify``'s C++ runner): the NDK's ``clang++`` and the build's own ``CXXFLAGS``
    (target, sysroot, libc++, the ABI's flags), the link flags and the system libraries that
    exist as archives; ``notes`` says which were left out."""

    cxx: str
    cxxflags: tuple[str, ...]
    ldflags: tuple[str, ...]
    system_libs: tuple[str, ...]
    notes: tuple[str, ...]


def static_app(
    toolchain: ClangToolchain,
    makefile_text: str,
    android_arch: str,
    *,
    references: Mapping[str, str],
    system_libs: tuple[str, ...],
    library_kinds: Callable[[str], frozenset[str]],
    log_stub: PurePosixPath | None,
) -> StaticApp:
    """The adapter's ``CXX`` and ``CXXFLAGS`` for ``android_arch`` (:func:`make_variables`), with
    the Makefile references make would expand given by ``references`` (``OPTFLAGS``,
    ``MAKEFILE_DIR``; a word naming another is dropped); the target's ``ldflags`` (``-static``);
    ``system_libs`` that the NDK has as archives, and ``log`` from ``log_stub``, the directory
    where the android-static-liblog fix-up left its ``liblog.a`` (None: it left none)."""
    variables, _ = make_variables(toolchain, makefile_text, android_arch, library_kinds=library_kinds)
    cxxflags = []
    for word in variables["CXXFLAGS"].split():
        expanded = re.sub(r"\$\((\w+)\)", lambda match: references.get(match.group(1), match.group(0)), word)
        if "$(" not in expanded:
            cxxflags.extend(expanded.split())
    libs, notes = [], []
    for name in system_libs:
        kinds = frozenset({"static"}) if name == "log" and log_stub is not None else library_kinds(name)
        if "static" in kinds:
            libs.append(name)
        else:
            notes.append(f"-l{name} left out of the static link: the NDK has no lib{name}.a for {android_arch}")
    ldflags = (*((f"-L{log_stub}",) if log_stub is not None else ()), *toolchain.build.ldflags,
               *toolchain.build.page_size_flags)
    return StaticApp(variables["CXX"], tuple(cxxflags), ldflags, tuple(libs), tuple(notes))


def _without_gcc_era(words: list[str]) -> list[str]:
    """``words`` without what names the NDK's GCC toolchains, platforms sysroot, gnustl and
    support headers (a flag whose value is the next word goes with it)."""
    kept: list[str] = []
    for word in words:
        if _GCC_ERA_PATH.search(word) or word in _GCC_ERA_LIBS:
            if kept and kept[-1] in _VALUE_FLAGS:
                kept.pop()
            continue
        kept.append(word)
    return kept


def _missing(flags: tuple[str, ...], present: list[str]) -> tuple[str, ...]:
    return tuple(flag for flag in flags if flag not in present)


def _join(*words: str) -> str:
    return " ".join(words)
