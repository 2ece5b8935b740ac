"""8-bit weights: a frozen graph whose large float constants are stored as 8-bit codes (a quarter
of their size) and turned back into floats by a ``Dequantize`` node when the graph runs, as
TensorFlow's mobile guides prepare models (``transform_graph --transforms=quantize_weights``, TF
1.x's graph transforms; no TensorFlow 2.x wheel ships the tool).

What TensorFlow's transform does (``tensorflow/tools/graph_transforms/quantize_weights.cc``,
unchanged from TF 1.x to 2.21), and :func:`quantize_weights` does alike:

- It takes each ``Const`` node of the graph (not of its function library, which is copied as it
  is) whose ``dtype`` attr is ``DT_FLOAT`` and whose tensor has at least ``minimum_size``
  elements (:data:`MIN_ELEMENTS` by default); other nodes stay as they are.
- The range: the smallest and the largest value, widened to include 0. TensorFlow starts its
  running maximum at ``std::numeric_limits<float>::min()``, the smallest *positive* float
  (1.18e-38), not at the lowest: a tensor with no positive value gets that as its maximum, not
  0, so the range is never empty and the transform's branch for ``min == max`` is never taken
  (but see below).
- The codes are ``FloatToQuantized<quint8>`` (``tensorflow/core/kernels/quantization_utils.h``)
  of each value, in double precision: ``round(v * s) - round(min * s)``, clamped to [0, 255],
  where ``s = 256 / ((max - min) * 256 / 255)`` (``max - min`` taken in float) and ``round``
  rounds halves away from zero. TensorFlow's ``QuantizeV2`` op (mode ``MIN_FIRST``) is no
  stand-in for it: its Eigen kernel computes the same formula in single precision, so a value
  whose scaled value rounds onto a half in float gets the next code, and the oneDNN kernel that
  x86 wheels run by default rounds otherwise (one code off for about one weight in six).
- The nodes: ``<name>_quantized_const`` (a ``Const`` of ``DT_QUINT8``, the codes as its tensor's
  ``tensor_content``), ``<name>_quantized_min`` and ``<name>_quantized_max`` (scalar float
  ``Const`` nodes), and a ``Dequantize`` node that keeps the original name (attrs ``T`` =
  ``DT_QUINT8``, ``mode`` = ``MIN_FIRST``) and reads the three, so the nodes that read the weight
  are unchanged. The four stand where the ``Const`` stood. They are new nodes: the original's
  ``device``, its other attrs and any control input it had are not carried over.
- The result has the graph's nodes and its function library, and no ``versions``: the transform
  builds a new GraphDef and copies only the library back into it.
- A graph with an input that names no node is refused, as TensorFlow's check of its result does.

Where TensorFlow's tool writes something no runtime can use, :func:`quantize_weights` does
otherwise, and says so here:

- A weight of zeros: TensorFlow's range for it is [0, 1.18e-38], whose step (1.18e-38 / 255)
  is a denormal float, which TensorFlow's kernels flush to zero, so its ``Dequantize`` computes
  0 / 0 and every value of the weight becomes NaN (an untrained MobileNetV2's zero batch-norm
  betas and means make the whole output NaN). tfbuild gives such a range the transform's own rule
  for an empty one, [min, min + 1]: the same codes (all 0), and zeros back.
- A weight with an infinite or NaN value is refused in one line (its codes would be whatever C++
  makes of converting NaN to an integer), and so is a new node name the graph already has
  (TensorFlow would write two nodes of one name, a graph nothing loads).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.names import node_name
from tfbuild.model.tensor_values import const_bytes, tensor_elements

MIN_ELEMENTS = 1024
"""``quantize_weights(minimum_size=...)``'s default: smaller constants stay float."""
DT_FLOAT = 1
DT_QUINT8 = 12
LEVELS = 256
"""quint8's codes: 0 to 255."""
SMALLEST_POSITIVE = float(np.finfo(np.float32).tiny)
"""``std::numeric_limits<float>::min()``, where TensorFlow starts the running maximum."""
NARROWEST = (LEVELS - 1) * SMALLEST_POSITIVE
"""The narrowest range whose step, ``(max - min) / 255``, is a normal float."""
SUFFIXES = ("_quantized_const", "_quantized_min", "_quantized_max")
"""The names of the three ``Const`` nodes each quantized weight becomes, after its own."""


@dataclass(frozen=True)
class QuantizedWeight:
    """One float constant the transform quantized: its node, size and range."""

    name: str
    elements: int
    low: float
    high: float

    @property
    def step(self) -> float:
        """How far apart two neighbouring codes dequantize: ``(max - min) / 255``. A dequantized
        weight is within one step of the float it was (half a step, but for the clamp at the top)."""
        return (self.high - self.low) / (LEVELS - 1)


