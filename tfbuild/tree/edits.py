"""Make a TensorFlow checkout compile the kernel files a header or a set of models needs.

Selective registration only keeps kernels that are compiled in the first place, and TensorFlow's
mobile builds compile a hand-kept subset: the contrib Makefile compiles what ``tf_op_files.txt``
lists, the Bazel mobile targets what the ``android_*``/``portable_*`` filegroups of
``tensorflow/core/kernels/BUILD`` hold. This module

1. resolves the needs (:mod:`tfbuild.tree.needs`) against the tree's kernel index,
2. plans the edits per flavour as data (:class:`EditPlan`: path, old and new text, a diff),
3. applies them as one commit on a work branch, or reverts that branch (:mod:`tfbuild.tree.work_branch`).

Editing is idempotent: a plan against an already-edited tree is empty and applying it makes no
commit. ``--dry-run`` only plans (and works on a dirty tree); applying refuses one.
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.fileio import input_problem, unified_diff
from tfbuild.flavour import TREE_FLAVOURS, Flavour
from tfbuild.tree.build_files.kernels_build import (
    KERNELS_BUILD,
    KERNELS_PACKAGE,
    PackageFiles,
    add_kernel_sources,
    detect_family,
    entry_for_path,
    mobile_sources,
)
from tfbuild.tree.build_files.op_files_list import OP_FILES_LIST, add_op_files, listed_paths
from tfbuild.tree.kernel_index import KernelIndex, build_kernel_index
from tfbuild.tree.needs import NeededSources, Needs, needs_from_header, needs_from_models, resolve_needs
from tfbuild.tree.work_branch import CommitResult, RevertResult, commit_files, revert, tree_lock

_COMPILED_SUFFIXES = (".cc", ".c", ".cpp")


@dataclass(frozen=True)
class FileEdit:
    """One build file's planned change."""

    path: str
    old_text: str
    new_text: str
    added: tuple[str, ...]

    def diff(self) -> str:
        return unified_diff(self.path, self.old_text, self.new_text)


@dataclass(frozen=True)
class EditPlan:
    root: Path
    flavour: Flavour
    needs: Needs
    sources: NeededSources
    edits: tuple[FileEdit, ...]
    notes: tuple[str, ...]
    """Things the edits cannot fix (ops with no kernel in the tree, files outside the package)."""

    @property
    def changed(self) -> bool:
        return bool(self.edits)

    def diff(self) -> str:
        return "".join(edit.diff() for edit in self.edits)

    def new_texts(self) -> dict[str, str]:
        """The edited build files' text once the plan is applied, by repository path."""
        return {edit.path: edit.new_text for edit in self.edits}

    def files(self) -> dict[str, tuple[str, str]]:
        """The edited build files as :func:`~tfbuild.tree.work_branch.commit_files` takes them:
        repository path -> (text now, text after the edit)."""
        return {edit.path: (edit.old_text, edit.new_text) for edit in self.edits}

    def commit_message(self) -> str:
        """The work-branch commit message of these edits: what they are for, then every entry added."""
        summary = "; ".join(f"{len(edit.added)} added to {edit.path}" for edit in self.edits)
        lines = [f"tfbuild: compile the kernels of {self.needs.origin} ({self.flavour})", "", summary, ""]
        lines += [f"  + {entry}" for edit in self.edits for entry in edit.added]
        return "\n".join(lines)

    def summary_lines(self) -> list[str]:
        """One line per edited build file, then every entry it gets, for people to read."""
        lines = []
        for edit in self.edits:
            lines.append(f"{edit.path}: {len(edit.added)} entr{'y' if len(edit.added) == 1 else 'ies'} added")
            lines += [f"  + {entry}" for entry in edit.added]
        return lines


@dataclass(frozen=True)
class EditRequest:
    """``tfbuild edit``'s options as a value."""

    source: Path
    flavour: str
    header: Path | None = None
    models: tuple[Path, ...] = ()
    op_libraries: tuple[Path, ...] = ()
    dry_run: bool = False
    cache_dir: Path | None = None


@dataclass(frozen=True)
class EditOutcome:
    plan: EditPlan
    commit: CommitResult | None
    """None for a dry run or when nothing needed to change."""


