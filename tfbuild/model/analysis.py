"""The ops and kernel classes a set of models needs: the first step of every tfbuild build.

Kernel classes are looked up exactly the way TensorFlow's own
``tensorflow/python/tools/selective_registration_header_lib.py`` does it: which class would the
installed TensorFlow's kernel registry (``_pywrap_kernel_registry.TryFindKernelClass``) run each
NodeDef with on CPU. That keeps tfbuild's header identical to TF's for the same GraphDefs. The
registry is consulted through tfbuild's cached copy of it (:mod:`tfbuild.model.kernel_registry`),
by TensorFlow's own selection rules, so the analysis itself never imports TensorFlow.

Where TF's tool prints a warning and silently drops a node that has no CPU kernel (an op from a
custom library that was not loaded, a function body whose attrs are still ``$T`` placeholders,
a dtype the CPU kernels do not cover), tfbuild keeps going the same way but records a
:class:`Problem`: a binary built without that kernel fails on the device, and the release
engineer should hear about it before the build, not from a crash report.

One deliberate difference: a node pinned to another device (``/device:GPU:0``, common in graphs
exported on a GPU workstation) is looked up on CPU. TF's tool would return the GPU kernel class
(or nothing), which is never what a CPU-only mobile binary needs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.benchmark import BenchmarkCommand, benchmark_command
from tfbuild.model.formats import EVERYTHING, LoadedModel, ModelFormat, load_model
from tfbuild.model.graph_summary import GraphSummary, summarize_graph, summary_dict
from tfbuild.model.kernel_registry import load_kernel_registry
from tfbuild.model.names import is_valid_kernel_class, is_valid_op_name
from tfbuild.model.protos import message_class
from tfbuild.model.scope import ModelScope

OPS_WITHOUT_KERNEL_ALLOWLIST = frozenset({"AccumulateNV2"})
"""Ops kept without a kernel, as in TF's tool: AccumulateNV2 is rewritten away at runtime."""


_NOT_FLEX = (
    "TFLite custom op {code!r} is not a Select-TF (Flex) op; no TensorFlow kernel provides it, "
    "the app must register its own TFLite kernel"
)
_DTYPE_ATTRS = ("T", "dtype")
_DEVICE_TYPE = re.compile(r"/(?:device:)?([A-Za-z_]+):(?:[0-9]+|\*)$")


@dataclass(frozen=True)
class ModelInfo:
    """A model input: its path as given, the format found in it, and its content digest.
    ``scope`` names the part of a SavedModel analysed (``""``: all of it); ``needs_no_kernels``
    marks a TFLite model of builtin ops only, which TFLite runs without any TensorFlow kernel."""

    path: Path
    format: str
    sha256: str
    scope: str = ""
    needs_no_kernels: bool = False
    summaries: tuple[GraphSummary, ...] = ()
    """What ``summarize_graph`` tells of each of its GraphDefs (none for TFLite and ops lists)."""

    def benchmark(self, summary: GraphSummary) -> BenchmarkCommand | None:
        """The benchmark program's command for the graph ``summary`` tells of (None: the program
        does not read this kind of model)."""
        return benchmark_command(self.path, self.format, summary)


@dataclass(frozen=True)
class OpRequirement:
    """One op the models use: the CPU kernel classes its nodes need (which encode the dtypes,
    e.g. ``BinaryOp<CPUDevice, functor::add<float>>``), the ``T``/``dtype`` attr values seen, how
    many nodes use it and in which models. ``kernel_classes`` is empty when no node found one.

    ``kept_without_kernel`` says the op is registered even where no kernel class names it, as
    TF's tool does for the allowlisted AccumulateNV2 and for ops-list entries without a kernel.
    """

    op: str
    kernel_classes: tuple[str, ...]
    dtypes: tuple[str, ...]
    node_count: int
    models: tuple[str, ...]
    kept_without_kernel: bool = False
    type_attrs: tuple[tuple[str, str], ...] = ()
    """``(attr, dtype)`` of every type attr the op's registrations constrain, over its nodes
    (``("Tidx", "int32")``): what a tree's kernels are chosen by (:mod:`tfbuild.tree.retarget`)."""


@dataclass(frozen=True)
class Problem:
    """A node the header cannot provide a kernel for, and why."""

    op: str
    node: str
    model: str
    message: str


