"""The tree's own kernel class strings for the ops a model needs.

The analysis step asks the *installed* TensorFlow which kernel classes a model's nodes use, but
a header is compiled into the *tree* being built, and class strings change between versions:
for the same MatMul node TF 2.21 names ``BatchMatMulOp<CPUDevice, float, float, float, true>``
and TF 1.12 registers ``MatMulOp<CPUDevice, float, false >``. A header written with the
installed names silently compiles MatMul out of a TF 1.12 build. So the header is written from
the tree's registrations (the kernel index): for each needed op, the classes of the tree's CPU
kernels whose type constraints fit the dtypes the model uses, else (as TensorFlow's lookup falls
back) those of its DEFAULT kernels. An op the tree has no CPU kernel
for is reported, never dropped quietly, and when the dtypes match no registration all of the
op's classes are kept: a larger binary is better than a missing kernel on the device. Each
installed class the tree does not register is reported as *renamed* (the tree has a kernel for
that op and dtype under another name, which the header now names) or *dropped* (it has none).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tfbuild.model.analysis import Analysis, Problem
from tfbuild.tree.kernel_index import KernelIndex, KernelRegistration, build_kernel_index, lookup_order
from tfbuild.tree.needs import squash

# Canonical names shared by TF dtype names ("float32", "DT_FLOAT") and C++ type names in
# type constraints ("float", "Eigen::half", "::tensorflow::int32" -> "int32").
_DTYPE_ALIASES = {
    "float32": "float", "float": "float", "float64": "double", "double": "double",
    "float16": "half", "half": "half", "bfloat16": "bfloat16",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    # TF 2.x spells its integer classes with the <cstdint> names (functor::add<int32_t>).
    "int8_t": "int8", "int16_t": "int16", "int32_t": "int32", "int64_t": "int64",
    "uint8_t": "uint8", "uint16_t": "uint16", "uint32_t": "uint32", "uint64_t": "uint64",
    "bool": "bool", "string": "string", "tstring": "string",
    "complex64": "complex64", "complex128": "complex128",
    "qint8": "qint8", "quint8": "quint8", "qint16": "qint16", "quint16": "quint16", "qint32": "qint32",
    "resource": "resource", "resourcehandle": "resource", "variant": "variant",
    # The narrow types TF 2.1x added (float8 since 2.13, int4 since 2.14, float4 in 2.21): a
    # registration for one of them must not be taken as fitting any dtype.
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2", "float8_e4m3fnuz": "float8_e4m3fnuz",
    "float8_e4m3b11fnuz": "float8_e4m3b11fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
    "float4_e2m1fn": "float4_e2m1fn", "int4": "int4", "uint4": "uint4", "int2": "int2", "uint2": "uint2",
}


@dataclass(frozen=True)
class RenamedClass:
    """An installed kernel class the tree registers under another name for the same op and dtype."""

    op: str
    installed: str
    tree: tuple[str, ...]
    """The tree's classes that replace it (those of the op's chosen kernels that fit its dtype)."""


@dataclass(frozen=True)
class RetargetResult:
    """The tree's (op, kernel class) pairs for the needed ops, and what could not be matched."""

    ops_and_kernels: tuple[tuple[str, str], ...]
    """Sorted, unique (op, class) pairs of the tree's CPU kernels."""
    missing_ops: tuple[str, ...]
    """Needed ops for which the tree registers no CPU kernel at all."""
    dtype_fallback_ops: tuple[str, ...]
    """Ops whose dtypes matched none of their registrations; all their classes were kept."""
    foreign_classes: tuple[str, ...]
    """Classes the installed TensorFlow named that this tree never registers (informational)."""
    renamed_classes: tuple[RenamedClass, ...] = ()
    """Installed classes the op does not register in the tree, replaced by the tree's names."""
    dropped_classes: tuple[tuple[str, str], ...] = ()
    """(op, installed class) pairs with no counterpart: the tree registers no kernel of that op
    (a missing op), or none for the dtype the class is for."""