def check_flavour(flavour: str) -> Flavour:
    """``flavour`` as a tree flavour (the ones whose build files tfbuild edits)."""
    if flavour not in TREE_FLAVOURS:
        names = ", ".join(tree_flavour.value for tree_flavour in TREE_FLAVOURS)
        raise ConfigError(f"unknown flavour {str(flavour)!r}", hint=f"use one of: {names}")
    return Flavour(flavour)


def load_needs(
    header: Path | None, models: tuple[Path, ...], op_libraries: tuple[Path, ...], index: KernelIndex
) -> Needs:
    """Needs from exactly one of a header or models."""
    if (header is None) == (not models):
        raise ConfigError("give either --header or --model", hint="e.g. --header ops_to_register.h")
    if header is not None:
        return needs_from_header(header, index)
    return needs_from_models(models, op_libraries)


def kernel_index_for(source: Path, cache_dir: Path | None = None) -> KernelIndex:
    source = Path(source)
    if not source.is_dir():
        raise SourceTreeError(f"{source}: source tree not found", hint="pass --source DIR, a TensorFlow checkout")
    return build_kernel_index(source, cache_dir=cache_dir)


def run_edit(request: EditRequest) -> EditOutcome:
    """Plan the edits for ``request`` and, unless it is a dry run, commit them."""
    flavour = check_flavour(request.flavour)
    # Held from the plan to the commit: a second edit of the tree stops at once (exit 4).
    with contextlib.nullcontext() if request.dry_run else tree_lock(request.source, "edit"):
        index = kernel_index_for(request.source, request.cache_dir)
        needs = load_needs(request.header, request.models, request.op_libraries, index)
        plan = plan_edits(request.source, flavour, needs, index)
        if request.dry_run or not plan.changed:
            return EditOutcome(plan, None)
        return EditOutcome(plan, apply_plan(plan))


def run_revert(source: Path) -> RevertResult:
    with tree_lock(Path(source), "revert"):
        return revert(Path(source))


def plan_edits(root: Path, flavour: str, needs: Needs, index: KernelIndex) -> EditPlan:
    """The edits ``flavour``'s build files need so the tree compiles what ``needs`` resolve to."""
    root = Path(root)
    tree_flavour = check_flavour(flavour)
    sources = resolve_needs(needs, index, root)
    notes = [f"no CPU kernel for op {op} anywhere in {root}" for op in sources.unresolved_ops]
    edits, more = _BUILD_LISTS[tree_flavour].edits(root, sources)
    return EditPlan(root, tree_flavour, needs, sources, tuple(edits), tuple(notes + more))


def apply_plan(plan: EditPlan) -> CommitResult:
    return commit_files(plan.root, plan.files(), plan.commit_message())


def compiled_files(root: Path, flavour: str, *, edited: Mapping[str, str] | None = None) -> frozenset[str]:
    """Repository paths of the kernel and op files ``flavour``'s mobile build compiles.

    ``edited`` (:meth:`EditPlan.new_texts`) gives build files' text by repository path, for a
    plan that was just applied (or is only planned): those are taken from it, not read.
    """
    root = Path(root)
    build_list = _BUILD_LISTS[check_flavour(flavour)]
    text = (edited or {}).get(build_list.path)
    if text is None:
        text = _read_build_file(root, build_list)
    return build_list.compiled(root, text)


def _listed(root: Path, text: str) -> frozenset[str]:
    """What the Makefile compiles, given the text of tf_op_files.txt."""
    del root
    return frozenset(listed_paths(text))


def _mobile_sources(root: Path, text: str) -> frozenset[str]:
    """What Bazel's mobile build compiles, given the text of kernels/BUILD (and, for labels into
    other packages, theirs)."""
    return mobile_sources(
        text,
        detect_family(text, KERNELS_BUILD),
        package_files=_package_listing(root / KERNELS_PACKAGE),
        load_package=lambda package: _load_package(root, package),
    )


def _package_listing(directory: Path) -> tuple[str, ...]:
    """File names directly in a package directory (what a non-recursive ``glob`` sees)."""
    return tuple(sorted(p.name for p in directory.iterdir() if p.is_file())) if directory.is_dir() else ()


def _load_package(root: Path, package: str) -> PackageFiles | None:
    for name in ("BUILD", "BUILD.bazel"):
        build = root / package / name
        if build.is_file():
            text = build.read_bytes().decode("utf-8", "surrogateescape")
            return PackageFiles(build_text=text, files=_package_listing(root / package))
    return None