@dataclass(frozen=True)
class Analysis:
    """What a set of models needs. ``tensorflow_version`` is the TF whose registry named the
    kernel classes: class names change between TF versions, so the header records it."""

    models: tuple[ModelInfo, ...]
    ops: tuple[OpRequirement, ...]
    problems: tuple[Problem, ...]
    tensorflow_version: str = ""

    def ops_and_kernels(self) -> list[tuple[str, str | None]]:
        """``(op, kernel class)`` pairs in the shape and order of TF's ``get_ops_and_kernels``
        (before default ops are added): one pair per distinct class, ``(op, None)`` for ops
        kept without a kernel, nothing for other ops without a kernel (those are problems)."""
        pairs: set[tuple[str, str | None]] = set()
        for requirement in self.ops:
            pairs.update((requirement.op, k) for k in requirement.kernel_classes)
            if requirement.kept_without_kernel:
                pairs.add((requirement.op, None))
        return sorted(pairs, key=pair_sort_key)

    def notes(self) -> list[str]:
        """What the user should know besides the ops and problems, one line each."""
        return [
            f"{m.path}: a TFLite model of builtin ops only; it needs no TensorFlow kernels "
            "(the TFLite runtime alone runs it)"
            for m in self.models
            if m.needs_no_kernels
        ]

    def to_dict(self) -> dict[str, object]:
        """The machine-readable document printed by ``tfbuild analyze --json``. A model's
        ``scope`` and the document's ``notes`` appear only when there are some, so documents of
        whole models keep the shape earlier tfbuild versions wrote."""
        notes = self.notes()
        return {
            "tensorflow_version": self.tensorflow_version,
            "models": [
                {
                    "path": str(m.path), "format": m.format, "sha256": m.sha256,
                    **({"scope": m.scope} if m.scope else {}),
                    **({"graphs": [_graph_dict(m, summary) for summary in m.summaries]} if m.summaries else {}),
                }
                for m in self.models
            ],
            "ops": [
                {
                    "op": r.op,
                    "kernel_classes": list(r.kernel_classes),
                    "dtypes": list(r.dtypes),
                    "node_count": r.node_count,
                    "models": list(r.models),
                    "kept_without_kernel": r.kept_without_kernel,
                }
                for r in self.ops
            ],
            "problems": [
                {"op": p.op, "node": p.node, "model": p.model, "message": p.message}
                for p in self.problems
            ],
            **({"notes": notes} if notes else {}),
        }


def _graph_dict(model: ModelInfo, summary: GraphSummary) -> dict[str, object]:
    """One graph's summary as ``analyze --json`` prints it, with the benchmark program's command
    where the program reads the model (``argv`` and the ``note`` of a memmapped package)."""
    command = model.benchmark(summary)
    benchmark = {"argv": list(command.argv), "note": command.note} if command is not None else None
    return {**summary_dict(summary), **({"benchmark": benchmark} if benchmark is not None else {})}


def pair_sort_key(pair: tuple[str, str | None]) -> tuple[str, bool, str]:
    """Sort key matching Python's tuple order for TF's pairs, with None before any class."""
    return (pair[0], pair[1] is not None, pair[1] or "")


def analyze_models(
    models: Sequence[Path], op_libraries: Sequence[Path] = (), scope: ModelScope = EVERYTHING
) -> Analysis:
    """Load every model, look up the CPU kernel class of every node, and collect the result.

    ``op_libraries`` (custom-op ``.so`` files) are loaded into TensorFlow first so the app's own
    ops and kernels are found in the registry. ``scope`` narrows SavedModel and MetaGraph
    inputs to one MetaGraph or signature (:mod:`tfbuild.model.scope`); it is an error when no
    input is one.
    """
    _require_models(models)
    loaded = [load_model(Path(m), scope) for m in models]
    if not scope.everything and not any(m.scope for m in loaded):
        raise ConfigError(
            f"{', '.join(str(m) for m in models)}: no SavedModel or MetaGraph among them, the only models "
            "--tag and --signature select a part of",
            hint="drop --tag and --signature, or pass the SavedModel directory",
        )
    return analyze_loaded(loaded, op_libraries)


def analyze_loaded(models: Sequence[LoadedModel], op_libraries: Sequence[Path] = ()) -> Analysis:
    """:func:`analyze_models` of models already loaded (:func:`~tfbuild.model.formats.load_model`),
    for callers that looked at them first and must not read them twice."""
    _require_models(models)
    registry = _KernelRegistry(op_libraries)
    collector = _Collector(registry)
    for model in models:
        collector.add_model(model)
    return collector.result(registry.tensorflow_version)


def _require_models(models: Sequence[object]) -> None:
    if not models:
        raise ConfigError(
            "no model given", hint="pass one or more model files or SavedModel directories"
        )


