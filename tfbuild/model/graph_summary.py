"""What TensorFlow's ``summarize_graph`` tells about a graph, the first step of every mobile guide:
its likely inputs and outputs, how many constant parameters it carries, and which ops it uses.

The rules are the tool's (``tensorflow/tools/graph_transforms/summarize_graph_main.cc``):

- possible inputs: ``Placeholder`` nodes, with their ``dtype`` and ``shape`` attrs; variables
  (``Variable``, ``VariableV2``) are listed apart, a frozen graph has none;
- possible outputs: nodes no other node reads (data or control input), unless they are
  ``Const``, ``Assign``, ``NoOp`` or ``Placeholder``;
- const parameters: the elements of every ``Const`` tensor (tfbuild also counts the elements of
  ``ImmutableConst`` nodes, the constants of a memmapped package, and sums bytes by dtype);
- control edges: inputs written ``^name``;
- the op histogram: graph nodes and function-library nodes, most used first.

Only the graph's own nodes are searched for inputs and outputs, as the tool does; a SavedModel's
signatures say the same more reliably, and its GraphDefs are summarized one by one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from tfbuild.model.names import node_name
from tfbuild.model.tensor_values import shape_elements

UNLIKELY_OUTPUTS = frozenset({"Const", "Assign", "NoOp", "Placeholder"})
VARIABLE_OPS = frozenset({"Variable", "VariableV2"})
_DTYPE_BYTES = {
    1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 8: 8, 9: 8, 10: 1, 11: 1, 12: 1, 13: 4, 14: 2, 15: 2, 16: 2,
    17: 2, 18: 16, 19: 2, 22: 4, 23: 8,
}
"""Bytes per element of each fixed-size DataType (strings and resources have none)."""


@dataclass(frozen=True)
class GraphInput:
    """A placeholder (or variable): its name, dtype name and shape (None: unknown rank; -1 for
    an unknown dimension)."""

    name: str
    dtype: str
    shape: tuple[int, ...] | None

    @property
    def shape_text(self) -> str:
        """``1,96,96,3`` as the benchmark program's ``--input_layer_shape`` takes it."""
        return "" if self.shape is None else ",".join(str(size) for size in self.shape)


@dataclass(frozen=True)
class GraphOutput:
    name: str
    op: str


@dataclass(frozen=True)
class GraphSummary:
    inputs: tuple[GraphInput, ...]
    variables: tuple[GraphInput, ...]
    outputs: tuple[GraphOutput, ...]
    const_parameters: int
    const_bytes: dict[str, int]
    """Bytes of constant data by dtype name, largest first."""
    control_edges: int
    op_counts: tuple[tuple[str, int], ...]
    """Each op and how many nodes use it, most used first, then by name."""

    def benchmark_arguments(self, graph: str) -> tuple[str, ...]:
        """The arguments of TensorFlow's benchmark program for this graph, as the tool prints
        them (``--graph``, ``--input_layer`` ... ``--output_layer``; not its ``--show_flops``):
        :func:`tfbuild.model.benchmark.benchmark_command` makes the command line."""
        inputs = (*self.inputs, *self.variables)
        return (
            f"--graph={graph}",
            f"--input_layer={','.join(item.name for item in inputs)}",
            f"--input_layer_type={','.join(item.dtype.removeprefix('DT_').lower() for item in inputs)}",
            f"--input_layer_shape={':'.join(item.shape_text for item in inputs)}",
            f"--output_layer={','.join(item.name for item in self.outputs)}",
        )


def summarize_graph(graph_def: Any) -> GraphSummary:
    """The summary of one GraphDef message (see the module doc)."""
    from tfbuild.model.protos import data_type_name

    nodes = list(graph_def.node)
    const_parameters = 0
    const_bytes: Counter[str] = Counter()
    for node in nodes:
        counted = _constant(node)
        if counted is not None:
            elements, dtype = counted
            const_parameters += elements
            const_bytes[data_type_name(dtype) or str(dtype)] += elements * _DTYPE_BYTES.get(dtype, 0)
    ops = Counter(node.op for node in nodes)
    ops.update(node.op for function in graph_def.library.function for node in function.node_def)
    return GraphSummary(
        inputs=tuple(_input(node, data_type_name) for node in nodes if node.op == "Placeholder"),
        variables=tuple(_input(node, data_type_name) for node in nodes if node.op in VARIABLE_OPS),
        outputs=likely_outputs(graph_def),
        const_parameters=const_parameters,
        const_bytes=dict(sorted(const_bytes.items(), key=lambda item: (-item[1], item[0]))),
        control_edges=sum(name.startswith("^") for node in nodes for name in node.input),
        op_counts=tuple(sorted(ops.items(), key=lambda item: (-item[1], item[0]))),
    )


def likely_outputs(graph_def: Any) -> tuple[GraphOutput, ...]:
    """The nodes no other node reads, unless they are of :data:`UNLIKELY_OUTPUTS`."""
    consumed = {node_name(name) for node in graph_def.node for name in node.input}
    return tuple(
        GraphOutput(node.name, node.op)
        for node in graph_def.node if node.name not in consumed and node.op not in UNLIKELY_OUTPUTS
    )


def _input(node: Any, data_type_name: Any) -> GraphInput:
    dtype = node.attr["dtype"].type if "dtype" in node.attr else 0
    shape: tuple[int, ...] | None = None
    if "shape" in node.attr and not node.attr["shape"].shape.unknown_rank:
        shape = tuple(dim.size for dim in node.attr["shape"].shape.dim)
    return GraphInput(node.name, data_type_name(dtype) or "DT_INVALID", shape)


def _constant(node: Any) -> tuple[int, int] | None:
    """A constant node's element count and dtype: a ``Const``'s tensor, an ``ImmutableConst``'s
    shape attr (None for other nodes, and for shapes not fully known)."""
    if node.op == "Const" and "value" in node.attr:
        tensor = node.attr["value"].tensor
        shape, dtype = tensor.tensor_shape, tensor.dtype
    elif node.op == "ImmutableConst" and "shape" in node.attr:
        shape, dtype = node.attr["shape"].shape, node.attr["dtype"].type
    else:
        return None
    count = shape_elements(shape)
    return None if count is None else (count, dtype)


def summary_dict(summary: GraphSummary) -> dict[str, object]:
    """The summary as ``analyze --json`` prints it."""
    def node(item: GraphInput) -> dict[str, object]:
        return {"name": item.name, "dtype": item.dtype, "shape": None if item.shape is None else list(item.shape)}

    return {
        "inputs": [node(item) for item in summary.inputs],
        "variables": [node(item) for item in summary.variables],
        "outputs": [{"name": item.name, "op": item.op} for item in summary.outputs],
        "const_parameters": summary.const_parameters,
        "const_bytes": dict(summary.const_bytes),
        "control_edges": summary.control_edges,
        "op_counts": dict(summary.op_counts),
    }
