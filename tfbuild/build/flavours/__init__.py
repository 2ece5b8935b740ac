"""Build plans, one module per flavour: the contrib Makefile, Bazel, and an app's op library.

:func:`plan_build` picks the flavour's planner and hands it a :class:`PlanRequest` (options,
target profile, header text, tree facts) and a :class:`BuildLayout`: where the tree, output,
header, SDK/NDK, TensorFlow wheel and caches are *as the build sees them*. In a toolchain
container those are fixed mount points (``/src``, ``/out``, ``/tfbuild/header`` ...) and the
layout lists the mounts; for ``--local`` builds they are the host paths and there are no
mounts. Planners only compute: nothing here runs a command or touches Docker, which is what
lets the Android and iOS plans be tested on a machine with neither an NDK nor Xcode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.build.options import BuildOptions
from tfbuild.build.plan import BuildPlan, GeneratedFile, ImageSpec, Mount
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.toolchain.targets import TargetProfile, get_target
from tfbuild.tree.facts import TreeFacts

HEADER_NAME = "ops_to_register.h"
HEADER_SUBDIR = "header"

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


@dataclass(frozen=True)
class InstalledTensorFlow:
    """The TensorFlow wheel an op library compiles against: its package directory (headers
    under ``include/``, ``libtensorflow_framework``) and ``tf.sysconfig``'s flags."""

    package_dir: Path
    version: str
    compile_flags: tuple[str, ...]
    link_flags: tuple[str, ...]
    git_version: str | None = None  # tf.version.GIT_VERSION, e.g. "v2.21.0-rc1-5-ga481b10260d"


@dataclass(frozen=True)
class PlanRequest:
    options: BuildOptions
    profile: TargetProfile
    flavour: str
    header_text: str
    tree: TreeFacts | None = None
    tensorflow: InstalledTensorFlow | None = None

    @property
    def header_path(self) -> Path:
        """Where the header is written on the host (and kept with the artifacts)."""
        return self.options.output_dir / HEADER_SUBDIR / HEADER_NAME


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


def plan_build(
    options: BuildOptions,
    *,
    header_text: str,
    tree: TreeFacts | None = None,
    tensorflow: InstalledTensorFlow | None = None,
    flavour: str | None = None,
) -> BuildPlan:
    """The plan for ``options``: which flavour (``flavour``, else :func:`choose_flavour`), then
    that flavour's planner. ``tree`` is required for the Makefile and Bazel flavours,
    ``tensorflow`` for op libraries."""
    profile = get_target(options.target)
    flavour = flavour or choose_flavour(options, profile, tree)
    request = PlanRequest(options, profile, flavour, header_text, tree, tensorflow)
    if flavour == "makefile":
        from tfbuild.build.flavours import makefile as planner
    elif flavour == "bazel":
        from tfbuild.build.flavours import bazel as planner
    else:
        from tfbuild.build.flavours import ops_library as planner
    return planner.plan(request)


def choose_flavour(options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None) -> str:
    """The flavour to build with: the one asked for, if the target and inputs allow it; else an
    op library when there is no tree, the contrib Makefile when the tree has one, else Bazel."""
    if options.flavour is not None:
        flavour = options.flavour
        if flavour not in profile.flavours:
            raise ConfigError(
                f"target {profile.name} has no {flavour} flavour",
                hint=f"{profile.name} builds with: {', '.join(profile.flavours)} (toolchains/{profile.name}.toml)",
            )
    elif tree is None:
        flavour = "ops-library"
    elif tree.has_makefile and profile.makefile is not None:
        flavour = "makefile"
    elif profile.bazel is not None:
        flavour = "bazel"
    else:
        raise SourceTreeError(
            f"{tree.root}: TensorFlow {tree.version} has no contrib Makefile, and {profile.name} has no Bazel build",
            hint="use a TensorFlow 1.x or 2.0 tree for this target",
        )
    if flavour in ("makefile", "bazel") and tree is None:
        raise ConfigError(f"the {flavour} flavour builds a TensorFlow source tree", hint="pass --source DIR")
    if flavour == "makefile" and not tree.has_makefile:
        raise SourceTreeError(
            f"{tree.root}: TensorFlow {tree.version} has no tensorflow/contrib/makefile (removed in 2.1)",
            hint="build it with --flavour bazel",
        )
    if flavour == "ops-library":
        if profile.ops_library is None:
            raise ConfigError(f"target {profile.name} has no op-library flavour")
        if not options.op_sources:
            raise ConfigError(
                "nothing to build: no TensorFlow tree and no op sources",
                hint="pass --source DIR to build TensorFlow, or --op-source FILE.cc for an op library",
            )
    return flavour


TREE_HEADER = f"tensorflow/core/framework/{HEADER_NAME}"
"""Where TensorFlow's build looks for the header (``selective_registration.h`` includes it by a
quoted name, so the including file's directory is searched first)."""


def header_file(request: PlanRequest) -> GeneratedFile:
    return GeneratedFile(path=request.header_path, content=request.header_text)


def tree_header_file(request: PlanRequest) -> GeneratedFile:
    """The header at :data:`TREE_HEADER` in the tree. Every flavour writes it, so a copy left by
    an earlier build of another app can never be picked up ahead of ``-I <header dir>``."""
    assert request.tree is not None
    return GeneratedFile(path=request.tree.root / TREE_HEADER, content=request.header_text)