class _KernelRegistry:
    """The installed TensorFlow's op and kernel registries (custom op libraries loaded), read
    from tfbuild's copy of them (:mod:`tfbuild.model.kernel_registry`), not from TensorFlow."""

    def __init__(self, op_libraries: Sequence[Path]) -> None:
        self._registry = load_kernel_registry(op_libraries)
        self.tensorflow_version = self._registry.tensorflow_version
        self._attr_value = message_class("tensorflow.AttrValue")
        self._key_attrs: dict[str, tuple[str, ...]] = {}

    def key_attrs(self, op: str) -> tuple[str, ...]:
        """The attrs whose values decide a node's kernel class and dtypes; nodes of ``op`` that
        agree on them (and on the device) get the same answers."""
        found = self._key_attrs.get(op)
        if found is None:
            found = self._key_attrs[op] = tuple(dict.fromkeys((*self._registry.constrained_attrs(op), *_DTYPE_ATTRS)))
        return found

    def kernel_class(self, node_def: Any) -> str | None:
        """The CPU kernel class TF would instantiate for ``node_def``, as TF's tool finds it."""
        device = node_def.device
        device_type = _DEVICE_TYPE.search(device)
        if not device_type or device_type.group(1).upper() != "CPU":
            device = "/cpu:0"  # TF's tool only fills an empty device; see module doc
        return self._registry.kernel_class(node_def, device)

    def why_no_kernel(self, node_def: Any) -> str:
        if not self._registry.has_op(node_def.op):
            return (
                f"op {node_def.op} is not registered in TensorFlow {self.tensorflow_version} "
                "(a custom op? pass its library with --op-library)"
            )
        for name, value in sorted(node_def.attr.items()):
            if value.placeholder:
                return (
                    f"attr {name} is the function placeholder ${value.placeholder}; the kernel "
                    "is only known when the function is instantiated"
                )
        attrs = ", ".join(f"{k}={v}" for k, v in self.dtypes(node_def)) or "these attrs"
        return f"no CPU kernel registered for {node_def.op} with {attrs}"

    def dtypes(self, node_def: Any) -> list[tuple[str, str]]:
        """``(attr, dtype name)`` for the node's ``T``/``dtype`` attrs (lists flattened)."""
        return self._type_values(node_def, _DTYPE_ATTRS)

    def type_attrs(self, node_def: Any) -> list[tuple[str, str]]:
        """``(attr, dtype name)`` for every type attr a registration of the node's op constrains
        (``T``, ``Tidx``, ``out_type``...): what a tree's registrations are matched on."""
        return self._type_values(node_def, self.key_attrs(node_def.op))

    def _type_values(self, node_def: Any, names: Iterable[str]) -> list[tuple[str, str]]:
        found = []
        for name in names:
            # SavedModels strip attrs that hold their default value; the op's default applies.
            if name in node_def.attr:
                value = node_def.attr[name]
            else:
                value = self._registry.default(node_def.op, name, self._attr_value)
                if value is None:
                    continue
            kind = value.WhichOneof("value")
            types = [value.type] if kind == "type" else list(value.list.type) if kind == "list" else []
            found += [(name, self._registry.dtype_name(enum)) for enum in types]
        return found


@dataclass
class _OpTally:
    kernel_classes: set[str] = field(default_factory=set)
    dtypes: set[str] = field(default_factory=set)
    type_attrs: set[tuple[str, str]] = field(default_factory=set)
    node_count: int = 0
    models: dict[str, None] = field(default_factory=dict)  # insertion-ordered set
    kept_without_kernel: bool = False


@dataclass(frozen=True)
class _NodeKind:
    """What every node of one op, device and set of kernel-deciding attr values gets: a graph of
    thousands of nodes has a few dozen kinds, and each kind is looked up once."""

    op: str
    kernel_class: str | None
    dtypes: tuple[str, ...]
    type_attrs: tuple[tuple[str, str], ...] = ()

    @property
    def has_problem(self) -> bool:
        return not self.kernel_class and self.op not in OPS_WITHOUT_KERNEL_ALLOWLIST


