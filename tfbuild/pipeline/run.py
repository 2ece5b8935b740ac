"""``tfbuild build``: the whole flow, from models to artifacts and their manifest.

models -> analysis (which ops and kernel classes) -> ``ops_to_register.h`` -> the tree made to
compile those kernels (source edits on tfbuild's work branch) and checked (preflight) -> the
build plan -> its execution -> ``manifest.json``. Each arrow is one library call; this module
only orders them and carries values between them: the models are parsed once (the manifest
reads their files again, for its digests), the tree's kernel index is built once, and the edits
and the preflight take the header's selection as a value (:class:`TreeWork`) rather than
reading back the header or build files an earlier step wrote. What differs between flavours is
asked of the flavour's planner (:class:`~tfbuild.pipeline.flavours.FlavourPlanner`): this
module never compares flavours.

Nothing in the tree changes until everything that can be checked has been: the edits are
planned and the preflight runs on the build files as those edits leave them
(:func:`_check_tree`), and the build's prerequisites (toolchain image or local programs,
NDK/SDK, a tree that can take the commit: :mod:`tfbuild.pipeline.prerequisites`) are all there.
Only then does the build commit its tree changes (:class:`TreeChanges`: one commit on tfbuild's
work branch, recording the untracked files it writes so ``tfbuild edit --revert`` removes them)
and run. A failure or Ctrl-C after that carries notes saying what was changed and the one
command that undoes it.

``--dry-run`` takes the same road up to the prerequisites, so it fails where the build would
(a preflight gap is exit 5 in both), then prints the plan, every tree change as a diff, and each
prerequisite with its outcome, without failing on those (a plan is also made for a machine
other than this one). It compiles nothing and writes nothing: an op library's kernels are read
from its sources (:mod:`tfbuild.pipeline.op_library.sources`) instead of from a host build of them.

An op library has no tree: its planner's ``prepare`` plans its sources' plain build for this
machine, which the build runs before the analysis so that TensorFlow can load the result and
the analysis can find their kernels (a custom op's kernel classes exist only in its own
library); the dry run prints that plan first. Then the library is built selectively for the
target. The Makefile's protobuf rename (``--protobuf-rename``) is a step of its plan too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from tfbuild.errors import OutputPathError, TfbuildError
from tfbuild.fileio import atomic_write_text, unified_diff
from tfbuild.flavour import Flavour
from tfbuild.log import Logger
from tfbuild.model.analysis import Analysis, analyze_loaded
from tfbuild.model.formats import LoadedModel, load_model
from tfbuild.model.header import HeaderContents, header_contents, render_header
from tfbuild.model.scope import ModelScope
from tfbuild.pipeline.caches.remote import CacheStats, forget_cache_stats, read_cache_stats, stats_record
from tfbuild.pipeline.declarations.options import BuildOptions
from tfbuild.pipeline.declarations.size_profiles import hot_kernel_files
from tfbuild.pipeline.flavours import (
    PLANNERS,
    InstalledTensorFlow,
    Preparation,
    choose_flavour,
    plan_build,
)
from tfbuild.pipeline.flavours import (
    header_path as flavour_header_path,
)
from tfbuild.pipeline.flavours.per_file_selection import PerFileSelection
from tfbuild.pipeline.outputs.elf_pages import check_page_alignment
from tfbuild.pipeline.outputs.manifest import TensorFlowRecord, make_manifest, write_manifest
from tfbuild.pipeline.plan_text import plan_text
from tfbuild.pipeline.planning.plan import BuildPlan, Note, TreeLeftover
from tfbuild.pipeline.planning.protobuf_runtime import MOBILE_PLATFORMS
from tfbuild.pipeline.prerequisites import Prerequisite, check_prerequisites, check_xcode, require_prerequisites
from tfbuild.pipeline.work_estimate import work_lines
from tfbuild.stop_signals import deferred
from tfbuild.templating import render
from tfbuild.toolchain.targets import TargetProfile, get_target
from tfbuild.tree.edits import EditPlan, check_flavour, plan_edits
from tfbuild.tree.facts import TreeFacts, git_commit, read_tree_facts
from tfbuild.tree.git_version import describe, tree_commits
from tfbuild.tree.kernel_index import KernelIndex, build_kernel_index
from tfbuild.tree.mobile_types import MobileTypes
from tfbuild.tree.needs import KernelNeed, Needs, header_needs
from tfbuild.tree.preflight import PreflightReport, PreflightRequest, check_tree, require_pass
from tfbuild.tree.retarget import retarget_analysis, retarget_notes, tree_name
from tfbuild.tree.work_branch import (
    WORK_BRANCH,
    CommitResult,
    commit_files,
    refuse_foreign_files,
    revert_command,
    tracked_paths,
    tree_lock,
    unrecorded,
)

if TYPE_CHECKING:
    from tfbuild.pipeline.planning.executor import ExecutionResult  # the docker SDK: only when something runs
    from tfbuild.pipeline.report.write import WrittenReport  # matplotlib: only when a build finished


@dataclass(frozen=True)
class BuildResult:
    """What ``run_build`` did. On a dry run there are no artifacts, manifest or log."""

    plan: BuildPlan
    text: str  # the plan as printed by --dry-run
    notes: tuple[Note, ...]
    header: Path
    header_text: str = ""
    artifacts: tuple[Path, ...] = ()
    manifest: Path | None = None
    log: Path | None = None
    report: WrittenReport | None = None
    """The size report (report.md, .html, .json in the output directory); None if it failed."""
    before_analysis: BuildPlan | None = None
    """The plan this machine runs before the analysis (an op library's plain build), if any."""
    stop: TfbuildError | None = None
    """On a dry run, what would stop the build before it starts (a missing prerequisite): the
    CLI prints the plan, then exits with this error's code, as the build would."""

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
    kernelless_ops: tuple[str, ...] = ()
    """Ops the models use that the tree registers no CPU kernel for (so the header cannot name them)."""
    models: tuple[LoadedModel, ...] = ()
    """The models, whose NodeDefs the preflight checks against the tree's op definitions."""

    def needs(self) -> Needs:
        """The header's selection, plus every op the models use that the tree has no CPU kernel
        for: the header leaves those out, but the device fails on them all the same, so the
        preflight must see them (as ``tfbuild check --model`` does)."""
        needs = header_needs(self.header, self.index, origin=str(self.header_path))
        named = set(needs.op_names())
        missing = tuple(KernelNeed(op) for op in self.kernelless_ops if op not in named)
        return replace(needs, ops=needs.ops + missing)


@dataclass(frozen=True)
class TreeCheck:
    """The source edits a build makes, planned, and the preflight of the tree they leave."""

    edits: EditPlan
    report: PreflightReport

    def notes(self, *, dry_run: bool) -> list[Note]:
        """For the build's notes: each edit and the entries it adds (a dry run shows them as a
        diff instead), what the edits cannot fix, and the preflight's findings."""
        edits = () if dry_run else self.edits.edits
        notes = [Note("source-edit", f"{edit.path}: added {', '.join(edit.added)}") for edit in edits]
        if not self.edits.changed:
            notes.append(Note("source-edit", "none needed, the build files already list every needed file"))
        notes += [Note("source-edit", note) for note in self.edits.notes]
        notes.append(Note("preflight", f"passed, {len(self.report.checked_ops)} op(s) checked with the edits applied"))
        return notes + [Note("preflight", note) for note in self.report.notes]


@dataclass(frozen=True)
class TreeChanges:
    """Everything a build changes in its source tree, planned before any of it is changed.

    One commit on tfbuild's work branch holds the tracked files it changes (the build-file
    edits, and generated files the tree tracks, such as the WORKSPACE with its Android block)
    and records the untracked files the build writes into the tree (the header), so that
    ``tfbuild edit --revert`` restores the tree as it was. The untracked files are written by
    the executor, after the commit.
    """

    root: Path
    edits: EditPlan | None
    files: Mapping[str, tuple[str, str]]
    """Tracked files the commit changes: repository path -> (text now, text after)."""
    written: Mapping[str, str] = field(default_factory=dict)
    """Untracked files the build writes into the tree: repository path -> content."""
    unrecorded: tuple[str, ...] = ()
    """Those of ``written`` that no commit of the checked-out work branch records yet."""
    recordable: bool = True
    """False when the tree is not a git checkout: nothing can be recorded there."""

    @property
    def commits(self) -> bool:
        return bool(self.files) or bool(self.unrecorded and self.recordable)

    def message(self) -> str:
        """The commit message: what the commit is for, then what it changes and records."""
        if self.edits is not None and self.edits.changed:
            return self.edits.commit_message() + "".join(f"\n  {path}: {_why(path)}" for path in self.others())
        others = self.others()
        if others:
            return f"tfbuild: {_why(others[0])}" + "".join(f"\n\n{path}: {_why(path)}" for path in others[1:])
        return "tfbuild: record the files tfbuild build writes into the tree"

    def diff(self) -> str:
        return "".join(unified_diff(path, old, new) for path, (old, new) in self.files.items())

    def summary(self) -> str:
        """The tracked changes in a few words, for one line."""
        parts = [f"{edit.path} (+{len(edit.added)})" for edit in (self.edits.edits if self.edits else ())]
        parts += self.others()
        return ", ".join(parts) or "no tracked file changed; records " + _some(self.unrecorded)

    def others(self) -> list[str]:
        """The tracked files the commit changes besides the build-file edits (the WORKSPACE)."""
        edited = self.edits.new_texts() if self.edits is not None else {}
        return [path for path in self.files if path not in edited]


def _some(paths: Sequence[str], shown: int = 3) -> str:
    """``paths`` for one line: all of a few, else the first ones and how many more (per-file
    selection writes hundreds of headers)."""
    if len(paths) <= shown + 1:
        return ", ".join(paths)
    return f"{', '.join(paths[:shown])} and {len(paths) - shown} more"


def _why(path: str) -> str:
    """Why the build changes a tracked file other than the build-file lists."""
    return "Android SDK/NDK repositories" if path == "WORKSPACE" else "as the build plan generates it"


@dataclass(frozen=True)
class _Planned:
    """A build worked out up to its prerequisites: what a dry run prints and a build runs."""

    plan: BuildPlan
    header_path: Path
    header_text: str
    notes: list[Note]
    changes: TreeChanges | None
    prerequisites: tuple[Prerequisite, ...]
    tensorflow_version: str
    """The TensorFlow the analysis ran with, for the manifest."""


def run_build(options: BuildOptions, *, console: Console | None = None) -> BuildResult:
    """Run (or, with ``options.dry_run``, only plan) the build ``options`` describe. A build
    holds its tree's lock throughout (:func:`~tfbuild.tree.work_branch.tree_lock`)."""
    with contextlib.nullcontext() if options.dry_run else tree_lock(options.source, "build from"):
        return _run_build(options, console=console)


def _run_build(options: BuildOptions, *, console: Console | None = None) -> BuildResult:
    log = Logger(console)
    profile = get_target(options.target)
    tree = read_tree_facts(options.source) if options.source is not None else None
    refuse_output_in_tree(options.output_dir, options.source)
    flavour = choose_flavour(options, profile, tree)
    if not options.dry_run and "xcode" in profile.requires:
        check_xcode(profile)  # before the analysis: nothing is worth running for it
    prepared = PLANNERS[flavour].prepare(options)
    with log.step("analyze the models"):
        models, analysis, scan_notes = _analyze(options, prepared)
    planned = _plan(options, profile, tree, flavour, prepared, models, analysis, log)
    before = prepared.host_library.host_plan(Path.cwd()) if prepared.host_library is not None else None
    if options.dry_run:
        text = _before_analysis_text(prepared, before) + plan_text(planned.plan, notes=planned.notes)
        text += _dry_run_report(planned, scan_notes, options, prepared)
        return BuildResult(planned.plan, text, tuple(planned.notes), planned.header_path, planned.header_text,
                           before_analysis=before, stop=_dry_run_stop(planned.prerequisites))
    return replace(_execute(planned, options, profile, tree, prepared, log, console), before_analysis=before)


def refuse_output_in_tree(output_dir: Path, source: Path | None) -> None:
    """Refuse an output directory in the source tree (or the tree itself), for the build and its
    dry run alike (:class:`~tfbuild.errors.OutputPathError`, exit 2): the build's own steps
    write and delete there (the Makefile's object-forgetting step empties ``gen/lib``, with
    whatever the user kept in it), and its artifacts would stay in the checkout after
    ``tfbuild edit --revert``, which removes only what it recorded."""
    if source is None:
        return
    out, tree = Path(output_dir).resolve(), Path(source).resolve()
    if out.is_relative_to(tree):
        raise OutputPathError(
            f"{output_dir}: the output directory is inside the source tree {source}; the build writes and deletes "
            "files there",
            hint="pass --out-dir outside the tree; the default, tfbuild-out/, is in the current directory",
        )


def _plan(
    options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None, flavour: Flavour, prepared: Preparation,
    models: tuple[LoadedModel, ...], analysis: Analysis, log: Logger,
) -> _Planned:
    """The header, the plan, the source edits checked by the preflight, the tree changes and the
    prerequisites: everything up to the first change, the same for a build and its dry run."""
    header_path = flavour_header_path(options.output_dir)
    work = None
    notes = [Note("model", f"{p.model}: {p.op} ({p.node}): {p.message}") for p in analysis.problems]
    if tree is not None:
        with log.step("index the tree's kernels"):
            analysis, work, retarget = _prepare_tree(tree, flavour, analysis, models, options, header_path)
        notes += retarget
    header_text = render_header(analysis, options.header)
    notes.append(Note("header", f"registers {header_contents(analysis, options.header).summary()}"))
    plan = plan_build(
        options, header_text=header_text, tree=tree, tensorflow=prepared.tensorflow, flavour=flavour,
        hot_files=_hot_files(analysis, work), kernel_files=_hot_files(analysis, work, every_op=True),
        mobile_types=_mobile_types(analysis, work, profile.platform, options),
        selection=_per_file_selection(options, work),
    )
    checked = None
    if work is not None and work.header.registers_everything:
        # A stock build (--default-ops all) selects nothing: no edits to plan, no selection to check.
        # Its figures are the baseline the size report compares selective builds with.
        notes.append(Note("stock-build", "the header registers every kernel, so no source edits, no preflight; "
                          "its sizes become the size report's baseline for this tree, target and flavour"))
    elif work is not None:
        with log.step("plan the source edits and run the preflight"):
            checked = _check_tree(work)
        notes += checked.notes(dry_run=options.dry_run)
    changes = _tree_changes(plan, tree, checked.edits if checked else None) if tree is not None else None
    # The build runs what the flavour prepared (an op library's host compile) before this; a dry run has it ahead.
    host_tools = prepared.host_library.tools if prepared.host_library is not None and options.dry_run else ()
    prerequisites = check_prerequisites(
        plan, profile, options, host_tools=host_tools,
        commit_in=changes.root if changes is not None and changes.commits else None,
        commit_paths=(*changes.files, *changes.written) if changes is not None else (),
    )
    return _Planned(plan, header_path, header_text, notes, changes, prerequisites, analysis.tensorflow_version)


def _execute(
    planned: _Planned, options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None,
    prepared: Preparation, log: Logger, console: Console | None,
) -> BuildResult:
    """Check the prerequisites, change the tree, run the plan; then the manifest and size report."""
    plan, notes = planned.plan, planned.notes
    require_prerequisites(planned.prerequisites)
    atomic_write_text(planned.header_path, planned.header_text)
    forget_cache_stats(options.output_dir)
    executed, changed = _change_tree_and_execute(plan, planned.changes, options, console)
    cache_stats = read_cache_stats(options.output_dir)
    notes += _checked_outcome(plan, executed, changed, cache_stats)
    with log.step("manifest and size report"):
        manifest = make_manifest(
            plan,
            artifacts=executed.artifacts,
            header=planned.header_path,
            models=options.models,
            tensorflow=_tensorflow_record(tree, prepared.tensorflow, planned.tensorflow_version),
            image_id=executed.image_id,
            compile_cache=stats_record(cache_stats),
        )
        manifest_path = write_manifest(manifest, options.output_dir)
        report = _size_report(options.output_dir, notes)
    return BuildResult(
        plan=plan, text=plan_text(plan, notes=notes), notes=tuple(notes), header=planned.header_path,
        header_text=planned.header_text, artifacts=executed.artifacts, manifest=manifest_path,
        log=executed.log_path, report=report,
    )


def _size_report(output_dir: Path, notes: list[Note]) -> WrittenReport | None:
    """The finished build's size report against its stock baseline (a stock build records
    itself as one): written beside the manifest. A report that cannot be made is a note, not a
    failed build: the artifacts are there all the same."""
    from tfbuild.pipeline.report.write import write_size_report

    try:
        return write_size_report(output_dir)
    except TfbuildError as error:
        notes.append(Note("size-report", f"not written: {error.one_line()}"))
        return None


def _change_tree_and_execute(
    plan: BuildPlan, changes: TreeChanges | None, options: BuildOptions, console: Console | None
) -> tuple[ExecutionResult, _ChangeLog | None]:
    """Commit the tree changes and run the plan (its steps include the protobuf rename, when
    asked); from the first change on, a failure or Ctrl-C carries notes on what was changed
    and how to undo it."""
    from tfbuild.pipeline.planning.executor import execute_plan  # the docker SDK: only when something runs

    changed = _ChangeLog(changes, plan.tree_leftovers) if changes is not None else None
    with _undo_notes(changed):
        if changed is not None:
            with deferred():  # a stop signal waits for the commit to be noted, so the notes name it
                changed.commit = _commit_tree_changes(changed.changes)
        executed = execute_plan(plan, console=console, timeout=options.timeout)
    return executed, changed


def _analyze(
    options: BuildOptions, prepared: Preparation
) -> tuple[tuple[LoadedModel, ...], Analysis, list[str]]:
    """The models, parsed once for every step after; what they need; and (dry run of an op
    library) what was read from its sources.

    An op library's kernels exist only in its own sources. The build compiles them for this
    machine (the flavour's prepared host library) and has TensorFlow's registry loaded with the
    result before analysing; a dry run reads them instead (:mod:`tfbuild.pipeline.op_library.sources`)
    and says so.
    """
    scope = ModelScope(outputs=options.output_nodes)
    models = tuple(load_model(Path(model), scope) for model in options.models)
    library = prepared.host_library
    if library is None:
        return models, analyze_loaded(models), []
    if not options.dry_run:
        from tfbuild.pipeline.op_library.build import build_ops_library

        built = build_ops_library(library, jobs=options.jobs).path
        return models, analyze_loaded(models, op_libraries=(built,)), []
    from tfbuild.pipeline.op_library.sources import complete_analysis, scan_op_sources

    return models, *complete_analysis(analyze_loaded(models), scan_op_sources(options.op_sources))


def _before_analysis_text(prepared: Preparation, before: BuildPlan | None) -> str:
    """What a dry run prints first: the plan this machine runs before the analysis, if any."""
    if prepared.host_library is None or before is None:
        return ""
    return (f"Before the analysis, on this machine: the op library's plain build, which TensorFlow loads\n"
            f"so that the analysis finds its kernels ({prepared.host_library.output})\n" + plan_text(before) + "\n")


def _checked_outcome(plan: BuildPlan, executed: ExecutionResult, changed: _ChangeLog | None,
                     cache_stats: CacheStats | None) -> list[Note]:
    """What an executed build's notes add: its artifacts' page alignment, checked (a
    :class:`BuildError` when an ELF is below the page size its links were told), the compile
    cache's counts, and the tree changes with their undo command."""
    notes: list[Note] = []
    page_size = plan.page_size
    if page_size is not None:
        check_page_alignment(executed.artifacts, page_size)
        notes.append(Note("page-alignment", f"every ELF linked for {plan.target} has its LOAD segments aligned to "
                          f"{page_size // 1024} KB"))
    if cache_stats is not None:
        notes.append(Note("compile-cache", cache_stats.line()))
    if changed is not None and changed.lines():
        lines = "; ".join(changed.lines())
        notes.append(Note("source-tree", f"{lines}; undo with: {revert_command(changed.changes.root)}"))
    return notes


def _prepare_tree(
    tree: TreeFacts, flavour: Flavour, analysis: Analysis, models: tuple[LoadedModel, ...],
    options: BuildOptions, header_path: Path,
) -> tuple[Analysis, TreeWork, list[Note]]:
    """The tree's kernel index; ``analysis`` with the tree's kernel class names (the header is
    compiled into the tree, so it must name them); the work for the tree steps; retarget notes."""
    index = build_kernel_index(tree.root)
    analysis, retargeted = retarget_analysis(analysis, index, tree_name=tree_name(index, tree.root))
    header = header_contents(analysis, options.header)
    work = TreeWork(tree, flavour, index, header, header_path, kernelless_ops=retargeted.missing_ops, models=models)
    return analysis, work, [Note("kernel-classes", note) for note in retarget_notes(retargeted)]


def _hot_files(analysis: Analysis, work: TreeWork | None, *, every_op: bool = False) -> tuple[str, ...]:
    """The tree's sources registering the models' hot kernels, for the size profile (or, with
    ``every_op``, all their kernels, for a lite build): the models' ops and kernel classes (the
    tree's names, after the retargeting) looked up in the kernel index the tree steps use. None
    without a tree (an op library)."""
    if work is None:
        return ()
    needs = [KernelNeed(requirement.op, requirement.kernel_classes) for requirement in analysis.ops]
    return hot_kernel_files(needs, work.index, [need.op for need in needs] if every_op else None)


def _per_file_selection(options: BuildOptions, work: TreeWork | None) -> PerFileSelection | None:
    """Each source's own selection, for ``--per-file-selection`` (:mod:`tfbuild.pipeline.flavours.per_file_selection`):
    the sources the Makefile compiles that register something, that is ``tf_op_files.txt`` and
    the files the build's edits add to it (those registering a selected kernel or op)."""
    if not options.per_file_selection:
        return None  # choose_flavour refuses it for the flavours other than the Makefile
    if work is None or work.header.registers_everything:
        return None  # an op library, or a stock build: nothing to split
    from tfbuild.pipeline.flavours.per_file_selection import per_file_selection
    from tfbuild.tree.build_files.op_files_list import OP_FILES_LIST, listed_paths
    from tfbuild.tree.op_def_index import build_op_defs

    listed = work.tree.root / OP_FILES_LIST
    sources = set(listed_paths(listed.read_text(encoding="utf-8", errors="replace"))) if listed.is_file() else set()
    op_files = dict(build_op_defs(work.tree.root).files)
    for requirement in work.needs().ops:
        sources.update(work.index.files_for_op(requirement.op))
        sources.update(op_files.get(requirement.op, ()))
    return per_file_selection(work.header, work.index, op_files, sources)


def _mobile_types(
    analysis: Analysis, work: TreeWork | None, platform: str, options: BuildOptions
) -> MobileTypes | None:
    """The type set of a mobile build of a tree, chosen from the models' kernels as the tree
    names them (:func:`~tfbuild.tree.mobile_types.choose_mobile_types`); None elsewhere."""
    if work is None or platform not in MOBILE_PLATFORMS:
        return None
    from tfbuild.tree.mobile_types import choose_mobile_types

    needs = [KernelNeed(requirement.op, requirement.kernel_classes) for requirement in analysis.ops]
    return choose_mobile_types(work.tree.root, work.index, needs, mode=options.android.mobile_types)


def _check_tree(work: TreeWork) -> TreeCheck:
    """Plan the source edits the needs call for and run the preflight on the build files as
    those edits leave them: the one tree check the build and ``--dry-run`` both run, before
    either changes anything. A gap raises :class:`~tfbuild.errors.PreflightError` (exit 5), so
    it stops the build here rather than after an hour, and the dry run with the same verdict."""
    flavour = check_flavour(work.flavour)
    needs = work.needs()
    edits = plan_edits(work.tree.root, flavour, needs, work.index)
    request = PreflightRequest(source=work.tree.root, flavour=edits.flavour, header=work.header_path)
    report = check_tree(request, needs, work.index, header=work.header, edited=edits.new_texts(), models=work.models)
    require_pass(report)
    return TreeCheck(edits, report)


def _tree_changes(plan: BuildPlan, tree: TreeFacts, edits: EditPlan | None) -> TreeChanges:
    """What the build will change in ``tree``: ``edits``, and the plan's generated files that
    are in the tree, tracked ones as committed changes, untracked ones recorded (reads only)."""
    root = tree.root
    files = edits.files() if edits is not None else {}
    inside = {
        generated.path.relative_to(root).as_posix(): generated.content
        for generated in plan.generated_files
        if generated.path.is_relative_to(root)
    }
    if tree.commit is None:  # not a git checkout: nothing can be committed or recorded
        return TreeChanges(root, edits, files, inside, tuple(inside), recordable=False)
    tracked = tracked_paths(root, inside)
    for path, content in inside.items():
        if path in tracked:
            old = (root / path).read_bytes().decode("utf-8", "surrogateescape")
            if old != content:
                files[path] = (old, content)
    written = {path: content for path, content in inside.items() if path not in tracked}
    refuse_foreign_files(root, written)  # the user's own file there: stop before anything changes
    return TreeChanges(root, edits, files, written, unrecorded(root, written))


def _commit_tree_changes(changes: TreeChanges) -> CommitResult | None:
    """Commit ``changes`` on tfbuild's work branch (nothing when there is nothing to commit):
    the tree stays clean for the next build, and ``tfbuild edit --revert`` undoes it all."""
    if not changes.commits:
        return None
    generated = {path: changes.written[path] for path in changes.unrecorded} if changes.recordable else {}
    return commit_files(changes.root, changes.files, changes.message(), generated=generated)


@dataclass
class _ChangeLog:
    """What a running build has changed in its tree so far."""

    changes: TreeChanges
    leftovers: tuple[TreeLeftover, ...] = ()
    """What the plan's steps change that the revert leaves (:attr:`BuildPlan.tree_leftovers`)."""
    commit: CommitResult | None = None

    def lines(self) -> list[str]:
        root = self.changes.root
        lines = []
        if self.commit is not None:
            lines.append(f"committed {self.commit.commit[:12]} on {self.commit.branch}: {self.changes.summary()}")
        written = [path for path, content in self.changes.written.items()
                   if (root / path).is_file() and (root / path).read_bytes() == content.encode("utf-8")]
        if written:
            lines.append(f"wrote {_some(written)} (untracked)")
        lines += [leftover.note for leftover in self.leftovers if (root / leftover.path).exists()]
        return lines


@contextlib.contextmanager
def _undo_notes(changed: _ChangeLog | None) -> Iterator[None]:
    """On any failure or interruption inside, note on the exception what the build had changed
    in the tree and the one command that undoes it (the CLI prints exception notes)."""
    try:
        yield
    except BaseException as error:
        lines = changed.lines() if changed is not None else []
        if changed is not None and lines:
            error.add_note(f"the build stopped after changing the source tree {changed.changes.root}:")
            for line in lines:
                error.add_note(f"  {line}")
            error.add_note(f"undo it with: {revert_command(changed.changes.root)}")
        raise


def _dry_run_stop(prerequisites: tuple[Prerequisite, ...]) -> TfbuildError | None:
    """What would stop the build the dry run planned, as :func:`require_prerequisites` raises it
    (so with the same exit code): the dry run exits with it."""
    try:
        require_prerequisites(prerequisites)
    except TfbuildError as missing:
        return missing
    return None


def _dry_run_report(planned: _Planned, scan_notes: list[str], options: BuildOptions, prepared: Preparation) -> str:
    """What the dry run prints below the plan: an op library's kernels as read from its sources,
    the tree changes (each file the commit changes, as a diff), what each step compiles and
    reuses, and every prerequisite."""
    changes, prerequisites = planned.changes, planned.prerequisites
    missing = next((p.error for p in prerequisites if p.error is not None), None)
    tree: dict[str, object] | None = None
    if changes is not None:
        edits = changes.edits
        tree = {
            "root": str(changes.root),
            "commits": changes.commits,
            "edit_lines": tuple(edits.summary_lines()) if edits is not None else (),
            "others": tuple(f"{path}: {_why(path)}" for path in changes.others()),
            "written": tuple(changes.written),
            "recorded": changes.recordable,
            "diff": changes.diff(),
            "undo": revert_command(changes.root),
        }
    return render(
        "dry_run.txt.j2",
        op_sources=tuple(str(source) for source in options.op_sources) if prepared.host_library else (),
        library=str(prepared.host_library.output) if prepared.host_library else "",
        scan_notes=tuple(scan_notes),
        tree=tree,
        work_branch=WORK_BRANCH,
        work=_work(planned.plan, changes),
        prerequisites=tuple(p.line() for p in prerequisites),
        stop=f"{missing.one_line()} (exit {missing.exit_code})" if missing is not None else "",
    )


def _work(plan: BuildPlan, changes: TreeChanges | None) -> tuple[str, ...]:
    """What each step of a Makefile build compiles and reuses (:mod:`tfbuild.pipeline.work_estimate`)."""
    if changes is None:
        return ()
    edited = changes.edits.new_texts() if changes.edits is not None else {}
    return work_lines(plan, changes.root, edited=edited)


def _tensorflow_record(
    tree: TreeFacts | None, tensorflow: InstalledTensorFlow | None, analysis_version: str
) -> TensorFlowRecord:
    if tree is not None:
        # Read now, not taken from ``tree``: the edits committed on the work branch since.
        head = git_commit(tree.root)
        if head is None:
            return TensorFlowRecord(
                version=str(tree.version), commit=None, source=str(tree.root), analysis_version=analysis_version
            )
        commits = tree_commits(tree.root, head)
        return TensorFlowRecord(
            version=str(tree.version), commit=commits.user, source=str(tree.root), analysis_version=analysis_version,
            work_commit=commits.work, describe=describe(tree.root, commits.user),
        )
    assert tensorflow is not None
    return TensorFlowRecord(
        version=tensorflow.version, commit=tensorflow.git_version, source=None, analysis_version=analysis_version
    )