@dataclass(frozen=True)
class QuantizedGraph:
    graph_def: Any
    """The result, a ``tensorflow.GraphDef`` message."""
    weights: tuple[QuantizedWeight, ...]


def weight_range(values: np.ndarray) -> tuple[float, float]:
    """The range the float32 ``values`` are quantized over (see the module doc): their minimum
    and maximum, widened to include 0, the maximum never below the smallest positive float, as
    TensorFlow's transform takes them, exact to the sign of a zero minimum (the first zero's:
    ``std::min`` keeps the first of equal values).

    A range too narrow for a step of it to be a normal float (:data:`NARROWEST`; a weight of
    zeros, which TensorFlow's transform gives the range [0, 1.18e-38]) is widened to
    ``[min, min + 1]``, the transform's own rule for an empty range: TensorFlow's ``Dequantize``
    flushes such a step to zero and makes NaN of every value (0 / 0), where the widened range
    gives the same codes and the float values back."""
    flat = values.ravel()
    low, high = 0.0, SMALLEST_POSITIVE
    if flat.size:
        smallest = float(flat.min())
        if smallest == 0.0:
            smallest = float(flat[np.flatnonzero(flat == 0)[0]])
        low = smallest if smallest <= 0.0 else 0.0
        high = max(float(flat.max()), SMALLEST_POSITIVE)
    if float(np.float32(high) - np.float32(low)) < NARROWEST:
        high = float(np.float32(low) + np.float32(1.0))
    return low, high


