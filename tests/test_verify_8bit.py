"""verify on 8-bit graphs. With 8-bit weights (``tfbuild quantize-weights``): each dequantized
weight is compared on its own 8-bit grid, and the float layers after the weights against
TensorFlow fed the target's own weights, with the floating-point bound. Quantized tensors
(``quint8``, ``qint32``: a ``quantize_nodes`` graph's): each travels with its range and is compared
by the values its codes stand for.

The case it is for comes from the real r1.9 arm64 build. There ``Dequantize`` takes gemmlowp's
meta path, which does not round the range's minimum to the grid, so its weights sit a fraction of
a step from TensorFlow's, and a layer whose sums nearly cancel differs by far more than a bound
taken from that layer's own values allows. Real TensorFlow computes every side here: the
reference, and the target as r1.9 computes it on ARM (its weights by the meta path's formula,
the layers by TensorFlow's kernels fed those weights).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfbuild.model.quantize_weights import quantize_weights
from tfbuild.pipeline.verify.compare import DEFAULT_TOLERANCE, EIGHT_BIT_LEVELS, compare_run, compare_tensor
from tfbuild.pipeline.verify.probe import plan_probe
from tfbuild.pipeline.verify.run import RUNNER_ENV
from tfbuild.pipeline.verify.tensor_file import codes, read_tensor_file, write_tensor_file
from tfbuild.pipeline.verify.tf_runner import runner_argv

pytestmark = pytest.mark.tensorflow

UNITS = 64  # the weight is UNITS x UNITS: 4,096 elements, quantized


@pytest.fixture(scope="module")
def cancelling_graph():
    """x -> MatMul(w) -> y; the same product with w stored as float64 (which quantize-weights
    leaves alone) and cast -> exact; residual = y - exact, a layer of sums that nearly cancel.
    Returned with 8-bit weights (w becomes a Dequantize of its codes)."""
    import tensorflow as tf

    rng = np.random.default_rng(9)
    values = rng.normal(0.0, 0.4, (UNITS, UNITS)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, UNITS], name="x")
        y = tf.matmul(x, tf.constant(values, name="w"), name="y")
        exact = tf.matmul(x, tf.cast(tf.constant(values.astype(np.float64), name="w64"), tf.float32), name="exact")
        tf.subtract(y, exact, name="residual")
    return quantize_weights(graph.as_graph_def(), where="cancelling").graph_def


def _constant(graph_def, name: str) -> np.ndarray:
    import tensorflow as tf

    (node,) = [node for node in graph_def.node if node.name == name]
    return tf.make_ndarray(node.attr["value"].tensor)


def _meta_dequantized(graph_def, weight: str) -> np.ndarray:
    """The weight as r1.9's ARM build dequantizes it (gemmlowp meta, MIN_FIRST quint8):
    range_min + code * (range_max - range_min) / 255, in float32, the minimum not rounded."""
    codes = _constant(graph_def, f"{weight}_quantized_const").astype(np.float32)
    low = np.float32(_constant(graph_def, f"{weight}_quantized_min"))
    high = np.float32(_constant(graph_def, f"{weight}_quantized_max"))
    return low + codes * ((high - low) / np.float32(EIGHT_BIT_LEVELS))


def _run_tensorflow(
    tmp_path: Path, name: str, graph_def, feeds: dict, fetch: tuple[str, ...], probe: tuple[str, ...] = ()
) -> dict:
    """TensorFlow (the wheel, through verify's own runner process) runs ``graph_def`` fed ``feeds``."""
    graph, inputs, output = (tmp_path / f"{name}.{suffix}" for suffix in ("pb", "inputs", "tensors"))
    graph.write_bytes(graph_def.SerializeToString())
    write_tensor_file(inputs, feeds)
    argv = runner_argv(sys.executable, graph=graph, inputs=inputs, output=output, fetch=fetch, probe=probe)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env={**RUNNER_ENV, "PATH": "/usr/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    return read_tensor_file(output)


def test_the_probe_fetches_every_dequantized_weight_and_puts_only_those_on_the_grid(cancelling_graph):
    probe = plan_probe(cancelling_graph, where="cancelling")
    assert probe.weights == ("w:0",)
    assert probe.outputs == ("residual:0",)
    assert "w:0" not in probe.intermediates and "y:0" in probe.intermediates
    # The weight is compared on its grid; what it feeds is compared as floating point.
    assert probe.eight_bit == {"w:0"}


def test_weights_a_fraction_of_a_step_off_pass_and_the_layers_after_them_compare_as_float(
    cancelling_graph, tmp_path
):
    probe = plan_probe(cancelling_graph, where="cancelling")
    x = {"x:0": np.random.default_rng(4).uniform(-1, 1, (1, UNITS)).astype(np.float32)}
    fetch = (*probe.outputs, *probe.weights, *probe.intermediates)
    expected = _run_tensorflow(tmp_path, "reference", cancelling_graph, x, fetch)
    weights = {"w:0": _meta_dequantized(cancelling_graph, "w")}
    # The target: r1.9 on ARM, its weights a fraction of a step from TensorFlow's.
    got = {**_run_tensorflow(tmp_path, "target", cancelling_graph, {**x, **weights}, fetch), **weights}
    step = float(np.ptp(expected["w:0"])) / EIGHT_BIT_LEVELS
    off = np.abs(got["w:0"] - expected["w:0"])
    assert 0.2 * step < off.max() < 0.5 * step
    # Compared the old way (the residual on a grid of its own range, against the reference run on
    # TensorFlow's weights), the correct target fails: that fraction of a step, over 64 terms, is
    # many steps of a residual that is itself a quantization error.
    old = compare_tensor("residual:0", "output", got["residual:0"], expected["residual:0"], DEFAULT_TOLERANCE,
                         eight_bit=True)
    assert not old.passed
    fed_expected = _run_tensorflow(tmp_path, "fed", cancelling_graph, {**x, **weights},
                                   tuple(name for name in fetch if name not in probe.weights))
    diffs = {diff.tensor: diff for diff in compare_run(
        expected, got, DEFAULT_TOLERANCE, outputs=probe.outputs, eight_bit=probe.eight_bit, weights=probe.weights,
        fed_expected=fed_expected,
    )}
    assert all(diff.passed for diff in diffs.values()), [diff.describe() for diff in diffs.values()]
    assert diffs["w:0"].bound == "8-bit" and diffs["w:0"].step == pytest.approx(step)
    assert diffs["w:0"].max_abs_diff == pytest.approx(float(off.max()))
    assert diffs["residual:0"].bound == "float" and diffs["residual:0"].role == "output"
    assert diffs["y:0"].bound == "float"


def test_a_weight_off_its_grid_or_a_layer_off_the_fed_reference_fails(cancelling_graph, tmp_path):
    """Feeding the target's weights hides nothing: the weights themselves are compared with the
    reference's own, and the layers after them with the floating-point bound."""
    probe = plan_probe(cancelling_graph, where="cancelling")
    x = {"x:0": np.linspace(-1, 1, UNITS, dtype=np.float32).reshape(1, UNITS)}
    fetch = (*probe.outputs, *probe.weights)
    expected = _run_tensorflow(tmp_path, "reference", cancelling_graph, x, fetch)
    step = float(np.ptp(expected["w:0"])) / EIGHT_BIT_LEVELS
    # A Dequantize three steps off in one weight: the layers fed it agree, the weight does not.
    wrong = expected["w:0"].copy()
    wrong[5, 7] += np.float32(3 * step)
    fed = _run_tensorflow(tmp_path, "fed", cancelling_graph, {**x, "w:0": wrong}, probe.outputs)
    diffs = compare_run(expected, {**fed, "w:0": wrong}, DEFAULT_TOLERANCE, outputs=probe.outputs,
                        eight_bit=probe.eight_bit, weights=probe.weights, fed_expected=fed)
    assert [diff.tensor for diff in diffs if not diff.passed] == ["w:0"]
    assert next(diff for diff in diffs if diff.tensor == "w:0").worst.index == (5, 7)
    # Right weights, a layer computed wrong by a thousandth of its peak: out of the float bound.
    peak = float(np.max(np.abs(fed["residual:0"])))
    skewed = {**fed, "residual:0": fed["residual:0"] + np.float32(1e-3 * peak), "w:0": expected["w:0"]}
    diffs = compare_run(expected, skewed, DEFAULT_TOLERANCE, outputs=probe.outputs, eight_bit=probe.eight_bit,
                        weights=probe.weights, fed_expected=fed)
    assert [diff.tensor for diff in diffs if not diff.passed] == ["residual:0"]


def _quantized_relu_graph(low: float, high: float):
    """x -> QuantizeV2 over [low, high] -> q (quint8) -> QuantizedRelu -> act (quint8) ->
    Dequantize -> out: a quantize_nodes-style graph whose 8-bit tensors have ranges beside them."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, UNITS], name="x")
        q = tf.raw_ops.QuantizeV2(input=x, min_range=tf.constant(low, name="low"),
                                  max_range=tf.constant(high, name="high"), T=tf.quint8, mode="MIN_FIRST", name="q")
        act = tf.raw_ops.QuantizedRelu(features=q.output, min_features=q.output_min, max_features=q.output_max,
                                       out_type=tf.quint8, name="act")
        tf.raw_ops.Dequantize(input=act.activations, min_range=act.min_activations,
                              max_range=act.max_activations, mode="MIN_FIRST", name="out")
    return graph.as_graph_def()


def test_quantized_tensors_travel_with_their_range_and_compare_by_what_they_stand_for(tmp_path):
    x = {"x:0": np.linspace(-0.9, 0.95, UNITS, dtype=np.float32).reshape(1, UNITS)}
    fetch, probe = ("out:0",), ("q:0", "act:0")
    expected = _run_tensorflow(tmp_path, "reference", _quantized_relu_graph(-1.0, 1.0), x, fetch, probe)
    # The runner writes each quantized tensor's codes and, beside them, its node's range.
    assert list(expected) == ["out:0", "q:0", "act:0", "q:1", "q:2", "act:1", "act:2"]
    assert expected["q:0"].dtype.names == ("quint8",) and expected["q:1"] == np.float32(-1.0)
    # Another runtime's grid: the same values over a slightly wider range, so other codes.
    got = _run_tensorflow(tmp_path, "target", _quantized_relu_graph(-1.02, 1.0), x, fetch, probe)
    assert not np.array_equal(codes(got["q:0"]), codes(expected["q:0"]))
    diffs = {diff.tensor: diff for diff in compare_run(expected, got, DEFAULT_TOLERANCE, outputs=fetch,
                                                       eight_bit={"out:0"})}
    for name in ("q:0", "act:0"):
        assert diffs[name].passed and diffs[name].dtype == "quint8" and diffs[name].bound == "8-bit", name
        assert 0 < diffs[name].max_abs_diff <= 2 * diffs[name].step
    assert not diffs["q:1"].passed  # the ranges themselves differ, and say so
    # Codes three steps off (same range) are out of the 8-bit bound, named by the codes' index.
    shifted = codes(expected["act:0"]).copy()
    shifted[0, 40] = min(int(shifted[0, 40]) + 3, 255)
    off = compare_run(expected, {**expected, "act:0": shifted.view(expected["act:0"].dtype)}, DEFAULT_TOLERANCE,
                      outputs=fetch)
    (bad,) = [diff for diff in off if not diff.passed]
    assert bad.tensor == "act:0" and bad.worst.index == (0, 40) and bad.dtype == "quint8"
    # Without a range beside it a quantized tensor's codes must be equal.
    bare = {name: value for name, value in expected.items() if name in ("q:0", "act:0")}
    (exact,) = [diff for diff in compare_run(bare, {"q:0": bare["q:0"], "act:0": shifted.view(bare["act:0"].dtype)},
                                             DEFAULT_TOLERANCE, outputs=()) if diff.tensor == "act:0"]
    assert not exact.passed and exact.bound == "exact" and exact.mismatched == 1