def canonical_dtype(name: str) -> str | None:
    """The shared name of a TF dtype (``float32``, ``DT_FLOAT``, ``tf.float32``,
    ``DT_FLOAT_REF``) or a C++ constraint type (``float``, ``Eigen::half``); None if unknown."""
    text = name.strip()
    for prefix in ("tf.", "::tensorflow::", "tensorflow::", "Eigen::", "::"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text.startswith("DT_"):
        text = text[3:]
        if text.endswith("_REF"):
            text = text[:-4]
    return _DTYPE_ALIASES.get(text.lower())


# The attrs whose values the analysis reports as an op's dtypes (tfbuild.model.analysis).
DTYPE_ATTRS = ("T", "dtype")


def _fits(registration: KernelRegistration, dtypes: set[str],
          type_attrs: Collection[tuple[str, str]] = ()) -> bool:
    """The registration's type constraints allow what the op's nodes use (an attr listed twice
    names alternatives). With ``type_attrs`` (``(attr, dtype)`` of every constrained type attr,
    as the analysis reads them) each constrained attr the nodes set must allow one of its
    values, ``Tidx`` as much as ``T``; without, only ``T``/``dtype`` are checked against
    ``dtypes``. A type tfbuild cannot name never excludes a registration."""
    allowed: dict[str, set[str | None]] = {}
    for attr, cpp_type in registration.type_constraints:
        allowed.setdefault(attr, set()).add(canonical_dtype(cpp_type))
    seen: dict[str, set[str | None]] = {}
    for attr, dtype in type_attrs:
        seen.setdefault(attr, set()).add(canonical_dtype(dtype))
    for attr, choices in allowed.items():
        if None in choices:
            continue
        if attr in seen:
            if None not in seen[attr] and not choices & seen[attr]:
                return False
        elif attr in DTYPE_ATTRS and dtypes and not choices & dtypes:
            return False
    return True


def retarget_ops_and_kernels(
    needed: Sequence[tuple[str, str | None]],
    dtypes_by_op: Mapping[str, Collection[str]],
    index: KernelIndex,
    type_attrs_by_op: Mapping[str, Collection[tuple[str, str]]] | None = None,
) -> RetargetResult:
    """The tree's (op, class) pairs for ``needed`` (``Analysis.ops_and_kernels()``: op names
    with the installed TF's class names).

    Where the tree registers every class named for an op, exactly those are kept (an ops list
    or a header from the matching TF version selects precisely). Otherwise the op's classes
    are chosen by dtype, as below.

    ``dtypes_by_op`` holds the ``T``/``dtype`` values seen on each op's nodes, as TF names
    (``OpRequirement.dtypes``); an op without an entry (or with only unknown names) keeps every
    CPU class the tree registers for it. ``type_attrs_by_op`` (``OpRequirement.type_attrs``)
    narrows the choice by every constrained type attr, ``Tidx`` and ``out_type`` included.
    """
    ops = sorted({op for op, _ in needed})
    pairs: set[tuple[str, str]] = set()
    missing = []
    fallback = []
    named: dict[str, set[str]] = {}
    chosen_by_op: dict[str, list[KernelRegistration]] = {}
    for op, kernel_class in needed:
        if kernel_class:
            named.setdefault(op, set()).add(squash(kernel_class))
    for op in ops:
        registrations = index.registrations_for_op(op)
        if not registrations:
            missing.append(op)
            continue
        spelled = {squash(r.kernel_class): r.kernel_class for r in registrations}
        if named.get(op) and named[op] <= spelled.keys():
            # The tree registers exactly the classes asked for: keep those, no more.
            pairs.update((op, spelled[squashed]) for squashed in named[op])
            continue
        seen = {c for c in (canonical_dtype(d) for d in dtypes_by_op.get(op, ())) if c}
        attrs = tuple((type_attrs_by_op or {}).get(op, ()))
        # As TensorFlow's lookup: the CPU kernels that fit, else the DEFAULT ones that fit.
        fits = functools.partial(_fits, dtypes=seen, type_attrs=attrs)
        chosen = list(lookup_order(registrations, fits)) if seen or attrs else list(registrations)
        if not chosen:
            fallback.append(op)
            chosen = list(registrations)
        chosen_by_op[op] = chosen
        pairs.update((op, r.kernel_class) for r in chosen)
    renamed, dropped = _renamed_and_dropped(needed, index, chosen_by_op)
    installed = [cls for _, cls in needed if cls]
    return RetargetResult(
        ops_and_kernels=tuple(sorted(pairs)),
        missing_ops=tuple(missing),
        dtype_fallback_ops=tuple(fallback),
        foreign_classes=unregistered_classes(installed, index),
        renamed_classes=renamed,
        dropped_classes=dropped,
    )


def _renamed_and_dropped(
    needed: Sequence[tuple[str, str | None]],
    index: KernelIndex,
    chosen_by_op: Mapping[str, Sequence[KernelRegistration]],
) -> tuple[tuple[RenamedClass, ...], tuple[tuple[str, str], ...]]:
    """Sort the installed classes an op does not register in the tree: renamed when one of the
    op's chosen tree kernels fits the dtype the class is for (read from its template arguments;
    any chosen kernel when it names none), else dropped."""
    renamed: dict[tuple[str, str], RenamedClass] = {}
    dropped: dict[tuple[str, str], tuple[str, str]] = {}
    for op, kernel_class in needed:
        if not kernel_class:
            continue
        key = (op, squash(kernel_class))
        if key in renamed or key in dropped:
            continue
        registered = {squash(r.kernel_class) for r in index.registrations_for_op(op)}
        if key[1] in registered:
            continue
        dtypes = class_dtypes(kernel_class)
        fitting = [r for r in chosen_by_op.get(op, ()) if not dtypes or _fits(r, dtypes)]
        if fitting:
            replacements = tuple(dict.fromkeys(r.kernel_class for r in fitting))
            renamed[key] = RenamedClass(op, kernel_class, replacements)
        else:
            dropped[key] = (op, kernel_class)
    return tuple(renamed.values()), tuple(dropped.values())


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_:]*")


