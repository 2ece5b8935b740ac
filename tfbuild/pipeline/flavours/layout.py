"""What every flavour's planner is given, and the paths its commands use.

A planner gets a :class:`PlanRequest` (options, target profile, flavour, header text, tree facts,
installed TensorFlow) and works from a :class:`BuildLayout`: where the tree, output, header,
SDK/NDK, TensorFlow wheel and caches are *as the build sees them*. In a toolchain container
those are fixed mount points (``/src``, ``/out``, ``/tfbuild/header`` ...) and the layout lists
the mounts (:func:`container_layout`); for ``--local`` builds they are the host paths and there
are no mounts (:func:`local_layout`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.model.header import HEADER_NAME
from tfbuild.pipeline.declarations.options import BuildOptions
from tfbuild.pipeline.flavours.per_file_selection import PerFileSelection
from tfbuild.pipeline.op_library.compile_plan import InstalledTensorFlow, OpsLibraryPlan
from tfbuild.pipeline.planning.plan import GeneratedFile, ImageSpec, Mount
from tfbuild.toolchain.targets import TargetProfile
from tfbuild.tree.facts import TreeFacts, parse_version
from tfbuild.tree.mobile_types import MobileTypes

HEADER_SUBDIR = "header"
"""The header's directory in a build's output directory (:func:`header_path`)."""


def header_path(output_dir: Path) -> Path:
    """Where a build writes its header on the host (and keeps it with the artifacts)."""
    return output_dir / HEADER_SUBDIR / HEADER_NAME

# Where things are inside a toolchain container.
CONTAINER_SRC = PurePosixPath("/src")
CONTAINER_OUT = PurePosixPath("/out")
CONTAINER_HEADER = PurePosixPath("/tfbuild/header")
CONTAINER_OPS = PurePosixPath("/tfbuild/ops")
CONTAINER_SCRATCH = PurePosixPath("/tmp/tfbuild")
CONTAINER_NDK = PurePosixPath("/opt/android-ndk")
CONTAINER_SDK = PurePosixPath("/opt/android-sdk")
CONTAINER_TENSORFLOW = PurePosixPath("/opt/tensorflow")
CONTAINER_CCACHE = PurePosixPath("/cache/ccache")
CONTAINER_BAZEL = PurePosixPath("/cache/bazel")



def refuse_per_file_selection(options: BuildOptions, flavour: Flavour) -> None:
    """``--per-file-selection`` is the Makefile's: the other planners' ``check`` refuse it."""
    if options.per_file_selection:
        raise ConfigError(
            f"per-file selection is for the Makefile flavour, not {flavour}",
            hint="build with --flavour makefile, or leave out --per-file-selection (Bazel's cache key holds "
            "every header a compile action declares, so per-file headers would change every kernel's key)",
        )


@dataclass(frozen=True)
class Preparation:
    """What a flavour needs before the models are analysed (its planner's ``prepare``): the
    installed TensorFlow it compiles against, and a plan of its own that this machine runs
    first (an op library's plain build, which TensorFlow loads so the analysis finds the
    library's kernels). Empty for the flavours that build a tree."""

    tensorflow: InstalledTensorFlow | None = None
    host_library: OpsLibraryPlan | None = None
    """The plan of a library built here before the analysis, which the analysis loads."""


@dataclass(frozen=True)
class PlanRequest:
    options: BuildOptions
    profile: TargetProfile
    flavour: Flavour
    header_text: str
    tree: TreeFacts | None = None
    tensorflow: InstalledTensorFlow | None = None
    hot_files: tuple[str, ...] = ()
    """Tree sources registering the model's hot kernels (from the build's kernel index, see
    :func:`~tfbuild.pipeline.declarations.size_profiles.hot_kernel_files`), for size profiles that
    compile them apart."""
    kernel_files: tuple[str, ...] = ()
    """Tree sources registering any of the models' kernels (from the build's kernel index), for
    a lite build, which leaves out kernel sources that need the full runtime only when no needed
    kernel is in them."""
    mobile_types: MobileTypes | None = None
    """The type set of a mobile build (:mod:`tfbuild.tree.mobile_types`); None: the full set."""
    selection: PerFileSelection | None = None
    """Each source's own selection (``--per-file-selection``); None: the one header for all."""

    @property
    def header_path(self) -> Path:
        """Where the header is written on the host (and kept with the artifacts)."""
        return header_path(self.options.output_dir)


@dataclass(frozen=True)
class BuildLayout:
    """Paths as the build's commands see them, and the mounts that make them so."""

    out: PurePosixPath
    header_dir: PurePosixPath
    scratch: PurePosixPath
    src: PurePosixPath | None = None
    ndk: PurePosixPath | None = None
    sdk: PurePosixPath | None = None
    tensorflow: PurePosixPath | None = None
    ccache: PurePosixPath | None = None
    bazel_root: PurePosixPath | None = None
    op_sources: tuple[PurePosixPath, ...] = ()
    mounts: tuple[Mount, ...] = ()
    in_container: bool = True

    @property
    def header(self) -> PurePosixPath:
        return self.header_dir / HEADER_NAME

    @property
    def tree_src(self) -> PurePosixPath:
        """``src``, for the flavours that build a TensorFlow tree (their layouts always have one)."""
        assert self.src is not None, "the layout of a tree flavour has the tree"
        return self.src


TREE_HEADER = f"tensorflow/core/framework/{HEADER_NAME}"
"""Where TensorFlow's build looks for the header (``selective_registration.h`` includes it by a
quoted name, so the including file's directory is searched first)."""


def header_file(request: PlanRequest) -> GeneratedFile:
    return GeneratedFile(path=request.header_path, content=request.header_text)


def tree_header_file(request: PlanRequest) -> GeneratedFile:
    """The header at :data:`TREE_HEADER` in the tree. Every flavour writes it, so a copy left by
    an earlier build of another app can never be picked up ahead of ``-I <header dir>``."""
    assert request.tree is not None
    content = request.selection.dispatcher() if request.selection is not None else request.header_text
    return GeneratedFile(path=request.tree.root / TREE_HEADER, content=content)


def container_layout(
    request: PlanRequest,
    *,
    ccache_volume: bool = False,
    bazel_volume: bool = False,
    mount_tensorflow: bool = False,
    header_in_tree: bool = False,
    android_sdk: bool = False,
    mount_op_sources: bool = False,
) -> BuildLayout:
    """The layout inside a toolchain container, with the mounts that produce it. The planner
    says what its build needs: cache volumes, the installed TensorFlow, the Android SDK, the
    app's op sources; ``header_in_tree`` when the build reads the header from inside the tree
    (Bazel), which then needs no mount of its own.

    Cache volumes are named so later builds find them: ccache per target (its cache is keyed by
    preprocessed content, so sharing across trees is safe and reuses more), Bazel's output root
    per target and tree (Bazel keys its output base by the workspace path, always /src here).
    """
    options, tree = request.options, request.tree
    mounts: list[Mount] = []
    if tree is not None:
        mounts.append(Mount(target=CONTAINER_SRC, source=tree.root))
    mounts.append(Mount(target=CONTAINER_OUT, source=options.output_dir))
    if not header_in_tree:
        mounts.append(Mount(target=CONTAINER_HEADER, source=request.header_path.parent, read_only=True))
    ndk, sdk = _android_dirs(request, android_sdk=android_sdk)
    if ndk is not None:
        mounts.append(Mount(target=CONTAINER_NDK, source=ndk, read_only=True))
    if sdk is not None:
        mounts.append(Mount(target=CONTAINER_SDK, source=sdk, read_only=True))
    tensorflow = request.tensorflow.package_dir if mount_tensorflow and request.tensorflow is not None else None
    if tensorflow is not None:
        mounts.append(Mount(target=CONTAINER_TENSORFLOW, source=tensorflow, read_only=True))
    op_sources = _mounted_op_sources(options.op_sources, mounts) if mount_op_sources else ()
    ccache = CONTAINER_CCACHE if ccache_volume else None
    if ccache is not None:
        mounts.append(Mount(target=CONTAINER_CCACHE, volume=f"{options.cache_prefix}-ccache-{request.profile.name}"))
    bazel_root = CONTAINER_BAZEL if bazel_volume and tree is not None else None
    if bazel_root is not None and tree is not None:
        volume = f"{options.cache_prefix}-bazel-{request.profile.name}-{tree.tree_id}"
        mounts.append(Mount(target=CONTAINER_BAZEL, volume=volume))
    return BuildLayout(
        out=CONTAINER_OUT,
        header_dir=CONTAINER_HEADER,
        scratch=CONTAINER_SCRATCH,
        src=CONTAINER_SRC if tree is not None else None,
        ndk=CONTAINER_NDK if ndk is not None else None,
        sdk=CONTAINER_SDK if sdk is not None else None,
        tensorflow=CONTAINER_TENSORFLOW if tensorflow is not None else None,
        ccache=ccache,
        bazel_root=bazel_root,
        op_sources=op_sources,
        mounts=tuple(mounts),
        in_container=True,
    )


def _android_dirs(request: PlanRequest, *, android_sdk: bool) -> tuple[Path | None, Path | None]:
    """The NDK (when the target needs one) and the SDK (when the build does), checked to exist."""
    profile, android = request.profile, request.options.android
    ndk = require_path(android.ndk, "--ndk", profile, origin=android.ndk_origin) if "ndk" in profile.requires else None
    sdk = require_path(android.sdk, "--sdk", profile, origin=android.sdk_origin) if android_sdk else None
    return ndk, sdk


def _mounted_op_sources(sources: tuple[Path, ...], mounts: list[Mount]) -> tuple[PurePosixPath, ...]:
    """The app's op sources as the container sees them: each directory holding one mounted
    read-only under ``/tfbuild/ops/<n>`` (appended to ``mounts``)."""
    directories = sorted({source.parent for source in sources})
    for index, directory in enumerate(directories):
        mounts.append(Mount(target=CONTAINER_OPS / str(index), source=directory, read_only=True))
    return tuple(CONTAINER_OPS / str(directories.index(source.parent)) / source.name for source in sources)


def local_layout(request: PlanRequest, *, android_sdk: bool = False) -> BuildLayout:
    """``--local``: the host's own paths, no mounts, no cache volumes (``android_sdk``: the build
    needs the Android SDK)."""
    options, tree = request.options, request.tree
    ndk, sdk = _android_dirs(request, android_sdk=android_sdk)
    return BuildLayout(
        out=_posix(options.output_dir),
        header_dir=_posix(request.header_path.parent),
        scratch=_posix(options.output_dir / ".build"),
        src=_posix(tree.root) if tree is not None else None,
        ndk=_posix(ndk) if ndk is not None else None,
        sdk=_posix(sdk) if sdk is not None else None,
        tensorflow=_posix(request.tensorflow.package_dir) if request.tensorflow is not None else None,
        op_sources=tuple(_posix(source) for source in options.op_sources),
        in_container=False,
    )


def _posix(path: Path) -> PurePosixPath:
    return PurePosixPath(path.as_posix())


def require_path(path: Path | None, flag: str, profile: TargetProfile, *, origin: str | None = None) -> Path:
    """The SDK or NDK directory (``flag`` ``--sdk`` or ``--ndk``) ``profile`` needs; ``origin``
    says where the path was given (``$ANDROID_NDK_HOME``), for the message."""
    what, variable = ("NDK", "ANDROID_NDK_HOME") if flag == "--ndk" else ("SDK", "ANDROID_HOME")
    if path is None:
        raise ConfigError(
            f"target {profile.name} needs the Android {what} ({flag})",
            hint=f"pass {flag} DIR, set [android] {flag[2:]} in tfbuild.toml, or set {variable}",
        )
    if not path.is_dir():
        raise ConfigError(
            f"{path}: Android {what} directory not found (from {origin or flag})",
            hint=f"pass {flag} with an existing directory",
        )
    return path


def toolchain_image(
    request: PlanRequest, dockerfile: str, build_args: Mapping[str, str] | None = None
) -> ImageSpec:
    """The image a container build runs in, named exactly as ``tfbuild toolchain build`` names
    it (same function), so a prepared image is found and reused. Its base is ``--base-image``
    when given, else the Debian suite the TensorFlow being built wants
    (:func:`~tfbuild.toolchain.tf_versions.choose_debian_suite`); the plan says which and why."""
    from tfbuild.toolchain.base_image import default_base_tag
    from tfbuild.toolchain.images import toolchain_spec  # imports the docker SDK: only when planning
    from tfbuild.toolchain.tf_versions import choose_debian_suite, version_table

    if request.options.base_image is not None:
        base, because = request.options.base_image, "--base-image (or build.base_image)"
    else:
        if request.tree is not None:
            version, stated = request.tree.version, request.tree.ci_build_os
        else:
            # An op library compiles against the installed wheel: that release's toolchain.
            assert request.tensorflow is not None
            version, stated = parse_version(request.tensorflow.version), None
        suite = choose_debian_suite(version, stated, version_table())
        base, because = default_base_tag(suite.value), suite.source
    spec = toolchain_spec(dockerfile.removesuffix(".Dockerfile"), base=base, build_args=dict(build_args or {}))
    return dataclasses.replace(spec, base_source=because)