def quantized_codes(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """``FloatToQuantized<quint8>`` of each of the float32 ``values`` over [low, high] (see the
    module doc), as uint8 of the same shape."""
    span = float(np.float32(high) - np.float32(low))  # float arithmetic, as in C++
    scale = LEVELS / (span * (LEVELS / (LEVELS - 1.0)))
    codes = _round_half_away(values.astype(np.float64) * scale) - _round_half_away(np.float64(low) * scale)
    clamped: np.ndarray = np.clip(codes, 0, LEVELS - 1).astype(np.uint8)
    return clamped


def _round_half_away(values: Any) -> Any:
    """C's ``round``: halves away from zero (numpy's ``round`` takes them to even)."""
    whole = np.trunc(values)
    return whole + np.where(np.abs(values - whole) >= 0.5, np.sign(values), 0.0)


def quantize_weights(graph_def: Any, *, where: str, min_elements: int = MIN_ELEMENTS) -> QuantizedGraph:
    """The graph TensorFlow's ``quantize_weights`` makes of the frozen ``graph_def`` (left as it
    is; ``where`` names it in errors), constants of fewer than ``min_elements`` elements kept."""
    from tfbuild.model.protos import message_class

    names = {node.name for node in graph_def.node}
    _check_inputs(graph_def, names, where)
    result = message_class("tensorflow.GraphDef")()
    weights = []
    for node in graph_def.node:
        values = _weight_values(node, min_elements, where)
        if values is None:
            result.node.add().CopyFrom(node)
            continue
        for suffix in SUFFIXES:
            if node.name + suffix in names:
                raise InputFileError(
                    f"{where}: quantizing '{node.name}' makes a node '{node.name + suffix}', a name the graph has",
                    hint="rename that node first; TensorFlow's transform would write two nodes of one name",
                )
            names.add(node.name + suffix)
        weight = QuantizedWeight(node.name, int(values.size), *weight_range(values))
        _add_quantized(result, weight, node.attr["value"].tensor.tensor_shape,
                       quantized_codes(values, weight.low, weight.high))
        weights.append(weight)
    result.library.CopyFrom(graph_def.library)
    return QuantizedGraph(result, tuple(weights))


def _check_inputs(graph_def: Any, names: set[str], where: str) -> None:
    for node in graph_def.node:
        for source in node.input:
            if node_name(source) not in names:
                raise InputFileError(
                    f"{where}: node '{node.name}' reads '{source}', which is no node of the graph",
                    hint="give the whole frozen graph; TensorFlow's transform refuses this one too",
                )


def _weight_values(node: Any, min_elements: int, where: str) -> np.ndarray | None:
    """The float32 values of a ``Const`` node the transform quantizes, None for any other node.
    A ``Const`` without its attrs, or whose float tensor cannot be decoded, is refused, as
    TensorFlow's transform refuses it; so is a weight with an infinite or NaN value."""
    if node.op != "Const":
        return None
    for attr in ("dtype", "value"):
        if attr not in node.attr:
            raise InputFileError(f"{where}: Const node '{node.name}' has no '{attr}' attr",
                                 hint="TensorFlow's transform refuses it too")
    if node.attr["dtype"].type != DT_FLOAT:
        return None
    tensor = node.attr["value"].tensor
    count = tensor_elements(tensor)
    raw = const_bytes(node, where=where) if tensor.dtype == DT_FLOAT else None
    if count is None or raw is None or len(raw) != 4 * count:
        raise InputFileError(
            f"{where}: Const node '{node.name}' is DT_FLOAT but its value is no float tensor of a known shape",
            hint="TensorFlow's transform cannot decode it either",
        )
    if count < min_elements:
        return None
    values = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(-1)
    with np.errstate(over="ignore"):
        finite = bool(np.all(np.isfinite(values))) and (not values.size or np.isfinite(values.max() - values.min()))
    if not finite:
        raise InputFileError(
            f"{where}: Const node '{node.name}' holds an infinite or NaN value (or a range wider than float's)",
            hint="8-bit codes cannot stand for it; TensorFlow's transform would write meaningless ones",
        )
    return values


def _add_quantized(graph: Any, weight: QuantizedWeight, shape: Any, codes: np.ndarray) -> None:
    """The four nodes that stand for ``weight`` (see the module doc), appended to ``graph``;
    ``shape`` is the original tensor's (its dimensions' sizes are kept, as a ``Tensor`` keeps them)."""
    const = graph.node.add(name=weight.name + SUFFIXES[0], op="Const")
    const.attr["dtype"].type = DT_QUINT8
    tensor = const.attr["value"].tensor
    tensor.dtype = DT_QUINT8
    tensor.tensor_shape.SetInParent()
    for dim in shape.dim:
        tensor.tensor_shape.dim.add(size=dim.size)
    tensor.tensor_content = codes.tobytes()
    for suffix, value in zip(SUFFIXES[1:], (weight.low, weight.high), strict=True):
        bound = graph.node.add(name=weight.name + suffix, op="Const")
        bound.attr["dtype"].type = DT_FLOAT
        scalar = bound.attr["value"].tensor
        scalar.dtype = DT_FLOAT
        scalar.tensor_shape.SetInParent()
        scalar.tensor_content = np.float32(value).astype("<f4").tobytes()
    dequantize = graph.node.add(name=weight.name, op="Dequantize", input=[weight.name + suffix for suffix in SUFFIXES])
    dequantize.attr["T"].type = DT_QUINT8
    dequantize.attr["mode"].s = b"MIN_FIRST"


@dataclass(frozen=True)
class QuantizedModel:
    """What :func:`quantize_model_file` wrote."""

    output: Path
    nodes: int
    """Nodes of the written graph."""
    constants: int
    """Float ``Const`` nodes of the input graph, quantized or not."""
    weights: tuple[QuantizedWeight, ...]
    size: int
    """Bytes written."""
    input_size: int

    @property
    def float_bytes(self) -> int:
        """Bytes of the float weights that became 8-bit codes (a quarter as many)."""
        return 4 * sum(weight.elements for weight in self.weights)


def quantize_model_file(model: Path, output: Path, *, min_elements: int = MIN_ELEMENTS) -> QuantizedModel:
    """Write the 8-bit-weights graph of the frozen GraphDef ``model`` (binary or text) to
    ``output`` as a binary GraphDef (what TensorFlow's tool writes unless told
    ``--output_as_text``), atomically; anything but a GraphDef, or ``output`` naming ``model``
    itself, is refused before anything is written."""
    from tfbuild.fileio import atomic_write_bytes, refuse_input_as_output
    from tfbuild.model.formats import load_frozen_graph_def

    if min_elements < 0:
        raise ConfigError(f"--min-elements {min_elements}: must be at least 0")
    graph_def = load_frozen_graph_def(
        model, package="; its weights are memory regions, not Const nodes",
        product="an 8-bit-weights graph")
    refuse_input_as_output(output, (model,), why="the quantized graph goes elsewhere", hint="give another -o path")
    result = quantize_weights(graph_def, where=str(model), min_elements=min_elements)
    data = result.graph_def.SerializeToString()
    atomic_write_bytes(output, data)
    constants = sum(node.op == "Const" and node.attr["dtype"].type == DT_FLOAT for node in graph_def.node)
    return QuantizedModel(output, len(result.graph_def.node), constants, result.weights, len(data),
                          model.stat().st_size)