def class_dtypes(kernel_class: str) -> set[str]:
    """The dtypes a kernel class string is instantiated for, read from its template arguments
    (``BatchMatMulOp<CPUDevice, float, float, float, true>`` -> ``{"float"}``); empty for a
    class without any (``ConstantOp``)."""
    _, bracket, arguments = kernel_class.partition("<")
    if not bracket:
        return set()
    return {dtype for dtype in map(canonical_dtype, _IDENTIFIER.findall(arguments)) if dtype}


def unregistered_classes(kernel_classes: Iterable[str], index: KernelIndex) -> tuple[str, ...]:
    """The given classes no registration of the tree has, compared without spaces (as the
    header's ``isequal`` skips them); in the order given, each once."""
    registered = {squash(r.kernel_class) for r in index.registrations}
    out: list[str] = []
    for kernel_class in kernel_classes:
        if squash(kernel_class) not in registered and kernel_class not in out:
            out.append(kernel_class)
    return tuple(out)


def retarget_analysis(analysis: Analysis, index: KernelIndex, *, tree_name: str) -> tuple[Analysis, RetargetResult]:
    """``analysis`` with every op's kernel classes replaced by the tree's own (see
    :func:`retarget_ops_and_kernels`), so a header rendered from it selects the kernels the tree
    actually registers. Ops the tree has no CPU kernel for become problems: they would fail on
    the device, and the user hears it now. ``tree_name`` (a path or commit, see :func:`tree_name`)
    names the tree in those problems.
    """
    result = retarget_ops_and_kernels(
        analysis.ops_and_kernels(), {r.op: r.dtypes for r in analysis.ops}, index,
        {r.op: r.type_attrs for r in analysis.ops},
    )
    classes_by_op: dict[str, list[str]] = {}
    for op, kernel_class in result.ops_and_kernels:
        classes_by_op.setdefault(op, []).append(kernel_class)
    ops = tuple(
        replace(r, kernel_classes=tuple(classes_by_op.get(r.op, ())) if r.kernel_classes else ())
        for r in analysis.ops
    )
    missing = tuple(
        Problem(
            op=r.op,
            node="*",
            model=", ".join(r.models),
            message=f"the source tree {tree_name} registers no CPU kernel for this op",
        )
        for r in analysis.ops
        if r.op in result.missing_ops
    )
    retargeted = replace(
        analysis,
        ops=ops,
        problems=analysis.problems + missing,
        # Not the tree's path or commit: every kernel includes the header, so a header that named
        # them would make every object of every commit and checkout directory a cache miss.
        tensorflow_version=f"source tree (not the installed {analysis.tensorflow_version})",
    )
    return retargeted, result


def retarget_to_tree(
    analysis: Analysis, source: Path, *, cache_dir: Path | None = None
) -> tuple[Analysis, RetargetResult]:
    """:func:`retarget_analysis` against the tree at ``source`` (its kernel index, cached)."""
    index = build_kernel_index(source, cache_dir=cache_dir)
    return retarget_analysis(analysis, index, tree_name=tree_name(index, source))


def tree_name(index: KernelIndex, source: Path) -> str:
    """How a header names the tree its class names come from: the indexed commit, else the path."""
    return index.tree_commit[:12] if index.tree_commit else str(source)


def retarget_notes(result: RetargetResult) -> list[str]:
    """What the user should know about a retargeting, one line each."""
    notes = [
        f"{op}: the model's dtypes match none of the tree's kernels; keeping all of them"
        for op in result.dtype_fallback_ops
    ]
    if result.renamed_classes:
        first = result.renamed_classes[0]
        more = f" (and {len(first.tree) - 1} more)" if len(first.tree) > 1 else ""
        notes.append(
            f"{len(result.renamed_classes)} kernel class name(s) of the installed TensorFlow are spelled "
            f"differently in the tree and were replaced by the tree's, e.g. {first.op}: {first.installed} -> "
            f"{first.tree[0]}{more}"
        )
    if result.dropped_classes:
        op, kernel_class = result.dropped_classes[0]
        notes.append(
            f"{len(result.dropped_classes)} kernel class(es) of the installed TensorFlow were dropped: the tree "
            f"registers no kernel for that op and dtype, e.g. {op}: {kernel_class}"
        )
    return notes