def container_layout(
    request: PlanRequest,
    *,
    ccache_volume: bool = False,
    bazel_volume: bool = False,
    mount_tensorflow: bool = False,
) -> BuildLayout:
    """The layout inside a toolchain container, with the mounts that produce it.

    Cache volumes are named so later builds find them: ccache per target (its cache is keyed by
    preprocessed content, so sharing across trees is safe and reuses more), Bazel's output root
    per target and tree (Bazel keys its output base by the workspace path, always /src here).
    """
    options, profile, tree = request.options, request.profile, request.tree
    mounts = []
    src = None
    if tree is not None:
        src = CONTAINER_SRC
        mounts.append(Mount(target=CONTAINER_SRC, source=tree.root))
    mounts.append(Mount(target=CONTAINER_OUT, source=options.output_dir))
    if request.flavour != "bazel":  # Bazel reads the header from inside the tree
        mounts.append(Mount(target=CONTAINER_HEADER, source=request.header_path.parent, read_only=True))
    ndk = sdk = None
    if "ndk" in profile.requires:
        ndk = CONTAINER_NDK
        mounts.append(Mount(target=CONTAINER_NDK, source=require_path(options.android.ndk, "--ndk", profile), read_only=True))
    if request.flavour == "bazel" and profile.bazel is not None and profile.bazel.needs_android_workspace:
        sdk = CONTAINER_SDK
        mounts.append(Mount(target=CONTAINER_SDK, source=require_path(options.android.sdk, "--sdk", profile), read_only=True))
    tensorflow = None
    if mount_tensorflow and request.tensorflow is not None:
        tensorflow = CONTAINER_TENSORFLOW
        mounts.append(Mount(target=CONTAINER_TENSORFLOW, source=request.tensorflow.package_dir, read_only=True))
    op_sources = []
    if request.flavour == "ops-library":
        directories = sorted({source.parent for source in options.op_sources})
        for index, directory in enumerate(directories):
            mounts.append(Mount(target=CONTAINER_OPS / str(index), source=directory, read_only=True))
        op_sources = [CONTAINER_OPS / str(directories.index(source.parent)) / source.name for source in options.op_sources]
    ccache = bazel_root = None
    if ccache_volume:
        ccache = CONTAINER_CCACHE
        mounts.append(Mount(target=CONTAINER_CCACHE, volume=f"{options.cache_prefix}-ccache-{profile.name}"))
    if bazel_volume and tree is not None:
        bazel_root = CONTAINER_BAZEL
        mounts.append(Mount(target=CONTAINER_BAZEL, volume=f"{options.cache_prefix}-bazel-{profile.name}-{tree.tree_id}"))
    return BuildLayout(
        out=CONTAINER_OUT,
        header_dir=CONTAINER_HEADER,
        scratch=CONTAINER_SCRATCH,
        src=src,
        ndk=ndk,
        sdk=sdk,
        tensorflow=tensorflow,
        ccache=ccache,
        bazel_root=bazel_root,
        op_sources=tuple(op_sources),
        mounts=tuple(mounts),
        in_container=True,
    )


def local_layout(request: PlanRequest) -> BuildLayout:
    """``--local``: the host's own paths, no mounts, no cache volumes."""
    options, profile, tree = request.options, request.profile, request.tree
    posix = lambda path: PurePosixPath(Path(path).as_posix())  # noqa: E731
    ndk = posix(require_path(options.android.ndk, "--ndk", profile)) if "ndk" in profile.requires else None
    needs_sdk = request.flavour == "bazel" and profile.bazel is not None and profile.bazel.needs_android_workspace
    return BuildLayout(
        out=posix(options.output_dir),
        header_dir=posix(request.header_path.parent),
        scratch=posix(options.output_dir / ".build"),
        src=posix(tree.root) if tree is not None else None,
        ndk=ndk,
        sdk=posix(require_path(options.android.sdk, "--sdk", profile)) if needs_sdk else None,
        tensorflow=posix(request.tensorflow.package_dir) if request.tensorflow is not None else None,
        op_sources=tuple(posix(source) for source in options.op_sources),
        in_container=False,
    )


def require_path(path: Path | None, flag: str, profile: TargetProfile) -> Path:
    if path is None:
        raise ConfigError(
            f"target {profile.name} needs the Android {'NDK' if flag == '--ndk' else 'SDK'} ({flag})",
            hint=f"pass {flag} DIR or set [android] {flag[2:]} in tfbuild.toml",
        )
    if not path.is_dir():
        raise ConfigError(f"{path}: directory not found ({flag})", hint="pass an existing directory")
    return path


def toolchain_image(options: BuildOptions, dockerfile: str, build_args: Mapping[str, str] | None = None) -> ImageSpec:
    """The image a container build runs in, named exactly as ``tfbuild toolchain build`` names
    it (same function), so a prepared image is found and reused."""
    from tfbuild.toolchain.images import toolchain_spec  # imports the docker SDK: only when planning

    return toolchain_spec(
        dockerfile.removesuffix(".Dockerfile"), base=options.base_image, build_args=dict(build_args or {})
    )
