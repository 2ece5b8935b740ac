"""Custom-op sources read, not compiled: what ``tfbuild build --dry-run`` knows of an op library.

The real build of an op library first compiles its sources for this machine, so that TensorFlow
can load them and the analysis asks TensorFlow's registry which kernel class each node runs, as
for TensorFlow's own ops. A dry run compiles nothing. It reads the sources instead, with the
preprocessor scanner the kernel index reads a TensorFlow tree with (:mod:`tfbuild.cpp.scan`):
``REGISTER_KERNEL_BUILDER`` is expanded through the file's own macros and its class argument
spelled as the compiler's ``#__VA_ARGS__`` spells it (``ExampleScaleOp<CPUDevice, float>``),
and ``REGISTER_OP`` is read by the same scanner in its op-definition mode. Each custom op the models use
then gets the classes of its CPU kernels whose ``T``/``dtype`` constraints fit the dtypes its
nodes carry, chosen as a tree's kernels are (:func:`tfbuild.tree.retarget.retarget_ops_and_kernels`).

Where a node leaves its dtype to the op's default (unknown without the compiled op), every CPU
class of the op is kept: the dry run's header may then select more kernels than the real one,
never fewer, and the dry run says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tfbuild.cpp.scan import TreeReader
from tfbuild.errors import InputFileError
from tfbuild.model.analysis import Analysis, Problem
from tfbuild.tree.kernel_index import KernelIndex, KernelRegistration
from tfbuild.tree.needs import serves_cpu
from tfbuild.tree.retarget import DTYPE_ATTRS, retarget_ops_and_kernels


@dataclass(frozen=True)
class OpSourcesScan:
    """What the op sources register, as read from their text."""

    sources: tuple[Path, ...]
    ops: frozenset[str]
    """Names given to ``REGISTER_OP``."""
    kernels: KernelIndex
    """Their CPU kernel registrations (``file`` is the source's path)."""
    notes: tuple[str, ...]
    """What the scanner could not read (a macro it cannot expand), per source."""


def scan_op_sources(sources: Sequence[Path]) -> OpSourcesScan:
    """Read ``sources`` (each with the headers beside it) for their ops and CPU kernels."""
    registrations: list[KernelRegistration] = []
    ops: set[str] = set()
    notes: list[str] = []
    for source in sources:
        path = Path(source)
        if not path.is_file():
            raise InputFileError(f"{path}: op source file not found", hint="check the path")
        defined = TreeReader(path.parent, reads="ops").scan(path.name)
        ops.update(found.op for found in defined.ops)
        scanned = TreeReader(path.parent).scan(path.name)
        notes += [f"{path}: {note}" for note in (*defined.notes, *scanned.notes)]
        registrations += [
            KernelRegistration(
                op=found.op, kernel_class=found.kernel_class, device=found.device,
                type_constraints=found.type_constraints, file=str(path), line=found.line, guard=found.guard,
            )
            for found in scanned.registrations
            if serves_cpu(found.device)
        ]
    index = KernelIndex(tree_commit=None, registrations=tuple(registrations), includes={})
    return OpSourcesScan(tuple(Path(s) for s in sources), frozenset(ops), index, tuple(notes))


def complete_analysis(analysis: Analysis, scan: OpSourcesScan) -> tuple[Analysis, list[str]]:
    """``analysis`` (made without the op library) with the custom ops' kernel classes from
    ``scan``, and notes saying which classes were read and where a guess was made.

    A custom op is one the analysis found no kernel for that the sources define or register a
    kernel for; its "not registered in TensorFlow" problems go. One the sources define but give
    no CPU kernel stays a problem, as it would in the real build.
    """
    custom = sorted(
        requirement.op
        for requirement in analysis.ops
        if not requirement.kernel_classes
        and not requirement.kept_without_kernel
        and (requirement.op in scan.ops or scan.kernels.registrations_for_op(requirement.op))
    )
    if not custom:
        return analysis, []
    chosen = retarget_ops_and_kernels(
        [(op, None) for op in custom], {r.op: r.dtypes for r in analysis.ops}, scan.kernels
    )
    classes: dict[str, list[str]] = {}
    for op, kernel_class in chosen.ops_and_kernels:
        classes.setdefault(op, []).append(kernel_class)
    ops = tuple(
        replace(r, kernel_classes=tuple(sorted(classes.get(r.op, ())))) if r.op in custom else r
        for r in analysis.ops
    )
    problems = [p for p in analysis.problems if p.op not in custom]
    problems += [
        Problem(r.op, "*", ", ".join(r.models), f"the op sources define {r.op} but register no CPU kernel for it")
        for r in analysis.ops
        if r.op in chosen.missing_ops
    ]
    notes = [f"{op}: {'; '.join(classes[op])}" for op in custom if op in classes]
    guessed = set(chosen.dtype_fallback_ops) | {
        r.op for r in analysis.ops if r.op in custom and not r.dtypes and _typed(scan.kernels, r.op)
    }
    notes += [
        f"{op}: no dtype of its nodes picks among its kernels (an attr left at the op's default is only "
        "known once the op is compiled); every CPU kernel of it is kept"
        for op in sorted(guessed)
    ]
    notes += list(scan.notes)
    return replace(analysis, ops=ops, problems=tuple(problems)), notes


def _typed(kernels: KernelIndex, op: str) -> bool:
    """Whether ``op``'s kernels differ by a ``T``/``dtype`` constraint (so dtypes would choose)."""
    return any(attr in DTYPE_ATTRS for r in kernels.registrations_for_op(op) for attr, _ in r.type_constraints)
