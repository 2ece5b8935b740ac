"""The Bazel flavour: TensorFlow's own Bazel build, made selective.

As TensorFlow's mobile docs describe it: the header goes where ``selective_registration.h``
includes it from (``tensorflow/core/framework/ops_to_register.h``) and the build gets
``--copt=-DSELECTIVE_REGISTRATION --copt=-DSUPPORT_SELECTIVE_REGISTRATION``. Android targets
build ``libtensorflow_inference.so`` and the AAR from the package the tree's TensorFlow version
keeps them in, with ``--config=android_arm64``-style configs when the tree's bazelrc defines
them, or the flags those configs stand for when it does not (older trees only get them from an
interactive ./configure). ``./configure`` runs without questions (its answers come from
``toolchains/tensorflow/versions.toml``), the Android SDK/NDK block is rendered into the
WORKSPACE (the NDK checked against the majors the tree's configure.py lists, the target's ABI
and the NDK API level, before anything is written), and Bazel keeps its output root in a named
cache volume. Outputs under ``bazel-bin`` are symlinks into that volume, so a last step copies
them (dereferenced) into the output dir.

A size profile (:mod:`tfbuild.pipeline.declarations.size_profiles`) becomes ``--per_file_copt=.*@<its
flags>``, then ``--per_file_copt=<hot kernel sources>@-O2``, and ``--linkopt``. Bazel puts a
compile's flags in this order: toolchain (``-c opt``: ``-O2``), ``--copt``, the rule's
``copts``, then each matching ``--per_file_copt`` in command-line order. A plain ``--copt=-Os``
would lose to TensorFlow's own ``copts`` on Android (``tf_copts()`` adds ``-O2`` there), so the
profile's flags ride on ``--per_file_copt`` and the last ``-O`` of a hot kernel's compile is the
hot one. Coming after ``--copt``, they also win over ``--extra-cflag``. Host tools (protoc)
keep ``-c opt``; real Bazel 0.26.1 shows the order in ``tests/test_size_profiles.py``.

With ``--vendor-dir`` (what ``tfbuild vendor`` laid out, :mod:`tfbuild.tree.vendor`) the build
gets ``--repository_cache`` and one ``--override_repository`` per repository laid out from a
mirror, so Bazel opens no URL; in a container the directory is mounted at ``/vendor`` and the
container has no network at all (unless a fleet's cache needs the host's).

A fleet's shared cache (:mod:`tfbuild.pipeline.caches.remote`) is Bazel's HTTP or gRPC remote cache; the
build step's output is kept apart (``bazel-build.log``) for its process summary, the hit counts
the manifest records.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.pipeline.caches.remote import BAZEL_STEP_LOG, bazel_cache_argv, bazel_keeps_disk_cache, bazel_remote
from tfbuild.pipeline.declarations.options import BuildOptions
from tfbuild.pipeline.declarations.size_profiles import apply_size_profile
from tfbuild.pipeline.flavours.layout import (
    BuildLayout,
    PlanRequest,
    Preparation,
    container_layout,
    header_file,
    local_layout,
    refuse_per_file_selection,
    toolchain_image,
    tree_header_file,
)
from tfbuild.pipeline.flavours.workspace import apply_block, render_android_block, resolve_android_repositories
from tfbuild.pipeline.planning.notes import Note
from tfbuild.pipeline.planning.plan import AppliedSizeProfile, Artifact, BuildPlan, GeneratedFile, Mount, Step
from tfbuild.pipeline.planning.protobuf_runtime import LITE, refuse_for_bazel
from tfbuild.toolchain.targets import BazelProfile, BazelTarget, TargetProfile
from tfbuild.toolchain.tf_versions import TreeRequirements, tree_requirements
from tfbuild.tree.facts import TreeFacts
from tfbuild.tree.vendor import read_record

ANDROID_INFERENCE = "android_inference"
SELECTIVE_COPTS = ("--copt=-DSELECTIVE_REGISTRATION", "--copt=-DSUPPORT_SELECTIVE_REGISTRATION")
CONTAINER_VENDOR = PurePosixPath("/vendor")
_REGEX_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")


def check(options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None) -> None:
    del profile, tree
    refuse_per_file_selection(options, Flavour.BAZEL)
    if options.protobuf_runtime == LITE:
        refuse_for_bazel()


def prepare(options: BuildOptions) -> Preparation:
    """Nothing to prepare before the analysis: the tree is the build's only input."""
    del options
    return Preparation()


