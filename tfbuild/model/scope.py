"""What of a SavedModel an app runs: one MetaGraph (by its tags) and one signature within it.

A SavedModel holds more than serving needs. Its MetaGraphs may differ by tag set (``serve``,
``train``), and each graph also holds what saving and restoring checkpoints takes (``SaveV2``,
``RestoreV2``, ``MergeV2Checkpoints``, ``ShardedFilename``...). Counting all of it keeps kernels
the app never runs. A :class:`ModelScope` narrows the analysis to what one signature runs:

- ``tags`` pick the MetaGraph whose tag set is exactly those tags, as TensorFlow's loader does;
  without them the only MetaGraph, or the only one holding the signature, is used;
- ``signature`` keeps the graph nodes its outputs depend on (data and control inputs, walked
  back), the library functions those nodes call or name in attrs (``While`` bodies,
  ``PartitionedCall`` targets), and the functions those call in turn. The init op the loader
  runs first (``__saved_model_init_op``, or TF1's ``saved_model_main_op``/``legacy_init_op``
  collections: table initialisers) counts too; the checkpoint restore op does not.

``outputs`` narrows any graph (a frozen GraphDef, a memmapped package, a MetaGraph) the same way
to what the named nodes depend on, as ``strip_unused_nodes`` does before a mobile build: training
leftovers (summaries, savers, a second head) drop out of the header. The default scope is
everything: every node of every MetaGraph.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.graph_summary import likely_outputs
from tfbuild.model.names import node_name

INIT_OP_SIGNATURE = "__saved_model_init_op"
_INIT_OP_COLLECTIONS = ("saved_model_main_op", "legacy_init_op")


@dataclass(frozen=True)
class ModelScope:
    """``tags``: the tag set of the MetaGraph to read (empty: choose as the module doc says).
    ``signature``: the signature whose outputs count (None: the whole MetaGraph)."""

    tags: tuple[str, ...] = ()
    signature: str | None = None
    outputs: tuple[str, ...] = ()
    """Node names (``softmax``, ``softmax:0`` and ``^softmax`` name the same node): keep what they
    depend on (empty: every node)."""

    @property
    def everything(self) -> bool:
        return not self.tags and self.signature is None and not self.outputs

    def describe(self, meta_graph: Any) -> str:
        """``signature serving_default of MetaGraph [serve]``: recorded with the model."""
        tags = _tag_list(meta_graph)
        if self.signature is None:
            return f"MetaGraph {tags}"
        return f"signature {self.signature} of MetaGraph {tags}"

    def describe_outputs(self) -> str:
        """``what outputs softmax, logits depend on``: recorded with the model."""
        return f"what {', '.join(node_name(name) for name in self.outputs)} depend(s) on"


def scoped_graph_defs(path: Path, meta_graphs: Sequence[Any], scope: ModelScope) -> tuple[tuple[Any, ...], str]:
    """The GraphDefs of ``meta_graphs`` that ``scope`` covers, and its description (``""`` for
    everything). ``path`` names the model in errors."""
    if scope.everything:
        return tuple(m.graph_def for m in meta_graphs), ""
    if not scope.tags and scope.signature is None:  # outputs alone: each graph narrowed to them
        return tuple(output_graph_def(path, m.graph_def, scope.outputs) for m in meta_graphs), scope.describe_outputs()
    meta_graph = _choose_meta_graph(path, meta_graphs, scope)
    graph_def = meta_graph.graph_def
    if scope.signature is not None:
        graph_def = signature_graph_def(path, meta_graph, scope.signature)
    described = scope.describe(meta_graph)
    if scope.outputs:
        graph_def = output_graph_def(path, graph_def, scope.outputs)
        described = f"{described}: {scope.describe_outputs()}"
    return (graph_def,), described


def output_graph_def(path: Path, graph_def: Any, outputs: Sequence[str]) -> Any:
    """A copy of ``graph_def`` with only what the nodes ``outputs`` depend on (see the module
    doc); a name the graph does not have is a :class:`ConfigError` listing likely outputs."""
    nodes = {node.name: node for node in graph_def.node}
    missing = sorted({node_name(name) for name in outputs} - set(nodes))
    if missing:
        sinks = [output.name for output in likely_outputs(graph_def)]
        raise ConfigError(
            f"{path}: --output-node {', '.join(missing)}: no such node in the graph",
            hint=f"its likely outputs: {', '.join(sinks[:8]) or 'none'}",
        )
    kept = _reachable_nodes(path, "--output-node", nodes, [node_name(name) for name in outputs])
    return _subgraph(graph_def, nodes, kept)


def _choose_meta_graph(path: Path, meta_graphs: Sequence[Any], scope: ModelScope) -> Any:
    if scope.tags:
        wanted = set(scope.tags)
        candidates = [m for m in meta_graphs if set(m.meta_info_def.tags) == wanted]
        if not candidates:
            raise ConfigError(
                f"{path}: no MetaGraph has the tags {sorted(wanted)}; its MetaGraphs have {_tag_sets(meta_graphs)}",
                hint="pass --tag once per tag of one of those sets",
            )
        return candidates[0]
    if len(meta_graphs) == 1:
        return meta_graphs[0]
    candidates = [m for m in meta_graphs if scope.signature in m.signature_def]
    if len(candidates) == 1:
        return candidates[0]
    raise ConfigError(
        f"{path}: {len(meta_graphs)} MetaGraphs ({_tag_sets(meta_graphs)}) and "
        f"{len(candidates) or 'none'} of them with signature {scope.signature!r}",
        hint="choose one with --tag",
    )


def signature_graph_def(path: Path, meta_graph: Any, signature: str) -> Any:
    """A copy of ``meta_graph``'s GraphDef with only what ``signature`` runs (see the module doc)."""
    graph_def = meta_graph.graph_def
    if signature not in meta_graph.signature_def or signature.startswith("__"):
        available = ", ".join(sorted(k for k in meta_graph.signature_def if not k.startswith("__"))) or "none"
        raise ConfigError(
            f"{path}: MetaGraph {_tag_list(meta_graph)} has no signature {signature!r} (it has: {available})",
            hint="pass --signature with one of those",
        )
    roots = list(_tensor_names(meta_graph.signature_def[signature].outputs.values()))
    if INIT_OP_SIGNATURE in meta_graph.signature_def:
        roots += _tensor_names(meta_graph.signature_def[INIT_OP_SIGNATURE].outputs.values())
    for collection in _INIT_OP_COLLECTIONS:
        if collection in meta_graph.collection_def:
            roots += meta_graph.collection_def[collection].node_list.value
    nodes = {node.name: node for node in graph_def.node}
    kept_nodes = _reachable_nodes(path, f"signature {signature!r}", nodes, [node_name(name) for name in roots])
    return _subgraph(graph_def, nodes, kept_nodes)


