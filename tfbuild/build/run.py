"""``tfbuild build``: the whole flow, from models to artifacts and their manifest.

models -> analysis (which ops and kernel classes) -> ``ops_to_register.h`` -> the tree made to
compile those kernels (source edits on tfbuild's work branch) and checked (preflight) -> the
build plan -> its execution -> ``manifest.json``. Each arrow is one library call; this module
only orders them and carries values between them. ``--dry-run`` stops after the plan: the
models are analysed and the edits planned (reading only); nothing is built, and the only thing
written is the host build of an op library's sources that analysing its models requires.

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
from tfbuild.toolchain.targets import TargetProfile, get_target
from tfbuild.tree.facts import TreeFacts, git_commit, read_tree_facts

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


def run_build(options: BuildOptions, *, console: Console | None = None) -> BuildResult:
    """Run (or, with ``options.dry_run``, only plan) the build ``options`` describe."""
    profile = get_target(options.target)
    tree = read_tree_facts(options.source) if options.source is not None else None
    flavour = choose_flavour(options, profile, tree)
    if not options.dry_run:
        _check_can_run(profile)
    tensorflow = _installed_tensorflow() if flavour == "ops-library" else None
    op_libraries = _analysis_libraries(options, flavour)
    analysis = _analyze(options, op_libraries)
    retarget = []
    if tree is not None:
        # The header is compiled into the tree, so it must name the tree's kernel classes.
        from tfbuild.tree.retarget import retarget_notes, retarget_to_tree

        analysis, retargeted = retarget_to_tree(analysis, tree.root)
        retarget = [f"kernel classes: {note}" for note in retarget_notes(retargeted)]
    header_text = _render_header(analysis, options)
    header_path = options.output_dir / HEADER_SUBDIR / HEADER_NAME
    notes = [f"{problem.model}: {problem.op} ({problem.node}): {problem.message}" for problem in analysis.problems]
    notes += retarget

    if options.dry_run:
        plan = plan_build(options, header_text=header_text, tree=tree, tensorflow=tensorflow, flavour=flavour)
        if tree is not None:
            notes += _planned_edits(tree, flavour, header_text, options)
        if options.protobuf_rename and flavour == "makefile":
            notes.append(_RENAME_NOTE)
        return BuildResult(plan=plan, text=plan_text(plan, notes=notes), notes=tuple(notes), header=header_path)

    atomic_write_text(header_path, header_text)
    if tree is not None:
        notes += _edit_and_check(tree, flavour, header_path, options)
    plan = plan_build(options, header_text=header_text, tree=tree, tensorflow=tensorflow, flavour=flavour)
    if tree is not None and flavour == "bazel":
        _commit_workspace(plan, tree)

    from tfbuild.build.executor import execute_plan  # the docker SDK: only when something runs

    if options.protobuf_rename and flavour == "makefile":
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
    from tfbuild.build.flavours.ops_library import installed_tensorflow

    return installed_tensorflow()


def _analysis_libraries(options: BuildOptions, flavour: str) -> tuple[Path, ...]:
    """For an op library: a plain build of its sources for this machine, for TensorFlow to load."""
    if flavour != "ops-library":
        return ()
    from tfbuild.build.op_library import OpsLibrarySpec, build_ops_library, plan_ops_library

    scratch = options.output_dir / ANALYSIS_SUBDIR
    spec = OpsLibrarySpec.for_installed_tensorflow(
        options.op_sources,
        scratch / f"lib{options.ops_library_name}_host.so",
        build_dir=scratch / "objs",
    )
    return (build_ops_library(plan_ops_library(spec), jobs=options.jobs).path,)


def _analyze(options: BuildOptions, op_libraries: tuple[Path, ...]):
    from tfbuild.model.analysis import analyze_models  # imports TensorFlow

    return analyze_models(options.models, op_libraries=op_libraries)


def _render_header(analysis, options: BuildOptions) -> str:
    from tfbuild.model.header import render_header

    return render_header(analysis, options.header)


def _planned_edits(tree: TreeFacts, flavour: str, header_text: str, options: BuildOptions) -> list[str]:
    """What the source edits would change, planned against the header without writing it (the
    edit planner reads a header file, so it gets a temporary copy)."""
    import tempfile

    from tfbuild.tree.edits import EditRequest, run_edit

    with tempfile.TemporaryDirectory(prefix="tfbuild-plan-") as scratch:
        header = Path(scratch) / HEADER_NAME
        header.write_text(header_text, encoding="utf-8")
        outcome = run_edit(EditRequest(source=tree.root, flavour=flavour, header=header, dry_run=True))
    notes = [f"source edit: {len(edit.added)} file(s) added to {edit.path}" for edit in outcome.plan.edits]
    if not outcome.plan.edits:
        notes.append("source edits: none needed, the tree already compiles every needed kernel")
    return notes + [f"source edit: {note}" for note in outcome.plan.notes]


def _edit_and_check(tree: TreeFacts, flavour: str, header: Path, options: BuildOptions) -> list[str]:
    """Make the tree compile the needed kernels (a commit on tfbuild's work branch), then check
    it would work on the device; a gap stops the build here rather than after an hour."""
    from tfbuild.tree.edits import EditRequest, run_edit
    from tfbuild.tree.preflight import PreflightRequest, require_pass, run_preflight

    outcome = run_edit(EditRequest(source=tree.root, flavour=flavour, header=header))
    notes = [f"source edit: {len(edit.added)} file(s) added to {edit.path}" for edit in outcome.plan.edits]
    report = run_preflight(PreflightRequest(source=tree.root, flavour=flavour, header=header))
    require_pass(report)
    return notes + [f"preflight: {note}" for note in report.notes]


def _commit_workspace(plan: BuildPlan, tree: TreeFacts) -> None:
    """Commit the WORKSPACE's Android block on tfbuild's work branch, like the other edits: the
    tree stays clean (so the next build's edits are allowed) and ``tfbuild edit --revert``
    undoes it with them."""
    from tfbuild.tree.work_branch import commit_files

    workspace = tree.root / "WORKSPACE"
    for generated in plan.generated_files:
        if generated.path == workspace:
            old = workspace.read_text(encoding="utf-8")
            if old != generated.content:
                commit_files(tree.root, {"WORKSPACE": (old, generated.content)}, "tfbuild: Android SDK/NDK repositories")


def _rename_protobuf(plan: BuildPlan, tree: TreeFacts, console: Console | None) -> None:
    """Fill downloads/ (the plan's first step, in the same toolchain) and rename protobuf there."""
    from tfbuild.build.executor import execute_plan
    from tfbuild.build.flavours.makefile import dependencies_only
    from tfbuild.tree.protobuf_rename import apply_protobuf_rename, plan_protobuf_rename

    execute_plan(dependencies_only(plan), console=console)
    apply_protobuf_rename(plan_protobuf_rename(tree.root))


def _check_can_run(profile: TargetProfile) -> None:
    if "xcode" in profile.requires and (platform.system() != "Darwin" or shutil.which("xcrun") is None):
        raise ToolchainError(
            f"{profile.name} builds with Xcode, which needs macOS; this machine cannot run the build",
            hint="run it on a Mac with Xcode, or add --dry-run to see the plan",
        )


def _tensorflow_record(tree: TreeFacts | None, tensorflow: InstalledTensorFlow | None, analysis_version: str) -> TensorFlowRecord:
    if tree is not None:
        return TensorFlowRecord(
            version=str(tree.version), commit=git_commit(tree.root), source=str(tree.root), analysis_version=analysis_version
        )
    assert tensorflow is not None
    return TensorFlowRecord(
        version=tensorflow.version, commit=tensorflow.git_version, source=None, analysis_version=analysis_version
    )
