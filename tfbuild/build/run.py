"""``tfbuild build``: the whole flow, from models to artifacts and their manifest.

models -> analysis (which ops and kernel classes) -> ``ops_to_register.h`` -> the tree made to
compile those kernels (source edits on tfbuild's work branch) and checked (preflight) -> the
build plan -> its execution -> ``manifest.json``. Each arrow is one library call; this module
only orders them and carries values between them: the models are read once, the tree's kernel
index is built once, and the edits and the preflight take the header's selection as a value
(:class:`TreeWork`) rather than reading back the header or build files an earlier step wrote.
``--dry-run`` stops after the plan: the models are analysed and the edits planned (reading
only); nothing is built, and the only thing written is the host build of an op library's
sources that analysing its models requires.

An op library has no tree: its sources are first compiled plainly for this machine so that
TensorFlow can load them and the analysis can find their kernels (a custom op's kernel classes
exist only in its own library), then built selectively for the target.
"""

from __future__ import annotations

import platform
import shutil
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from tfbuild.build.flavours import HEADER_NAME, HEADER_SUBDIR, InstalledTensorFlow, choose_flavour, plan_build
from tfbuild.build.manifest import TensorFlowRecord, make_manifest, write_manifest
from tfbuild.build.options import BuildOptions
from tfbuild.build.plan import BuildPlan
from tfbuild.build.plan_text import plan_text
from tfbuild.errors import ToolchainError
from tfbuild.fileio import atomic_write_text
from tfbuild.flavour import Flavour
from tfbuild.model.analysis import Analysis
from tfbuild.model.header import HeaderContents, header_contents, render_header
from tfbuild.toolchain.targets import TargetProfile, get_target
from tfbuild.tree.edits import EditPlan, apply_plan, check_flavour, plan_edits
from tfbuild.tree.facts import TreeFacts, git_commit, read_tree_facts
from tfbuild.tree.kernel_index import KernelIndex, build_kernel_index
from tfbuild.tree.needs import Needs, header_needs
from tfbuild.tree.preflight import PreflightRequest, check_tree, require_pass
from tfbuild.tree.protobuf_rename import apply_protobuf_rename, plan_protobuf_rename
from tfbuild.tree.retarget import retarget_analysis, retarget_notes, tree_name
from tfbuild.tree.work_branch import commit_files

ANALYSIS_SUBDIR = ".analysis"


@dataclass(frozen=True)
class BuildResult:
    """What ``run_build`` did. On a dry run there are no artifacts, manifest or log."""

    plan: BuildPlan
    text: str  # the plan as printed by --dry-run
    notes: tuple[str, ...]
    header: Path
    artifacts: tuple[Path, ...] = ()
    manifest: Path | None = None
    log: Path | None = None

    @property
    def dry_run(self) -> bool:
        return self.manifest is None


@dataclass(frozen=True)
class TreeWork:
    """What the tree steps (source edits, preflight) of a build take, each loaded once."""

    tree: TreeFacts
    flavour: Flavour
    """As chosen for the build; the tree steps refuse one that does not build a tree."""
    index: KernelIndex
    header: HeaderContents
    """What the build's header selects, as the rendering step computed it."""
    header_path: Path
    """Where the build writes that header: named in messages, never read."""

    def needs(self) -> Needs:
        return header_needs(self.header, self.index, origin=str(self.header_path))


def run_build(options: BuildOptions, *, console: Console | None = None) -> BuildResult:
    """Run (or, with ``options.dry_run``, only plan) the build ``options`` describe."""
    profile = get_target(options.target)
    tree = read_tree_facts(options.source) if options.source is not None else None
    flavour = choose_flavour(options, profile, tree)
    if not options.dry_run:
        _check_can_run(profile)
    tensorflow = _installed_tensorflow() if flavour == Flavour.OPS_LIBRARY else None
    op_libraries = _analysis_libraries(options, flavour)
    analysis = _analyze(options, op_libraries)
    header_path = options.output_dir / HEADER_SUBDIR / HEADER_NAME
    work = None
    retarget: list[str] = []
    if tree is not None:
        analysis, work, retarget = _prepare_tree(tree, flavour, analysis, options, header_path)
    header_text = render_header(analysis, options.header)
    notes = [f"{problem.model}: {problem.op} ({problem.node}): {problem.message}" for problem in analysis.problems]
    notes += retarget

    if options.dry_run:
        plan = plan_build(options, header_text=header_text, tree=tree, tensorflow=tensorflow, flavour=flavour)
        if work is not None:
            notes += _planned_edits(work)
        if options.protobuf_rename and flavour == Flavour.MAKEFILE:
            notes.append(_RENAME_NOTE)
        return BuildResult(plan=plan, text=plan_text(plan, notes=notes), notes=tuple(notes), header=header_path)

    atomic_write_text(header_path, header_text)
    if work is not None:
        notes += _edit_and_check(work)
    plan = plan_build(options, header_text=header_text, tree=tree, tensorflow=tensorflow, flavour=flavour)
    if tree is not None and flavour == Flavour.BAZEL:
        _commit_workspace(plan, tree)

    from tfbuild.build.executor import execute_plan  # the docker SDK: only when something runs

    if tree is not None and options.protobuf_rename and flavour == Flavour.MAKEFILE:
        _rename_protobuf(plan, tree, console)
    executed = execute_plan(plan, console=console, timeout=options.timeout)
    manifest = make_manifest(
        plan,
        artifacts=executed.artifacts,
        header=header_path,
        models=options.models,
        tensorflow=_tensorflow_record(tree, tensorflow, analysis.tensorflow_version),
        image_id=executed.image_id,
    )
    return BuildResult(
        plan=plan,
        text=plan_text(plan, notes=notes),
        notes=tuple(notes),
        header=header_path,
        artifacts=executed.artifacts,
        manifest=write_manifest(manifest, options.output_dir),
        log=executed.log_path,
    )


