"""The ops and kernel classes a set of models needs: the first step of every tfbuild build.

Kernel classes are looked up exactly the way TensorFlow's own
``tensorflow/python/tools/selective_registration_header_lib.py`` does it, by asking the installed
TensorFlow's kernel registry (``_pywrap_kernel_registry.TryFindKernelClass``) which class would
run each NodeDef on CPU. That keeps tfbuild's header identical to TF's for the same GraphDefs.

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

import os
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.formats import LoadedModel, NodeSource, load_model

OPS_WITHOUT_KERNEL_ALLOWLIST = frozenset({"AccumulateNV2"})
"""Ops kept without a kernel, as in TF's tool: AccumulateNV2 is rewritten away at runtime."""

_OP_NAME = re.compile(r"(?:_[A-Za-z0-9_>]*|[A-Z][A-Za-z0-9_]*(?:>[A-Z][A-Za-z0-9_]*)*)\Z")
"""TF's op-name grammar (``IsValidOpName`` in core/framework/op_def_util.cc): an upper-case
letter, then letters, digits and underscores, with ``>``-separated namespaces. TF accepts any
text after a leading ``_`` (internal ops); tfbuild narrows that to the same character set,
since every name ends up inside a C++ header."""

_NOT_FLEX = (
    "TFLite custom op {code!r} is not a Select-TF (Flex) op; no TensorFlow kernel provides it, "
    "the app must register its own TFLite kernel"
)
_DTYPE_ATTRS = ("T", "dtype")
_DEVICE_TYPE = re.compile(r"/(?:device:)?([A-Za-z_]+):(?:[0-9]+|\*)$")


def is_valid_op_name(name: str) -> bool:
    """Whether ``name`` follows TF's op-name grammar (see ``_OP_NAME``)."""
    return bool(_OP_NAME.match(name))


def is_valid_kernel_class(kernel_class: str) -> bool:
    """A kernel class string can go into a C string literal in a header on its own line."""
    return bool(kernel_class) and not any(c in kernel_class for c in "\n\r\0")


@dataclass(frozen=True)
class ModelInfo:
    """A model input: its path as given, the format found in it, and its content digest."""

    path: Path
    format: str
    sha256: str


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

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable document printed by ``tfbuild analyze --json``."""
        return {
            "tensorflow_version": self.tensorflow_version,
            "models": [
                {"path": str(m.path), "format": m.format, "sha256": m.sha256} for m in self.models
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
        }


def pair_sort_key(pair: tuple[str, str | None]) -> tuple[str, bool, str]:
    """Sort key matching Python's tuple order for TF's pairs, with None before any class."""
    return (pair[0], pair[1] is not None, pair[1] or "")


def analyze_models(models: Sequence[Path], op_libraries: Sequence[Path] = ()) -> Analysis:
    """Load every model, look up the CPU kernel class of every node, and collect the result.

    ``op_libraries`` (custom-op ``.so`` files) are loaded into TensorFlow first so the app's own
    ops and kernels are found in the registry.
    """
    _require_models(models)
    return analyze_loaded([load_model(Path(m)) for m in models], op_libraries)


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
    """The installed TensorFlow's op and kernel registries, with custom op libraries loaded."""

    def __init__(self, op_libraries: Sequence[Path]) -> None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        missing = [Path(p) for p in op_libraries if not Path(p).is_file()]
        if missing:
            raise InputFileError(
                f"{missing[0]}: op library not found", hint="build the custom-op .so first"
            )
        import tensorflow as tf
        from tensorflow.python.framework import dtypes, op_def_registry
        from tensorflow.python.util import _pywrap_kernel_registry

        for library in op_libraries:
            try:
                tf.load_op_library(str(Path(library).resolve()))  # dlopen ignores the cwd
            except Exception as error:  # tf.errors.NotFoundError for undefined symbols etc.
                reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
                raise InputFileError(
                    f"{library}: cannot load op library: {reason}",
                    hint="build it against the installed TensorFlow",
                ) from error
        self.tensorflow_version = tf.__version__
        self._find = _pywrap_kernel_registry.TryFindKernelClass
        self._op_def = op_def_registry.get
        self._as_dtype = dtypes.as_dtype

    def kernel_class(self, node_def: Any) -> str | None:
        """The CPU kernel class TF would instantiate for ``node_def``, as TF's tool finds it."""
        lookup = type(node_def)()
        lookup.CopyFrom(node_def)
        device_type = _DEVICE_TYPE.search(lookup.device)
        if not device_type or device_type.group(1).upper() != "CPU":
            lookup.device = "/cpu:0"  # TF's tool only fills an empty device; see module doc
        found = self._find(lookup.SerializeToString())
        return found.decode("utf-8") if found else None

    def why_no_kernel(self, node_def: Any) -> str:
        if self._op_def(node_def.op) is None:
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
        found = []
        op_def = self._op_def(node_def.op)
        defaults = {a.name: a.default_value for a in op_def.attr} if op_def else {}
        for name in _DTYPE_ATTRS:
            # SavedModels strip attrs that hold their default value; the op's default applies.
            value = node_def.attr[name] if name in node_def.attr else defaults.get(name)
            if value is None:
                continue
            types = [value.type] if value.WhichOneof("value") == "type" else list(value.list.type)
            for enum in types:
                try:
                    found.append((name, self._as_dtype(enum).name))
                except (TypeError, ValueError):
                    found.append((name, f"type#{enum}"))
        return found


