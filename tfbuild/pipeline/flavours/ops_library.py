"""The op-library flavour: an app's own custom-op sources compiled selectively for a target.

No TensorFlow tree is built: the sources compile against the headers of the installed TensorFlow
wheel (mounted read-only at ``/opt/tensorflow``), with ``ops_to_register.h`` selecting which of
their ops and kernels register. Linux x86_64 gets a shared object that ``tf.load_op_library``
loads; cross targets get a static archive to link (whole) into the app. Before the models are
analysed, :func:`prepare` plans the same sources' plain build for this machine, which the build
runs first and TensorFlow loads, so that the analysis finds the library's kernels. The compile and
archive/link commands come from :mod:`tfbuild.pipeline.op_library.compile_plan`, the same planner ``tfbuild`` uses to
build op libraries on the host, with the target's compiler and flags from its profile.

A size profile (:mod:`tfbuild.pipeline.declarations.size_profiles`) adds its compile flags after the target's
(so its ``-O`` level replaces the planner's ``-O2``) and before ``--extra-cflag``, and its link
flags to a shared library's link. A static archive is not linked: the plan notes the flags the
app's link should add. An app's own sources are not in a tree's kernel index, so no file is
treated as hot: ``small`` compiles all of them with ``-Os``.

A shared library linked with a profile's flags also gets an export file
(:data:`~tfbuild.pipeline.outputs.exports.OP_LIBRARY`, written to the output directory before the build):
it exports nothing, since TensorFlow finds its kernels through the registrations its static
initializers make, so ``--gc-sections`` can drop every function those registrations do not reach.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tfbuild.errors import ConfigError, ToolchainError
from tfbuild.flavour import Flavour
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
)
from tfbuild.pipeline.op_library.compile_plan import (
    InstalledTensorFlow,
    OpsLibrarySpec,
    installed_tensorflow,
    plan_ops_library,
)
from tfbuild.pipeline.outputs.exports import OP_LIBRARY, ExportFile, render_export_file
from tfbuild.pipeline.planning.plan import AppliedSizeProfile, Artifact, BuildPlan, GeneratedFile
from tfbuild.toolchain.targets import OpsLibraryProfile, TargetProfile, fill
from tfbuild.tree.facts import TreeFacts

ANALYSIS_SUBDIR = ".analysis"
"""Where, in the output directory, the op library's plain build for this machine goes."""


def host_library_path(output_dir: Path, library_name: str) -> Path:
    """Where a build of the op library ``lib<library_name>`` keeps its plain (non-selective)
    build for this machine: the analysis loads it, ``tfbuild verify`` runs it as the reference."""
    return output_dir / ANALYSIS_SUBDIR / f"lib{library_name}_host.so"


def check(options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None) -> None:
    """An op library needs its target's op-library toolchain and the app's sources."""
    del tree
    refuse_per_file_selection(options, Flavour.OPS_LIBRARY)
    if profile.ops_library is None:
        raise ConfigError(f"target {profile.name} has no op-library flavour")
    if not options.op_sources:
        raise ConfigError(
            "nothing to build: no TensorFlow tree and no op sources",
            hint="pass --source DIR to build TensorFlow, or --op-source FILE.cc for an op library",
        )


def prepare(options: BuildOptions) -> Preparation:
    """The installed TensorFlow, and the library's plain build for this machine: a custom op's
    kernel classes exist only in its own library, so TensorFlow must load it for the analysis."""
    spec = OpsLibrarySpec.for_installed_tensorflow(
        options.op_sources,
        host_library_path(options.output_dir, options.ops_library_name),
        build_dir=options.output_dir / ANALYSIS_SUBDIR / "objs",
    )
    return Preparation(tensorflow=installed_tensorflow(), host_library=plan_ops_library(spec))


def plan(request: PlanRequest) -> BuildPlan:
    profile = request.profile.ops_library
    assert profile is not None
    tensorflow = request.tensorflow
    if tensorflow is None:
        raise ToolchainError(
            "an op library compiles against the installed TensorFlow's headers, and none was found",
            hint="install the tensorflow wheel in the environment that runs tfbuild",
        )
    dockerfile = None if request.options.local else profile.dockerfile
    if dockerfile is not None:
        layout = container_layout(request, mount_tensorflow=True, mount_op_sources=True)
        image = toolchain_image(request, dockerfile)
    else:
        layout = local_layout(request)
        image = None
    size = apply_size_profile(request.options.size_profile, linker=profile.linker, links=profile.kind == "shared")
    exports = _export_file(request, profile, size)
    export_flags = (exports.link_flag(layout.out / exports.file_name),) if exports is not None else ()
    spec = _spec(request, profile, tensorflow, layout, size, export_flags)
    library = plan_ops_library(spec)
    name = spec.output.name
    generated = [header_file(request)]
    if exports is not None:
        generated.append(GeneratedFile(request.options.output_dir / exports.file_name, exports.text))
    return BuildPlan(
        target=request.profile.name,
        flavour=Flavour.OPS_LIBRARY,
        image=image,
        mounts=layout.mounts,
        steps=library.build_steps(layout.out),
        generated_files=tuple(generated),
        artifacts=(
            Artifact(
                path=PurePosixPath(spec.output.as_posix()),
                name=name,
                kind="shared-lib" if profile.kind == "shared" else "static-lib",
            ),
        ),
        output_dir=request.options.output_dir,
        env={},
        size_profile=size,
    )


def _export_file(request: PlanRequest, profile: OpsLibraryProfile, size: AppliedSizeProfile) -> ExportFile | None:
    """The op library's export file (it exports nothing), when a shared library is linked with
    the size profile's flags: without them nothing would collect what the list makes local."""
    if profile.kind != "shared" or not size.ldflags:
        return None
    return render_export_file(OP_LIBRARY, profile.linker, stem=f"lib{request.options.ops_library_name}")


def _spec(
    request: PlanRequest,
    profile: OpsLibraryProfile,
    tensorflow: InstalledTensorFlow,
    layout: BuildLayout,
    size: AppliedSizeProfile,
    export_flags: tuple[str, ...],
) -> OpsLibrarySpec:
    options = request.options
    values = {
        "ndk": str(layout.ndk) if layout.ndk is not None else "",
        "ndk_api_level": str(options.android.ndk_api_level or 21),
        "makefile_dir": "",
    }
    suffix = ".so" if profile.kind == "shared" else ".a"
    return OpsLibrarySpec(
        sources=tuple(Path(source.as_posix()) for source in layout.op_sources),
        output=Path((layout.out / f"lib{options.ops_library_name}{suffix}").as_posix()),
        kind=profile.kind,
        compiler=fill(profile.compiler, **values),
        archiver=fill(profile.archiver, **values),
        extra_cflags=(*profile.cflags, *size.cflags, *options.extra_cflags),
        extra_ldflags=(*export_flags, *size.ldflags),
        selective_header=Path(layout.header.as_posix()),
        tf_compile_flags=_relocate(tensorflow.compile_flags, tensorflow.package_dir, layout.tensorflow),
        tf_link_flags=_relocate(tensorflow.link_flags, tensorflow.package_dir, layout.tensorflow)
        if profile.kind == "shared"
        else (),
        build_dir=Path((layout.scratch / "objs").as_posix()),
    )


def _relocate(flags: tuple[str, ...], host_dir: Path, build_dir: PurePosixPath | None) -> tuple[str, ...]:
    """TensorFlow's flags with its package directory as the build sees it (``-I/opt/...``)."""
    if build_dir is None:
        return flags
    host = str(host_dir)
    return tuple(flag.replace(host, str(build_dir), 1) if host in flag else flag for flag in flags)