_RENAME_NOTE = (
    "protobuf rename: after step 1 fills downloads/, tfbuild renames protobuf's namespace to "
    "google::protobuf3 in the tree on this machine (tfbuild.tree.protobuf_rename), then runs the rest"
)


def _installed_tensorflow() -> InstalledTensorFlow:
    from tfbuild.build.op_library import installed_tensorflow

    return installed_tensorflow()


def _analysis_libraries(options: BuildOptions, flavour: Flavour) -> tuple[Path, ...]:
    """For an op library: a plain build of its sources for this machine, for TensorFlow to load."""
    if flavour != Flavour.OPS_LIBRARY:
        return ()
    from tfbuild.build.op_library import OpsLibrarySpec, build_ops_library, plan_ops_library

    scratch = options.output_dir / ANALYSIS_SUBDIR
    spec = OpsLibrarySpec.for_installed_tensorflow(
        options.op_sources,
        scratch / f"lib{options.ops_library_name}_host.so",
        build_dir=scratch / "objs",
    )
    return (build_ops_library(plan_ops_library(spec), jobs=options.jobs).path,)


def _analyze(options: BuildOptions, op_libraries: tuple[Path, ...]) -> Analysis:
    from tfbuild.model.analysis import analyze_models  # imports TensorFlow

    return analyze_models(options.models, op_libraries=op_libraries)


def _prepare_tree(
    tree: TreeFacts, flavour: Flavour, analysis: Analysis, options: BuildOptions, header_path: Path
) -> tuple[Analysis, TreeWork, list[str]]:
    """The tree's kernel index; ``analysis`` with the tree's kernel class names (the header is
    compiled into the tree, so it must name them); the work for the tree steps; retarget notes."""
    index = build_kernel_index(tree.root)
    analysis, retargeted = retarget_analysis(analysis, index, tree_name=tree_name(index, tree.root))
    work = TreeWork(tree, flavour, index, header_contents(analysis, options.header), header_path)
    return analysis, work, [f"kernel classes: {note}" for note in retarget_notes(retargeted)]


def _plan_tree_edits(work: TreeWork) -> tuple[EditPlan, Needs]:
    flavour = check_flavour(work.flavour)
    needs = work.needs()
    return plan_edits(work.tree.root, flavour, needs, work.index), needs


def _planned_edits(work: TreeWork) -> list[str]:
    """What the source edits would change; nothing is written."""
    plan, _ = _plan_tree_edits(work)
    notes = [f"source edit: {len(edit.added)} file(s) added to {edit.path}" for edit in plan.edits]
    if not plan.edits:
        notes.append("source edits: none needed, the tree already compiles every needed kernel")
    return notes + [f"source edit: {note}" for note in plan.notes]


def _edit_and_check(work: TreeWork) -> list[str]:
    """Make the tree compile the needed kernels (a commit on tfbuild's work branch), then check
    it would work on the device; a gap stops the build here rather than after an hour."""
    plan, needs = _plan_tree_edits(work)
    if plan.changed:
        apply_plan(plan)
    notes = [f"source edit: {len(edit.added)} file(s) added to {edit.path}" for edit in plan.edits]
    request = PreflightRequest(source=work.tree.root, flavour=plan.flavour, header=work.header_path)
    report = check_tree(request, needs, work.index, header=work.header, edited=plan.new_texts())
    require_pass(report)
    return notes + [f"preflight: {note}" for note in report.notes]


def _commit_workspace(plan: BuildPlan, tree: TreeFacts) -> None:
    """Commit the WORKSPACE's Android block on tfbuild's work branch, like the other edits: the
    tree stays clean (so the next build's edits are allowed) and ``tfbuild edit --revert``
    undoes it with them."""
    workspace = tree.root / "WORKSPACE"
    for generated in plan.generated_files:
        if generated.path == workspace:
            old = workspace.read_text(encoding="utf-8")
            if old != generated.content:
                message = "tfbuild: Android SDK/NDK repositories"
                commit_files(tree.root, {"WORKSPACE": (old, generated.content)}, message)


def _rename_protobuf(plan: BuildPlan, tree: TreeFacts, console: Console | None) -> None:
    """Fill downloads/ (the plan's first step, in the same toolchain) and rename protobuf there."""
    from tfbuild.build.executor import execute_plan
    from tfbuild.build.flavours.makefile import dependencies_only

    execute_plan(dependencies_only(plan), console=console)
    apply_protobuf_rename(plan_protobuf_rename(tree.root))


def _check_can_run(profile: TargetProfile) -> None:
    if "xcode" in profile.requires and (platform.system() != "Darwin" or shutil.which("xcrun") is None):
        raise ToolchainError(
            f"{profile.name} builds with Xcode, which needs macOS; this machine cannot run the build",
            hint="run it on a Mac with Xcode, or add --dry-run to see the plan",
        )


def _tensorflow_record(
    tree: TreeFacts | None, tensorflow: InstalledTensorFlow | None, analysis_version: str
) -> TensorFlowRecord:
    if tree is not None:
        # Read now, not taken from ``tree``: the edits committed on the work branch since.
        commit = git_commit(tree.root)
        return TensorFlowRecord(
            version=str(tree.version), commit=commit, source=str(tree.root), analysis_version=analysis_version
        )
    assert tensorflow is not None
    return TensorFlowRecord(
        version=tensorflow.version, commit=tensorflow.git_version, source=None, analysis_version=analysis_version
    )