def plan(request: PlanRequest) -> BuildPlan:
    profile = request.profile.bazel
    tree = request.tree
    assert profile is not None
    assert tree is not None
    requirements = tree_requirements(tree)
    in_container = not request.options.local
    sdk = profile.needs_android_workspace  # the header is read from inside the tree: no mount of its own
    layout = (container_layout(request, bazel_volume=True, header_in_tree=True, android_sdk=sdk) if in_container
              else local_layout(request, android_sdk=sdk))
    src = layout.tree_src
    image = None
    if in_container:
        image = toolchain_image(request, profile.dockerfile, {"BAZEL_VERSION": requirements.bazel().value})
    targets = _targets(request, profile)
    labels = tuple(_label(target, requirements.android_inference_package().value) for target in targets)
    # A comma separates per_file_copt's patterns: a source named with one cannot be given apart.
    hot = tuple(source for source in request.hot_files if "," not in source)
    size = apply_size_profile(request.options.size_profile, linker=profile.linker, hot_files=hot)
    bazel_version = _version_tuple(requirements.bazel().value)
    cache = request.options.remote.remote_cache
    remote = bazel_remote(request.options.remote, bazel_version=bazel_version, in_container=in_container)
    vendor_flags, vendor_mounts, vendor_notes = _vendor(request, in_container=in_container)
    generated = [header_file(request), tree_header_file(request)]
    if profile.needs_android_workspace:
        generated.append(_workspace_file(request, requirements, layout))
    build = Step(
        f"bazel build ({request.profile.name})",
        bazel_cache_argv(
            _bazel_argv(request, tree, profile, layout, (*vendor_flags, *labels), size,
                        disk_cache=bazel_keeps_disk_cache(cache, bazel_version)),
            cache, bazel_version,
        ),
        src,
        log=request.options.output_dir / BAZEL_STEP_LOG,
    )
    collect, artifacts = _collect_steps(targets, labels, layout) if not request.options.analysis_only else ((), ())
    steps = (_configure_step(requirements, src), build, *collect)
    return BuildPlan(
        target=request.profile.name,
        flavour=Flavour.BAZEL,
        image=image,
        mounts=(*layout.mounts, *vendor_mounts),
        steps=steps,
        generated_files=tuple(generated),
        artifacts=artifacts,
        output_dir=request.options.output_dir,
        env={},
        size_profile=size,
        notes=(*((Note("mobile-types", request.mobile_types.description()),) if request.mobile_types else ()),
               *remote.notes, *vendor_notes),
        mobile_types=request.mobile_types,
        android_sdk=request.options.android.sdk if profile.needs_android_workspace else None,
        secret_env=remote.secret_env,
        network=remote.network if remote.network or not vendor_flags or not in_container else "none",
    )


def _vendor(request: PlanRequest, *, in_container: bool) -> tuple[tuple[str, ...], tuple[Mount, ...], tuple[Note, ...]]:
    """Bazel's flags for the vendor directory, its mount, and the plan's note on it."""
    directory = request.options.vendor_dir
    if directory is None:
        return (), (), ()
    record = read_record(directory)
    seen = CONTAINER_VENDOR if in_container else PurePosixPath(directory.resolve().as_posix())
    mounts = (Mount(target=CONTAINER_VENDOR, source=directory.resolve()),) if in_container else ()
    text = (f"{directory}: {len(record.cached)} repositories from the repository cache, {len(record.overrides)} "
            f"overridden{', ' + str(len(record.missing)) + ' without a mirror' if record.missing else ''}"
            f"{'; the container has no network' if in_container and not request.options.remote.remote_cache else ''}")
    return record.bazel_flags(seen), mounts, (Note("offline", text),)


def _configure_step(requirements: TreeRequirements, src: PurePosixPath) -> Step:
    """TensorFlow's ``configure.py``, with the answers the tree's release wants; once per tree."""
    return Step("configure", ("python3", "configure.py"), src, env=dict(requirements.table.configure_env),
                skip_if_exists=src / ".tf_configure.bazelrc")


def _targets(request: PlanRequest, profile: BazelProfile) -> tuple[BazelTarget, ...]:
    """The profile's targets; with ``--java-api none`` not the AAR, whose Java classes are the API
    (and whose analysis needs Bazel's Java tools, which Bazel downloads)."""
    if request.options.android.java_api != "none":
        return profile.targets
    return tuple(target for target in profile.targets if target.kind != "aar")