def _read_build_file(root: Path, build_list: _BuildList) -> str:
    path = root / build_list.path
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        raise SourceTreeError(
            f"{path}: not found, so this tree cannot be built with the {build_list.flavour} flavour",
            hint=build_list.missing_hint,
        ) from None
    except OSError as error:  # a directory, a permission: the tree is not as TensorFlow ships it
        raise SourceTreeError(
            f"{path}: {input_problem(path, error)}, so this tree cannot be built with the {build_list.flavour} "
            "flavour",
            hint="restore it with git checkout (a directory: remove it first) and run tfbuild again",
        ) from None


def _makefile_edits(root: Path, sources: NeededSources) -> tuple[list[FileEdit], list[str]]:
    old = _read_build_file(root, _BUILD_LISTS[Flavour.MAKEFILE])
    wanted = [f for f in sources.kernel_files if f.endswith(_COMPILED_SUFFIXES) and ".cu." not in f]
    edit = add_op_files(old, wanted + list(sources.op_definition_files), file_name=str(root / OP_FILES_LIST))
    edits = [FileEdit(OP_FILES_LIST, old, edit.text, edit.added)] if edit.changed else []
    return edits, []


def _bazel_edits(root: Path, sources: NeededSources) -> tuple[list[FileEdit], list[str]]:
    old = _read_build_file(root, _BUILD_LISTS[Flavour.BAZEL])
    compiled = _mobile_sources(root, old)  # also through labels into other packages
    notes: list[str] = []
    kernel_sources: list[str] = []
    headers: list[str] = []
    for path in sources.kernel_files:
        if not path.endswith(_COMPILED_SUFFIXES) or ".cu." in path or path in compiled:
            continue
        entry = _kernels_entry(root, path)
        if entry is None:
            notes.append(f"{path} is outside {KERNELS_PACKAGE}; add it to the mobile build by hand")
        else:
            kernel_sources.append(entry)
    for path in sources.headers:
        if path in compiled:
            continue
        entry = _kernels_entry(root, path)
        if entry is not None and path.endswith((".h", ".hpp")):
            headers.append(entry)
    edit = add_kernel_sources(
        old,
        sources=kernel_sources,
        headers=headers,
        family=detect_family(old, str(root / KERNELS_BUILD)),
        file_name=str(root / KERNELS_BUILD),
    )
    added = tuple(entry for values in edit.added.values() for entry in values)
    return ([FileEdit(KERNELS_BUILD, old, edit.text, added)] if edit.changed else []), notes


def _kernels_entry(root: Path, path: str) -> str | None:
    """The kernels/BUILD list entry for ``path``, or None when it is outside the kernels tree."""
    if not path.startswith(KERNELS_PACKAGE + "/"):
        return None
    package = posixpath.dirname(path)
    while package != KERNELS_PACKAGE and not _is_package(root / package):
        package = posixpath.dirname(package)
    return entry_for_path(path, package)


def _is_package(directory: Path) -> bool:
    return (directory / "BUILD").is_file() or (directory / "BUILD.bazel").is_file()


@dataclass(frozen=True)
class _BuildList:
    """A tree flavour's list of what its mobile build compiles: the file, what it compiles, and
    the edits that make it compile the needed sources."""

    flavour: Flavour
    path: str
    """Repository path of the list."""
    compiled: Callable[[Path, str], frozenset[str]]
    """(tree root, the list's text) -> repository paths the build compiles."""
    edits: Callable[[Path, NeededSources], tuple[list[FileEdit], list[str]]]
    """(tree root, needed sources) -> the edits of the list, and notes on what they cannot do."""
    missing_hint: str


_BUILD_LISTS: dict[Flavour, _BuildList] = {
    Flavour.MAKEFILE: _BuildList(Flavour.MAKEFILE, OP_FILES_LIST, _listed, _makefile_edits,
                                 "TF 2.1+ has no contrib Makefile; use --flavour bazel"),
    Flavour.BAZEL: _BuildList(Flavour.BAZEL, KERNELS_BUILD, _mobile_sources, _bazel_edits,
                              "is --source the top of a TensorFlow checkout?"),
}
"""The tree flavours' build lists (:data:`~tfbuild.flavour.TREE_FLAVOURS`)."""