class _Collector:
    def __init__(self, registry: _KernelRegistry) -> None:
        self._registry = registry
        self._models: list[ModelInfo] = []
        self._ops: dict[str, _OpTally] = defaultdict(_OpTally)
        self._problems: list[Problem] = []
        self._kinds: dict[tuple[Any, ...], _NodeKind] = {}

    def add_model(self, model: LoadedModel) -> None:
        needs_no_kernels = model.format is ModelFormat.TFLITE and not model.flex_nodes and not model.tflite_custom_ops
        summaries = tuple(summarize_graph(graph_def) for graph_def in model.graph_defs)
        self._models.append(
            ModelInfo(model.path, model.format.value, model.sha256, model.scope, needs_no_kernels, summaries)
        )
        label = str(model.path)
        functions = frozenset(f.signature.name for graph_def in model.graph_defs for f in graph_def.library.function)
        for where, nodes in model.node_lists():
            self._add_nodes(model, label, where, nodes, functions=functions)
        for source in model.flex_nodes:
            self._add_nodes(model, label, source.where, (source.node_def,), name=source.name)
        for listed in model.listed_ops:
            _check_op_name(model.path, listed.op, "an ops list entry")
            if listed.kernel_class is not None and not is_valid_kernel_class(listed.kernel_class):
                raise InputFileError(
                    f"{model.path}: kernel class of {listed.op} contains a newline or NUL",
                    hint="fix the ops list",
                )
            tally = self._tally(listed.op, label, 1)
            if listed.kernel_class:
                tally.kernel_classes.add(listed.kernel_class)
            else:
                tally.kept_without_kernel = True
        for code in model.tflite_custom_ops:  # not TensorFlow ops: never in the header
            message = _NOT_FLEX.format(code=code)
            self._problems.append(Problem(code, "", label, message))

    def _tally(self, op: str, label: str, nodes: int) -> _OpTally:
        tally = self._ops[op]
        tally.node_count += nodes
        tally.models[label] = None
        return tally

    def _add_nodes(
        self, model: LoadedModel, label: str, where: str, nodes: Iterable[Any], name: str | None = None,
        *, functions: frozenset[str] = frozenset(),
    ) -> None:
        """Tally ``nodes`` (one graph's or function's, in order) by kind; problems are recorded
        per node, in node order. ``name`` overrides the node's own (Flex NodeDefs carry none).
        A node whose op names one of the model's ``functions`` is a call of it, which TensorFlow
        runs with no kernel of its own (the function's nodes are tallied as the function's)."""
        counts: dict[tuple[Any, ...], int] = {}
        key_attrs = self._registry.key_attrs
        for node in nodes:
            op = node.op
            if op in functions:
                if not _FUNCTION_NAME.match(op):
                    _check_op_name(model.path, op, f"node {_node_label(where, node.name)!r}")
                continue
            attrs = node.attr
            key = (op, node.device, *[attrs[n].SerializeToString() if n in attrs else None for n in key_attrs(op)])
            kind = self._kinds.get(key)
            if kind is None:
                node_label = _node_label(where, node.name if name is None else name)
                kind = self._kinds[key] = self._kind(model, node_label, node)
            counts[key] = counts.get(key, 0) + 1
            if kind.has_problem:
                message = self._registry.why_no_kernel(node)  # reads every attr: per node
                node_label = _node_label(where, node.name if name is None else name)
                self._problems.append(Problem(op, node_label, label, message))
        for key, count in counts.items():
            kind = self._kinds[key]
            tally = self._tally(kind.op, label, count)
            tally.dtypes.update(kind.dtypes)
            tally.type_attrs.update(kind.type_attrs)
            if kind.kernel_class:
                tally.kernel_classes.add(kind.kernel_class)
            elif not kind.has_problem:
                tally.kept_without_kernel = True

    def _kind(self, model: LoadedModel, node_label: str, node_def: Any) -> _NodeKind:
        _check_op_name(model.path, node_def.op, f"node {node_label!r}")
        dtypes = tuple(dtype for _, dtype in self._registry.dtypes(node_def))
        type_attrs = tuple(self._registry.type_attrs(node_def))
        return _NodeKind(node_def.op, self._registry.kernel_class(node_def), dtypes, type_attrs)

    def result(self, tensorflow_version: str) -> Analysis:
        ops = tuple(
            OpRequirement(
                op=op,
                kernel_classes=tuple(sorted(t.kernel_classes)),
                dtypes=tuple(sorted(t.dtypes)),
                node_count=t.node_count,
                models=tuple(t.models),
                kept_without_kernel=t.kept_without_kernel,
                type_attrs=tuple(sorted(t.type_attrs)),
            )
            for op, t in sorted(self._ops.items())
        )
        return Analysis(tuple(self._models), ops, tuple(self._problems), tensorflow_version)


_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
"""What TensorFlow accepts as a function's name (a node calling one is named by it)."""


def _node_label(where: str, name: str) -> str:
    return name if where == "graph" else f"{where}: {name}"


def _check_op_name(path: Path, op: str, where: str) -> None:
    if not is_valid_op_name(op):
        raise InputFileError(
            f"{path}: {where} has op name {op!r}, which is not a valid TensorFlow op name",
            hint="the model is corrupt or crafted; re-export it",
        )