def _subgraph(graph_def: Any, nodes: Mapping[str, _Node], kept_nodes: set[str]) -> Any:
    """``graph_def`` with the nodes ``kept_nodes`` and the library functions they reach."""
    functions = {function.signature.name: function for function in graph_def.library.function}
    kept_functions = _reachable_functions(functions, (nodes[name] for name in kept_nodes))
    scoped = type(graph_def)()
    scoped.versions.CopyFrom(graph_def.versions)
    scoped.node.extend(node for node in graph_def.node if node.name in kept_nodes)
    scoped.library.function.extend(f for f in graph_def.library.function if f.signature.name in kept_functions)
    scoped.library.gradient.extend(
        g for g in graph_def.library.gradient
        if g.function_name in kept_functions and g.gradient_func in kept_functions
    )
    return scoped


class _Node(Protocol):
    """What the scoping reads of a ``NodeDef`` message (protobuf's classes are untyped)."""

    op: str
    input: Sequence[str]
    attr: Mapping[str, Any]
    """AttrValue messages by attribute name."""


class _Function(Protocol):
    """What the scoping reads of a ``FunctionDef`` message: its body's nodes."""

    node_def: Sequence[_Node]


def _reachable_nodes(path: Path, naming: str, nodes: Mapping[str, _Node], roots: Iterable[str]) -> set[str]:
    """The graph nodes the roots depend on, through data and control inputs."""
    kept: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        if name not in nodes:
            raise InputFileError(
                f"{path}: {naming} names tensor of node {name!r}, which the graph does not have",
                hint="re-export the SavedModel",
            )
        kept.add(name)
        pending += (node_name(text) for text in nodes[name].input)
    return kept


def _reachable_functions(functions: Mapping[str, _Function], nodes: Iterable[_Node]) -> set[str]:
    """The library functions ``nodes`` call (as ops or through func-valued attrs), transitively."""
    kept: set[str] = set()
    pending = [name for node in nodes for name in _called_functions(node, functions)]
    while pending:
        name = pending.pop()
        if name in kept or name not in functions:
            continue
        kept.add(name)
        for node in functions[name].node_def:
            pending += _called_functions(node, functions)
    return kept


def _called_functions(node: _Node, functions: Mapping[str, _Function]) -> Iterator[str]:
    if node.op in functions:
        yield node.op
    for value in node.attr.values():
        yield from _function_names(value)


def _function_names(value: Any) -> Iterator[str]:
    """Names of the functions an AttrValue refers to, nested ones included."""
    case = value.WhichOneof("value")
    if case == "func":
        funcs = [value.func]
    elif case == "list":
        funcs = list(value.list.func)
    else:
        return
    for func in funcs:
        yield func.name
        for nested in func.attr.values():
            yield from _function_names(nested)


def _tensor_names(tensor_infos: Iterable[Any]) -> Iterator[str]:
    """The tensor names of signature ``TensorInfo`` values, sparse and composite ones included."""
    for info in tensor_infos:
        encoding = info.WhichOneof("encoding")
        if encoding == "name":
            yield info.name
        elif encoding == "coo_sparse":
            sparse = info.coo_sparse
            yield from (sparse.values_tensor_name, sparse.indices_tensor_name, sparse.dense_shape_tensor_name)
        elif encoding == "composite_tensor":
            yield from _tensor_names(info.composite_tensor.components)


def _tag_list(meta_graph: Any) -> str:
    return "[" + ", ".join(meta_graph.meta_info_def.tags) + "]"


def _tag_sets(meta_graphs: Sequence[Any]) -> str:
    return ", ".join(_tag_list(m) for m in meta_graphs)
