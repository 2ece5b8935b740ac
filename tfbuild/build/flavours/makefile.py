"""The contrib Makefile flavour (TensorFlow 1.x to 2.0): the steps the ``build_all_*.sh`` scripts
run, made explicit and selective.

In order: ``download_dependencies.sh`` (skipped when ``downloads/`` is already filled, so an
offline CI can pre-seed it), protobuf for the target (the target's ``compile_*_protobuf.sh``, or
protobuf's own configure for cross targets TensorFlow has no script for), nsync for the host
and the target (``compile_nsync.sh``), then ``make -f tensorflow/contrib/makefile/Makefile``
with the profile's variables. Selection rides on ``OPTFLAGS``, the one variable the Makefile
folds into ``CXXFLAGS`` that a command line may replace without losing the Makefile's own flags
(as ``compile_ios_tensorflow.sh -f`` uses it): ``-DSELECTIVE_REGISTRATION
-DSUPPORT_SELECTIVE_REGISTRATION -I<header dir>``, where TensorFlow's
``selective_registration.h`` finds ``ops_to_register.h``. ``ANDROID_TYPES`` is the full type set,
as ``build_all_ios.sh -g`` sets it: the header names exactly the kernels the model needs,
whatever their dtype, and the slim set would compile some of them away.

A size profile (:mod:`tfbuild.build.size_profiles`) adds its flags for every object to
``OPTFLAGS`` too, after the target's own (the last ``-O`` wins) and before ``--extra-cflag``.
Its per-file and link flags go into ``tfbuild-profile.mk``, written into the output directory
(``/out`` in the container) and read after TensorFlow's Makefile (``make -f Makefile -f
tfbuild-profile.mk``), which stays unedited: a target-specific ``private override CXXFLAGS +=
-O2`` for each hot kernel's object (``$(OBJDIR)tensorflow/core/kernels/conv_ops.o``, the
Makefile's own object names) and ``override LDFLAGS += ...`` for the benchmark's link.
Target-specific ``OPTFLAGS`` would not do: ``CXXFLAGS`` is a simple variable that took
``OPTFLAGS``' value when the Makefile was read. ``override`` is what beats a ``CXXFLAGS`` or
``LDFLAGS`` on make's command line (pi-armv7 and linux-aarch64 pass ``LDFLAGS`` there). The
profile covers TensorFlow's objects and the benchmark; protobuf and nsync keep their scripts' flags.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import PurePosixPath

from tfbuild.build.fixups import apply_fixups
from tfbuild.build.flavours.layout import (
    BuildLayout,
    PlanRequest,
    container_layout,
    header_file,
    local_layout,
    require_path,
    toolchain_image,
    tree_header_file,
)
from tfbuild.build.plan import AppliedSizeProfile, Artifact, BuildPlan, GeneratedFile, Step
from tfbuild.build.size_profiles import apply_size_profile
from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.templating import render
from tfbuild.toolchain.android_ndk import NdkInfo, check_abi, check_api_level, inspect_ndk
from tfbuild.toolchain.targets import MakefileProfile, TargetProfile, fill
from tfbuild.tree.facts import MAKEFILE_DIR

MAKEFILE = f"{MAKEFILE_DIR}/Makefile"
DOWNLOADS = f"{MAKEFILE_DIR}/downloads"
HOST_PROTOBUF_PREFIX = "gen/protobuf-host"
DOWNLOAD_STEP = "download dependencies"
SELECTIVE_FLAGS = ("-DSELECTIVE_REGISTRATION", "-DSUPPORT_SELECTIVE_REGISTRATION")
FULL_TYPES = "-D__ANDROID_TYPES_FULL__"
PROFILE_MAKEFILE = "tfbuild-profile.mk"
GEN_DIR = "gen"
FLAGS_STAMP = "tfbuild-build-flags.sha256"
BUILT_WITH_TARGET_FLAGS = ("obj", "dep", "lib", "bin")
"""What the Makefile builds under ``gen/`` with the target's flags (every target's, below
these). Host tools (``host_obj``, ``proto_text``), generated sources, protobuf and nsync stay."""
_MAKE_SAFE_SOURCE = re.compile(r"[A-Za-z0-9_./+-]+\.cc\Z")
"""A source name that can stand in a make rule as it is (no spaces, ``$``, ``:``, ``%``, ``#``)."""
MAKEFILE_NDK_API_LEVEL = 21
"""The API level the contrib Makefile builds Android for: its ``--sysroot`` is
``$(NDK_ROOT)/platforms/android-21/arch-<arch>`` for every ABI, whatever ``--ndk-api-level`` says."""


def plan(request: PlanRequest) -> BuildPlan:
    profile = request.profile.makefile
    assert profile is not None
    assert request.tree is not None
    _check_android_ndk(request, profile)
    dockerfile = None if request.options.local else profile.dockerfile
    layout = container_layout(request, ccache_volume=True) if dockerfile is not None else local_layout(request)
    image = toolchain_image(request, dockerfile) if dockerfile is not None else None
    env = {"CCACHE_DIR": str(layout.ccache)} if layout.ccache else {}
    artifacts = tuple(
        Artifact(path=_makefile_path(layout, spec.path), name=spec.name, kind=spec.kind) for spec in profile.artifacts
    )
    size = _size_profile(request, profile)
    profile_mk = _profile_makefile(request, size)
    steps, fixups = apply_fixups(
        _steps(request, profile, layout, size, profile_mk, layout.out / PROFILE_MAKEFILE if profile_mk else None),
        request.tree.version,
    )
    generated = (header_file(request), tree_header_file(request), *((profile_mk,) if profile_mk else ()))
    return BuildPlan(
        target=request.profile.name,
        flavour=Flavour.MAKEFILE,
        image=image,
        mounts=layout.mounts,
        steps=steps,
        generated_files=generated,
        artifacts=artifacts,
        output_dir=request.options.output_dir,
        env=env,
        fixups=fixups,
        size_profile=size,
    )


def _size_profile(request: PlanRequest, profile: MakefileProfile) -> AppliedSizeProfile:
    """The size profile for the Makefile's linker, with the hot sources a make rule can name."""
    hot = tuple(source for source in request.hot_files if _MAKE_SAFE_SOURCE.match(source))
    size = apply_size_profile(request.options.size_profile, linker=profile.linker, hot_files=hot)
    skipped = sorted(set(request.hot_files) - set(hot))
    if skipped and size.hot_files:
        note = f"not compiled apart (no make rule can name them): {', '.join(skipped)}"
        size = dataclasses.replace(size, notes=(*size.notes, note))
    return size


def _profile_makefile(request: PlanRequest, size: AppliedSizeProfile) -> GeneratedFile | None:
    """``tfbuild-profile.mk`` in the output directory, when the profile has per-file or link flags."""
    if not size.hot_files and not size.ldflags:
        return None
    content = render(
        "size_profile.mk.j2",
        profile=size.name,
        hot_cflags=size.hot_cflags,
        hot_objects=tuple(source.removesuffix(".cc") + ".o" for source in size.hot_files),
        ldflags=size.ldflags,
    )
    return GeneratedFile(path=request.options.output_dir / PROFILE_MAKEFILE, content=content)


def dependencies_only(plan: BuildPlan) -> BuildPlan:
    """Just the download step of a Makefile plan, e.g. to fill ``downloads/`` before the
    protobuf rename, which works on the downloaded sources."""
    steps = tuple(step for step in plan.steps if step.name == DOWNLOAD_STEP)
    return dataclasses.replace(plan, steps=steps, artifacts=(), generated_files=())


def _steps(
    request: PlanRequest,
    profile: MakefileProfile,
    layout: BuildLayout,
    size: AppliedSizeProfile,
    profile_mk_file: GeneratedFile | None,
    profile_mk: PurePosixPath | None,
) -> tuple[Step, ...]:
    src = layout.tree_src
    mk = src / MAKEFILE_DIR
    env = {"NDK_ROOT": str(layout.ndk)} if layout.ndk is not None else {}
    steps = [
        Step(DOWNLOAD_STEP, (f"{MAKEFILE_DIR}/download_dependencies.sh",), src, skip_if_exists=src / DOWNLOADS),
    ]
    steps += _protobuf_steps(request, profile, layout, env)
    steps.append(
        Step(
            "build nsync (host)",
            (f"{MAKEFILE_DIR}/compile_nsync.sh",),
            src,
            skip_if_exists=mk / profile.nsync.host_lib,
        )
    )
    if profile.nsync.lib != profile.nsync.host_lib:
        nsync_env = dict(env)
        if profile.nsync.cc is not None:
            # compile_nsync.sh has no option for a cross compiler; its generated Makefile sets
            # CC, which a command-line definition in MAKEFLAGS overrides.
            nsync_env["MAKEFLAGS"] = f"CC={profile.nsync.cc}"
        steps.append(
            Step(
                f"build nsync ({request.profile.name})",
                (f"{MAKEFILE_DIR}/compile_nsync.sh", *profile.nsync.args),
                src,
                env=nsync_env,
                skip_if_exists=mk / profile.nsync.lib,
            )
        )
    argv = _make_argv(request, profile, layout, size, profile_mk)
    steps.append(_forget_stale_objects(argv, profile_mk_file.content if profile_mk_file else "", src))
    steps.append(Step(f"build TensorFlow ({request.profile.name})", argv, src, env=env))
    return tuple(steps)


def _forget_stale_objects(make_argv: tuple[str, ...], profile_mk_content: str, src: PurePosixPath) -> Step:
    """A step that removes the tree's objects, archives and programs when they were built with
    other flags: make's dependency files track sources and headers, not the command line, so
    a new size profile or header directory would otherwise relink the old objects. ccache
    makes the rebuild cheap when only the stamp, not the flags, changed."""
    flags = tuple(arg for arg in make_argv if not arg.startswith("-j"))  # the job count changes no object
    digest = hashlib.sha256("\0".join((*flags, profile_mk_content)).encode()).hexdigest()
    gen = f"{MAKEFILE_DIR}/{GEN_DIR}"
    return Step(
        "forget objects built with other flags",
        (
            "bash", "-c", render("steps/forget_stale_objects.sh"), "bash",
            f"{gen}/{FLAGS_STAMP}", digest,
            *(f"{gen}/{name}" for name in BUILT_WITH_TARGET_FLAGS),
        ),
        src,
    )


def _protobuf_steps(
    request: PlanRequest, profile: MakefileProfile, layout: BuildLayout, env: dict[str, str]
) -> list[Step]:
    src = layout.tree_src
    mk = src / MAKEFILE_DIR
    protobuf = profile.protobuf
    installed = mk / protobuf.prefix / "lib" / "libprotobuf.a"
    if protobuf.script is not None:
        return [
            Step(
                f"build protobuf ({protobuf.script})",
                (f"{MAKEFILE_DIR}/{protobuf.script}", *protobuf.args),
                src,
                env=env,
                skip_if_exists=installed,
            )
        ]
    # Without a script, ProtobufBuild has a configure host and a compiler (checked when loaded).
    configure_host, cxx = protobuf.configure_host, protobuf.cxx
    assert configure_host is not None
    assert cxx is not None
    host_protoc = mk / HOST_PROTOBUF_PREFIX / "bin" / "protoc"
    return [
        Step(
            "build protobuf (host, for protoc)",
            (f"{MAKEFILE_DIR}/compile_linux_protobuf.sh",),
            src,
            skip_if_exists=host_protoc,
        ),
        Step(
            f"build protobuf ({configure_host})",
            (
                "bash", "-c", render("steps/cross_protobuf.sh"), "bash",
                str(mk / "downloads" / "protobuf"),
                str(mk / protobuf.prefix),
                configure_host,
                cxx,
                str(host_protoc),
                str(request.options.jobs),
            ),
            src,
            skip_if_exists=installed,
        ),
    ]


def _make_argv(
    request: PlanRequest,
    profile: MakefileProfile,
    layout: BuildLayout,
    size: AppliedSizeProfile,
    profile_mk: PurePosixPath | None,
) -> tuple[str, ...]:
    options = request.options
    values = {
        "makefile_dir": str(layout.tree_src / MAKEFILE_DIR),
        "ndk": str(layout.ndk) if layout.ndk is not None else "",
        "ndk_api_level": str(options.android.ndk_api_level or ""),
    }
    variables = {name: fill(value, **values) for name, value in profile.variables.items()}
    if layout.ccache is not None:
        variables.setdefault("CC_PREFIX", "ccache")
        if "CXX" in variables:
            variables["CXX"] = f"ccache {variables['CXX']}"
    optflags = (*profile.optflags, *size.cflags, *SELECTIVE_FLAGS, f"-I{layout.header_dir}", *options.extra_cflags)
    variables.update(
        HOST_NSYNC_LIB=f"{MAKEFILE_DIR}/{profile.nsync.host_lib}",
        TARGET_NSYNC_LIB=f"{MAKEFILE_DIR}/{profile.nsync.lib}",
        ANDROID_TYPES=FULL_TYPES,
        OPTFLAGS=" ".join(optflags),
    )
    makefiles = ("-f", MAKEFILE, *(("-f", str(profile_mk)) if profile_mk is not None else ()))
    return ("make", *makefiles, f"-j{options.jobs}", *(f"{name}={value}" for name, value in variables.items()))


def _makefile_path(layout: BuildLayout, relative: str) -> PurePosixPath:
    return layout.tree_src / MAKEFILE_DIR / relative


def _check_android_ndk(request: PlanRequest, profile: MakefileProfile) -> None:
    """Read and check an Android target's NDK, before anything else is planned."""
    if "ndk" not in request.profile.requires:
        return
    android = request.options.android
    path = require_path(android.ndk, "--ndk", request.profile, origin=android.ndk_origin)
    check_makefile_ndk(inspect_ndk(path, origin=android.ndk_origin), request.profile, profile)


def check_makefile_ndk(ndk: NdkInfo, target: TargetProfile, profile: MakefileProfile) -> None:
    """Refuse an NDK the contrib Makefile cannot build ``target`` with, as its ``TARGET=ANDROID``
    section stands: it calls the NDK's GCC toolchains (``toolchains/<triple>-4.9``), which NDK
    r18 removed, so the NDK must be no newer than the profile's ``ndk_max_major``; and it needs
    the target's ABI and :data:`MAKEFILE_NDK_API_LEVEL`. This is the rule to change when the
    Makefile learns to use a modern NDK's clang."""
    if profile.ndk_max_major is not None and ndk.major > profile.ndk_max_major:
        raise ConfigError(
            f"{ndk.where}: the contrib Makefile builds {target.name} with the NDK's GCC toolchains"
            f" (toolchains/*-4.9), which {ndk.name} no longer has",
            hint=f"use NDK r{profile.ndk_max_major} or older, or --flavour bazel with an NDK the tree"
            " supports (see 'tfbuild source')",
        )
    check_abi(ndk, target.arch, target=target.name)
    check_api_level(
        ndk, MAKEFILE_NDK_API_LEVEL, needs=f"target {target.name}",
        why="the contrib Makefile's --sysroot platforms/android-21", choosable=False,
    )