@dataclass
class _OpTally:
    kernel_classes: set[str] = field(default_factory=set)
    dtypes: set[str] = field(default_factory=set)
    node_count: int = 0
    models: dict[str, None] = field(default_factory=dict)  # insertion-ordered set
    kept_without_kernel: bool = False


class _Collector:
    def __init__(self, registry: _KernelRegistry) -> None:
        self._registry = registry
        self._models: list[ModelInfo] = []
        self._ops: dict[str, _OpTally] = defaultdict(_OpTally)
        self._problems: list[Problem] = []

    def add_model(self, model: LoadedModel) -> None:
        self._models.append(ModelInfo(model.path, model.format.value, model.sha256))
        label = str(model.path)
        for source in model.node_sources():
            self._add_node(model, label, source)
        for listed in model.listed_ops:
            _check_op_name(model.path, listed.op, "an ops list entry")
            if listed.kernel_class is not None and not is_valid_kernel_class(listed.kernel_class):
                raise InputFileError(
                    f"{model.path}: kernel class of {listed.op} contains a newline or NUL",
                    hint="fix the ops list",
                )
            tally = self._tally(listed.op, label)
            if listed.kernel_class:
                tally.kernel_classes.add(listed.kernel_class)
            else:
                tally.kept_without_kernel = True
        for code in model.tflite_custom_ops:  # not TensorFlow ops: never in the header
            message = _NOT_FLEX.format(code=code)
            self._problems.append(Problem(code, "", label, message))

    def _tally(self, op: str, label: str) -> _OpTally:
        tally = self._ops[op]
        tally.node_count += 1
        tally.models[label] = None
        return tally

    def _add_node(self, model: LoadedModel, label: str, source: NodeSource) -> None:
        node_def = source.node_def
        node = f"{source.where}: {source.name}" if source.where != "graph" else source.name
        _check_op_name(model.path, node_def.op, f"node {node!r}")
        tally = self._tally(node_def.op, label)
        tally.dtypes.update(dtype for _, dtype in self._registry.dtypes(node_def))
        kernel_class = self._registry.kernel_class(node_def)
        if kernel_class:
            tally.kernel_classes.add(kernel_class)
        elif node_def.op in OPS_WITHOUT_KERNEL_ALLOWLIST:
            tally.kept_without_kernel = True
        else:
            self._problems.append(
                Problem(node_def.op, node, label, self._registry.why_no_kernel(node_def))
            )

    def result(self, tensorflow_version: str) -> Analysis:
        ops = tuple(
            OpRequirement(
                op=op,
                kernel_classes=tuple(sorted(t.kernel_classes)),
                dtypes=tuple(sorted(t.dtypes)),
                node_count=t.node_count,
                models=tuple(t.models),
                kept_without_kernel=t.kept_without_kernel,
            )
            for op, t in sorted(self._ops.items())
        )
        return Analysis(tuple(self._models), ops, tuple(self._problems), tensorflow_version)


def _check_op_name(path: Path, op: str, where: str) -> None:
    if not is_valid_op_name(op):
        raise InputFileError(
            f"{path}: {where} has op name {op!r}, which is not a valid TensorFlow op name",
            hint="the model is corrupt or crafted; re-export it",
        )