def _collect_steps(
    targets: tuple[BazelTarget, ...], labels: tuple[str, ...], layout: BuildLayout
) -> tuple[tuple[Step, ...], tuple[Artifact, ...]]:
    """A copy out of ``bazel-bin`` for each of the targets, and the artifacts they give."""
    steps, artifacts = [], []
    for target, label in zip(targets, labels, strict=True):
        collected = layout.out / target.name
        steps.append(Step(f"collect {target.name}", ("cp", "-fL", str(bazel_output(layout, label)), str(collected)),
                          layout.tree_src))
        artifacts.append(Artifact(path=collected, name=target.name, kind=target.kind))
    return tuple(steps), tuple(artifacts)


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def _bazel_argv(
    request: PlanRequest,
    tree: TreeFacts,
    profile: BazelProfile,
    layout: BuildLayout,
    labels: tuple[str, ...],
    size: AppliedSizeProfile,
    *,
    disk_cache: bool,
) -> tuple[str, ...]:
    """The ``bazel build`` command; ``disk_cache`` False leaves out ``--disk_cache`` (a Bazel
    that would use it instead of the fleet's gRPC cache,
    :func:`~tfbuild.pipeline.caches.remote.bazel_keeps_disk_cache`)."""
    options = request.options
    startup = (f"--output_user_root={layout.bazel_root}",) if layout.bazel_root is not None else ()
    # The disk cache keeps every app's outputs (the output base keeps only the last build's),
    # so switching back to an app already built on this tree is mostly cache hits.
    disk: tuple[str, ...] = ()
    if layout.bazel_root is not None and disk_cache:
        disk = (f"--disk_cache={layout.bazel_root}/disk-cache",)
    config = (f"--config={profile.config}",) if profile.config in tree.bazelrc_configs else profile.config_flags
    copts = tuple(f"--copt={flag}" for flag in options.extra_cflags)
    if request.mobile_types is not None:
        # TensorFlow's Android rules read the type set from --define ANDROID_TYPES (cwise_ops_common.h).
        copts = (f"--define=ANDROID_TYPES={request.mobile_types.define}", f"--copt={request.mobile_types.flag}", *copts)
    analysis = ("--nobuild",) if options.analysis_only else ()
    return (
        "bazel", *startup, "build", *analysis, "-c", "opt", f"--jobs={options.jobs}",
        *disk, *config, *SELECTIVE_COPTS, *copts, *_size_options(size), *labels,
    )


def _size_options(size: AppliedSizeProfile) -> tuple[str, ...]:
    """The size profile as Bazel options: per-file copts for every source, then for the hot
    kernel sources (their paths as regular expressions), then the link options."""
    options = []
    if size.cflags:
        options.append(f"--per_file_copt=.*@{','.join(size.cflags)}")
    if size.hot_files:
        patterns = ",".join(_REGEX_SPECIAL.sub(r"\\\1", source) for source in size.hot_files)
        options.append(f"--per_file_copt={patterns}@{','.join(size.hot_cflags)}")
    options += [f"--linkopt={flag}" for flag in size.ldflags]
    return tuple(options)


def _label(target: BazelTarget, android_package: str) -> str:
    package = android_package if target.package == ANDROID_INFERENCE else target.package
    return f"{package}:{target.name}"


def _workspace_file(request: PlanRequest, requirements: TreeRequirements, layout: BuildLayout) -> GeneratedFile:
    """The tree's WORKSPACE with the SDK/NDK block, naming them where the build sees them."""
    repositories = resolve_android_repositories(
        request.options.android,
        requirements,
        sdk_path_in_build=str(layout.sdk),
        ndk_path_in_build=str(layout.ndk),
        target=request.profile,
    )
    lowest_64bit = requirements.table.min_ndk_api_level_64bit
    if request.profile.is_64bit and repositories.ndk_api_level < lowest_64bit:
        raise ConfigError(
            f"NDK API level {repositories.ndk_api_level} cannot build {request.profile.name}",
            hint=f"64-bit Android targets need --ndk-api-level {lowest_64bit} or higher",
        )
    path = Path(requirements.tree.root) / "WORKSPACE"
    if not path.is_file():
        raise ConfigError(f"{path}: not found", hint="is --source a TensorFlow checkout's top directory?")
    block = render_android_block(repositories, requirements)
    return GeneratedFile(path=path, content=apply_block(path.read_text(encoding="utf-8"), block, where=str(path)))


def bazel_output(layout: BuildLayout, label: str) -> PurePosixPath:
    return layout.tree_src / "bazel-bin" / label.removeprefix("//").replace(":", "/")
