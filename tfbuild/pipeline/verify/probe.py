"""What a verification feeds a model and which of its tensors it compares.

Feeds: every placeholder of the graph (the likely inputs ``summarize_graph`` lists, and
``PlaceholderV2``, which it does not list but a run must feed too) gets a tensor of its dtype and
shape, filled from a PRNG seeded by the verification's seed and the tensor's name, so the same
model always gets the same inputs, two inputs never get the same values, and no input is all
zeros (an all-zero input hides most arithmetic mistakes: ``0 * scale`` is 0 whatever ``scale``
is). Floating-point inputs are spread over [-1, 1) (the range image models are usually fed),
signed integers over [-8, 8], unsigned ones over [0, 15], bools are mixed. Dimensions a
placeholder leaves open are :data:`BATCH_SIZE` for the first of several (the batch) and
:data:`OPEN_DIM` for the others, unless the user gives the shape; a placeholder of unknown rank
needs one.

Fetches: the graph's outputs, which must match: the tensors the user names, or else the likely
outputs ``summarize_graph`` finds (:func:`tfbuild.model.graph_summary.likely_outputs`, the list
``tfbuild analyze`` shows) less :data:`NOT_COMPARED`; and a handful of intermediate tensors
spread through the graph (the first node of each kind: op and dtypes), so a wrong kernel is found
near where it is, not only as a wrong final answer. Intermediates are candidates: the reference
drops any it cannot fetch (a string tensor, say) before the target is asked for them. The probe
says where its outputs and each input's shape came from, for verify's report.

8-bit values: what a ``Dequantize`` on the inputs' path computes (a ``quantize_nodes`` graph) is
compared on the 8-bit grid (:mod:`.compare`). A ``Dequantize`` no input reaches turns stored 8-bit
codes back into weights (a ``quantize_weights`` graph): those *weights* are all fetched and
compared on their grid, and the reference is then fed the target's own, so the float layers
after them are compared as floating point. Two runtimes may dequantize a weight a fraction of a
step apart (r1.9's ARM build does not round the range's minimum to the grid, its x86 build and
TensorFlow's reference do), and a layer whose sums nearly cancel turns that fraction into a
difference no bound taken from the layer's own values can allow; fed the same weights, both
runtimes must compute the layer alike.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.graph_summary import likely_outputs
from tfbuild.model.names import node_name
from tfbuild.pipeline.verify.tensor_file import DTYPES, Array, is_quantized

BATCH_SIZE = 1
OPEN_DIM = 16
MAX_FEED_ELEMENTS = 1 << 26
"""The most elements verify generates for one input (67,108,864: 256 MiB of float32): a shape
claiming more (``--input-shape x=100000,100000``, or a placeholder's own) is refused before
anything is allocated."""
MAX_INTERMEDIATES = 12
FLOAT_RANGE = (-1.0, 1.0)
SIGNED_RANGE = (-8, 8)
UNSIGNED_RANGE = (0, 15)

FED_OPS = frozenset({"Placeholder", "PlaceholderV2"})
"""The nodes verify feeds: ``summarize_graph``'s inputs (``Placeholder``) and TF 1.0's
``PlaceholderV2``, which it does not list but which a run must feed all the same."""
NOT_COMPARED = frozenset(
    {
        "Const", "HostConst", "ImmutableConst", "Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "NoOp",
        "Assert",
        "VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "SaveV2", "RestoreV2", "Print", "PrintV2",
    }
)
"""Ops whose result says nothing about the build's kernels (or that have none): never compared.
``summarize_graph``'s likely outputs already leave out ``Const``, ``Assign``, ``NoOp`` and
``Placeholder``; verify also leaves out the other constants and placeholders (no kernel
computes them), ops with no output tensor to fetch (``Assert``, ``PrintV2``, ``SaveV2``) or
that only pass one on for their side effect (``Print``), and variables and checkpoint ops, which
a frozen graph does not run."""
OUTPUTS_GIVEN = "given with --output-tensor"
OUTPUTS_FOUND = "the graph's likely outputs, as summarize_graph finds them"
SHAPE_GIVEN = "given with --input-shape"
SHAPE_FOUND = "the graph's likely inputs, as summarize_graph finds them"
PASS_THROUGH = frozenset(
    {
        "Identity", "IdentityN", "Snapshot", "StopGradient", "PreventGradient", "CheckNumerics",
        "Enter", "Exit", "Switch", "Merge", "NextIteration", "LoopCond", "RefIdentity",
    }
)
"""Ops that pass a tensor on (or steer control flow): an output may be one, an intermediate not."""
DEQUANTIZE_OPS = frozenset({"Dequantize"})
"""Where 8-bit values become floating-point ones again (``quantize_nodes``, ``quantize_weights``)."""
LOOP_ENTERS = frozenset({"Enter", "RefEnter"})
LOOP_EXITS = frozenset({"Exit", "RefExit"})
SWITCHES = frozenset({"Switch", "RefSwitch"})
MERGES = frozenset({"Merge", "RefMerge"})

_SHAPE = re.compile(r"^\s*([^=\s]+)\s*=\s*(\d+(?:\s*,\s*\d+)*)?\s*$")


class NodeDef(Protocol):
    """What the probe reads of a TensorFlow ``NodeDef`` message (protobuf's classes are untyped)."""

    name: str
    op: str
    input: Sequence[str]
    attr: Mapping[str, Any]
    """AttrValue messages by attribute name."""


@dataclass(frozen=True)
class Feed:
    """One placeholder's tensor: its name (``x:0``), TensorFlow DataType number and shape, and
    where the shape came from (:data:`SHAPE_GIVEN` or :data:`SHAPE_FOUND`, with the sizes given
    to open dimensions)."""

    tensor: str
    dtype: int
    shape: tuple[int, ...]
    shape_from: str = SHAPE_FOUND


@dataclass(frozen=True)
class Probe:
    """What one model is fed and which tensors are compared (``outputs`` must match; the
    ``intermediates`` are candidates the reference may drop)."""

    feeds: tuple[Feed, ...]
    outputs: tuple[str, ...]
    intermediates: tuple[str, ...]
    eight_bit: frozenset[str] = frozenset()
    """The compared tensors computed from 8-bit values: a dequantized weight, a ``Dequantize`` on
    the inputs' path, or what the latter feeds."""
    weights: tuple[str, ...] = ()
    """The dequantized weights (what a ``Dequantize`` no input reaches computes), in graph order:
    fetched from both runs, then fed to a second reference run with the target's values."""
    outputs_from: str = OUTPUTS_FOUND
    """Where ``outputs`` came from: :data:`OUTPUTS_GIVEN` or :data:`OUTPUTS_FOUND`."""


def parse_input_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """``x=1,96,96,3`` (``--input-shape``) as the placeholder's name and shape; ``x=`` is a scalar."""
    match = _SHAPE.match(text)
    if match is None:
        raise ConfigError(f"--input-shape '{text}': expected NAME=D0,D1,... (e.g. input=1,224,224,3)")
    dims = match.group(2)
    shape = tuple(int(dim) for dim in dims.split(",")) if dims else ()
    _check_feed_size(shape, f"--input-shape '{text}'")
    return match.group(1).removesuffix(":0"), shape


def _check_feed_size(shape: tuple[int, ...], where: str) -> None:
    """Refuse a shape of more than :data:`MAX_FEED_ELEMENTS` elements (a :class:`ConfigError`)."""
    elements = math.prod(shape)
    if elements > MAX_FEED_ELEMENTS:
        raise ConfigError(
            f"{where}: {elements:,} elements, more than the {MAX_FEED_ELEMENTS:,} verify generates for one input",
            hint="give a smaller shape with --input-shape NAME=D0,D1,...",
        )


def plan_probe(
    graph_def: Any,
    *,
    where: str,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    outputs: Sequence[str] = (),
    max_intermediates: int = MAX_INTERMEDIATES,
) -> Probe:
    """The feeds and fetches of ``graph_def`` (a GraphDef; ``where`` names it in messages).

    ``shapes`` give placeholders' shapes by node name, ``outputs`` the tensors to compare as
    outputs instead of the graph's likely outputs.
    """
    nodes = {node.name: node for node in graph_def.node}
    shapes = dict(shapes or {})
    unknown = sorted(set(shapes) - {name for name, node in nodes.items() if node.op in FED_OPS})
    if unknown:
        raise ConfigError(
            f"{where}: --input-shape names {', '.join(unknown)}, which is no placeholder of the model",
            hint=f"its placeholders: {', '.join(_placeholders(nodes)) or 'none'}",
        )
    feeds = tuple(_feed(node, shapes.get(name), where) for name, node in nodes.items() if node.op in FED_OPS)
    chosen = _outputs(graph_def, nodes, outputs, where)
    output_nodes = {tensor.rsplit(":", 1)[0] for tensor in chosen}
    fed = _fed_path(nodes)
    unfetchable = _inside_control_flow(nodes)
    dequantizes = [name for name, node in nodes.items() if node.op in DEQUANTIZE_OPS and name not in unfetchable]
    weights = tuple(f"{name}:0" for name in dequantizes if name not in fed)
    skipped = output_nodes | {node_name(tensor) for tensor in weights} | unfetchable
    intermediates = _intermediates(nodes, skipped, fed, max_intermediates)
    on_grid = _reached(nodes, {name for name in dequantizes if name in fed})
    eight_bit = frozenset(
        (*weights, *(tensor for tensor in (*chosen, *intermediates) if node_name(tensor) in on_grid))
    )
    return Probe(feeds=feeds, outputs=chosen, intermediates=intermediates, eight_bit=eight_bit, weights=weights,
                 outputs_from=OUTPUTS_GIVEN if outputs else OUTPUTS_FOUND)


def make_inputs(feeds: Sequence[Feed], *, seed: int) -> dict[str, Array]:
    """The input tensors for ``feeds``: deterministic for (seed, tensor name), never all zeros."""
    return {feed.tensor: _values(feed, seed) for feed in feeds}


def _values(feed: Feed, seed: int) -> Array:
    dtype = DTYPES[feed.dtype]
    rng = np.random.default_rng([seed, zlib.crc32(feed.tensor.encode("utf-8"))])
    if dtype.kind == "f":
        values: Array = rng.uniform(*FLOAT_RANGE, size=feed.shape).astype(dtype)
    elif dtype.kind == "i":
        values = rng.integers(SIGNED_RANGE[0], SIGNED_RANGE[1], size=feed.shape, endpoint=True).astype(dtype)
    elif dtype.kind == "u":
        values = rng.integers(UNSIGNED_RANGE[0], UNSIGNED_RANGE[1], size=feed.shape, endpoint=True).astype(dtype)
    else:
        values = rng.integers(0, 1, size=feed.shape, endpoint=True).astype(dtype)
    if values.size and not np.any(values):
        values.flat[0] = 1
    return values


def _placeholders(nodes: Mapping[str, NodeDef]) -> list[str]:
    return [name for name, node in nodes.items() if node.op in FED_OPS]


def _feed(node: NodeDef, given: tuple[int, ...] | None, where: str) -> Feed:
    dtype = node.attr["dtype"].type
    if dtype not in DTYPES or is_quantized(DTYPES[dtype]):
        raise InputFileError(
            f"{where}: placeholder '{node.name}' is of DataType {dtype}, for which verify makes no inputs",
            hint="verify feeds numeric and bool placeholders only",
        )
    if given is not None:
        return Feed(f"{node.name}:0", dtype, given, SHAPE_GIVEN)
    shape = node.attr["shape"].shape if "shape" in node.attr else None
    if shape is None or shape.unknown_rank:
        raise ConfigError(
            f"{where}: placeholder '{node.name}' has no known rank, so verify cannot shape its input",
            hint=f"give it with --input-shape {node.name}=D0,D1,...",
        )
    dims = [dim.size for dim in shape.dim]
    open_dims = [dim if dim >= 0 else (BATCH_SIZE if index == 0 and len(dims) > 1 else OPEN_DIM)
                 for index, dim in enumerate(dims)]
    opened = f"; its open dimensions made {BATCH_SIZE} (a batch) or {OPEN_DIM}" if any(dim < 0 for dim in dims) else ""
    _check_feed_size(tuple(open_dims), f"{where}: placeholder '{node.name}'")
    return Feed(f"{node.name}:0", dtype, tuple(open_dims), SHAPE_FOUND + opened)


def _fed_path(nodes: Mapping[str, NodeDef]) -> set[str]:
    """Names of the nodes whose value depends on a fed placeholder (data edges only)."""
    return _reached(nodes, {name for name, node in nodes.items() if node.op in FED_OPS})


def _reached(nodes: Mapping[str, NodeDef], starts: set[str]) -> set[str]:
    """``starts`` and the names of every node their values reach (data edges)."""
    consumers: dict[str, list[str]] = {}
    for name, node in nodes.items():
        for source in node.input:
            if not source.startswith("^"):
                consumers.setdefault(node_name(source), []).append(name)
    reached = set(starts)
    pending = list(reached)
    while pending:
        for consumer in consumers.get(pending.pop(), ()):
            if consumer not in reached:
                reached.add(consumer)
                pending.append(consumer)
    return reached


def _inside_control_flow(nodes: Mapping[str, NodeDef]) -> set[str]:
    """Names of the nodes a session cannot fetch after the run (TF 1.x control flow): those in
    a while loop's frame (reached from an ``Enter`` before its ``Exit``), which have a value per
    iteration, and those on a ``cond`` branch (reached from a ``Switch`` before the ``Merge``),
    which are dead when the branch is not taken. The ``Exit`` and ``Merge`` results are fine."""
    consumers: dict[str, list[str]] = {}
    for name, node in nodes.items():
        for source in node.input:
            consumers.setdefault(node_name(source), []).append(name)
    inside: set[str] = set()
    for starts, stops in ((LOOP_ENTERS, LOOP_EXITS), (SWITCHES, LOOP_EXITS | MERGES)):
        pending = [name for name, node in nodes.items() if node.op in starts]
        reached = set(pending)
        while pending:
            for consumer in consumers.get(pending.pop(), ()):
                if consumer not in reached and nodes[consumer].op not in stops:
                    reached.add(consumer)
                    pending.append(consumer)
        inside |= reached
    return inside


def _outputs(graph_def: Any, nodes: Mapping[str, NodeDef], given: Sequence[str], where: str) -> tuple[str, ...]:
    """The tensors ``given`` (each checked to be of a node of the graph), or the first output of
    each of the graph's likely outputs that verify compares (see :data:`NOT_COMPARED`)."""
    if given:
        tensors = tuple(name if ":" in name else f"{name}:0" for name in given)
        missing = [tensor for tensor in tensors if tensor.rsplit(":", 1)[0] not in nodes]
        if missing:
            raise ConfigError(f"{where}: no node for --output-tensor {', '.join(missing)}",
                              hint="name a node of the graph")
        return tensors
    sinks = tuple(f"{output.name}:0" for output in likely_outputs(graph_def) if output.op not in NOT_COMPARED)
    if not sinks:
        raise InputFileError(
            f"{where}: the graph has no output to compare (every node feeds another, or is a constant)",
            hint="name the tensors to compare with --output-tensor",
        )
    return sinks


def _intermediates(nodes: Mapping[str, NodeDef], skipped: set[str], fed: set[str], limit: int) -> tuple[str, ...]:
    """The first node of each kind (op and dtype attributes), in graph order, thinned evenly to
    ``limit`` so the ones kept are spread from the first layers to the last. Nodes the inputs
    flow through (``fed``) come first; kinds seen only in constant subgraphs (a folded batch
    norm's ``Rsqrt``) fill what room is left. Nodes ``skipped`` (compared anyway, as outputs or
    weights, or not fetchable after the run) are not candidates."""
    if limit <= 0:
        return ()
    kinds: dict[tuple[str, tuple[tuple[str, int], ...]], str] = {}
    for name, node in sorted(nodes.items(), key=lambda item: item[0] not in fed):  # stable: graph order kept
        if name in skipped or node.op in NOT_COMPARED or node.op in PASS_THROUGH:
            continue
        dtypes = tuple(sorted((key, v.type) for key, v in node.attr.items() if v.WhichOneof("value") == "type"))
        kinds.setdefault((node.op, dtypes), name)
    on_path = [name for name in kinds.values() if name in fed]
    chosen = _spread(on_path, limit)
    chosen += [name for name in kinds.values() if name not in fed][: limit - len(chosen)]
    order = {name: index for index, name in enumerate(nodes)}
    return tuple(f"{name}:0" for name in sorted(chosen, key=order.__getitem__))


def _spread(names: list[str], limit: int) -> list[str]:
    """At most ``limit`` of ``names``, evenly spaced, the first and the last kept."""
    if len(names) <= limit:
        return list(names)
    picks = np.linspace(0, len(names) - 1, num=limit).round().astype(int)
    return [names[index] for index in sorted(set(picks.tolist()))]
