"""8-bit weights as TensorFlow's quantize_weights transform writes them: the graph's nodes and attrs,
the codes of TensorFlow's own rounding (its quantization_utils.h, compiled from the wheel), and
TensorFlow running both graphs to outputs within the bound one step of each weight's grid makes;
`tfbuild quantize-weights` refuses what it cannot quantize in one line and writes nothing then."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfbuild.cli import main
from tfbuild.model.formats import load_model
from tfbuild.model.quantize_weights import (
    DT_FLOAT,
    DT_QUINT8,
    MIN_ELEMENTS,
    SMALLEST_POSITIVE,
    SUFFIXES,
    quantize_weights,
    quantized_codes,
    weight_range,
)

pytestmark = pytest.mark.tensorflow

ORACLE = Path(__file__).parent / "data" / "quantize_weights" / "float_to_quantized.cc"
KERNEL = (3, 3, 4, 32)  # 1,152 elements: quantized; on a device, which the transform drops
BIAS = 32  # stays float
DENSE = (64, 24)  # 1,536 elements, all negative: TensorFlow's range ends at the smallest positive float
LIBRARY_CONST = 2048  # in the function library: stays float
INVALID = sorted(path for path in (Path(__file__).parent / "invalid_inputs").iterdir()
                 if not path.name.startswith("hostile_"))
"""The damaged models; those with hostile op names are sound GraphDefs (what the header refuses)."""


@pytest.fixture(scope="module")
def frozen_graph(tmp_path_factory) -> Path:
    """image -> Conv2D(conv/kernel) + conv/bias -> conv_out; features -> MatMul(dense/weights) +
    MatMul(dense/zeros) -> dense_out, dense/weights under a control edge; a tf.function adding a
    constant of its own -> library_out. Written by TensorFlow."""
    import tensorflow as tf

    rng = np.random.default_rng(23)
    graph = tf.Graph()
    with graph.as_default():
        image = tf.compat.v1.placeholder(tf.float32, [1, 6, 6, 4], name="image")
        features = tf.compat.v1.placeholder(tf.float32, [1, DENSE[0]], name="features")
        with tf.device("/device:CPU:0"):
            kernel = tf.constant(rng.normal(0, 0.3, KERNEL).astype(np.float32), name="conv/kernel")
        bias = tf.constant(rng.normal(0, 0.1, BIAS).astype(np.float32), name="conv/bias")
        tf.identity(tf.nn.bias_add(tf.nn.conv2d(image, kernel, [1, 1, 1, 1], "SAME"), bias), name="conv_out")
        with tf.control_dependencies([tf.identity(features, name="gate")]):
            dense = tf.constant(rng.uniform(-1.0, -0.1, DENSE).astype(np.float32), name="dense/weights")
        zeros = tf.constant(np.zeros(DENSE, np.float32), name="dense/zeros")
        tf.identity(tf.matmul(features, dense) + tf.matmul(features, zeros), name="dense_out")

        @tf.function
        def offset(value):
            return value + tf.constant(np.linspace(-1, 1, LIBRARY_CONST, dtype=np.float32))

        tf.identity(offset(tf.ones([LIBRARY_CONST])), name="library_out")
    path = tmp_path_factory.mktemp("quantize_weights") / "frozen.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


def _tf_graph_def(graph_def):
    import tensorflow as tf

    return tf.compat.v1.GraphDef.FromString(graph_def.SerializeToString())


def _run(graph_def, fetches, feeds):
    import tensorflow as tf

    with tf.compat.v1.Session(graph=tf.Graph()) as session:
        tf.import_graph_def(_tf_graph_def(graph_def), name="")
        return [np.asarray(value) for value in session.run(fetches, feeds)]


def _values(node) -> np.ndarray:
    """A Const node's value, as TensorFlow reads it."""
    import tensorflow as tf
    from tensorflow.core.framework import tensor_pb2

    return tf.make_ndarray(tensor_pb2.TensorProto.FromString(node.attr["value"].tensor.SerializeToString()))


def _large_float_constants(graph_def, min_elements=MIN_ELEMENTS) -> set[str]:
    return {node.name for node in graph_def.node if node.op == "Const" and node.attr["dtype"].type == DT_FLOAT
            and _values(node).size >= min_elements}


def test_the_graph_has_the_nodes_tensorflows_transform_writes(frozen_graph):
    original = load_model(frozen_graph).graph_defs[0]
    result = quantize_weights(original, where=str(frozen_graph))
    quantized = {weight.name for weight in result.weights}
    assert quantized == _large_float_constants(original) == {"conv/kernel", "dense/weights", "dense/zeros"}
    # Each quantized Const becomes three Consts and a Dequantize of its name, where it stood.
    expected_order = []
    for node in original.node:
        expected_order += [node.name + suffix for suffix in SUFFIXES] + [node.name] if node.name in quantized else [node.name]
    assert [node.name for node in result.graph_def.node] == expected_order
    nodes = {node.name: node for node in result.graph_def.node}
    before = {node.name: node for node in original.node}
    assert before["conv/kernel"].device and before["dense/weights"].input == ["^gate"]
    for weight in result.weights:
        dequantize, codes = nodes[weight.name], nodes[weight.name + "_quantized_const"]
        assert dequantize.op == "Dequantize" and list(dequantize.input) == [weight.name + s for s in SUFFIXES]
        assert sorted(dequantize.attr) == ["T", "mode"]
        assert dequantize.attr["T"].type == DT_QUINT8 and dequantize.attr["mode"].s == b"MIN_FIRST"
        assert dequantize.device == "" and codes.device == ""  # new nodes: the device is not carried over
        assert codes.op == "Const" and codes.attr["dtype"].type == DT_QUINT8
        assert _values(codes).shape == _values(before[weight.name]).shape
        assert len(codes.attr["value"].tensor.tensor_content) == weight.elements
        for suffix, bound in (("_quantized_min", weight.low), ("_quantized_max", weight.high)):
            value = _values(nodes[weight.name + suffix])
            assert nodes[weight.name + suffix].attr["dtype"].type == DT_FLOAT and value.shape == ()
            assert value == np.float32(bound)
        assert (weight.low, weight.high) == weight_range(_values(before[weight.name]))
    # Everything else is as it was, the small float constant and the function library included.
    for name, node in before.items():
        if name not in quantized:
            assert nodes[name] == node, name
    assert result.graph_def.library == original.library
    library_consts = [node for function in original.library.function for node in function.node_def
                      if node.op == "Const" and node.attr["dtype"].type == DT_FLOAT]
    assert any(_values(node).size >= MIN_ELEMENTS for node in library_consts)
    assert original.HasField("versions") and not result.graph_def.HasField("versions")


def test_tensorflow_runs_the_quantized_graph_within_one_step_of_each_weight(frozen_graph):
    """|conv_q - conv| <= |image| (*) step (the convolution of the input's magnitudes with a
    kernel of the weight's step), and likewise for the MatMuls: each dequantized weight is within
    one step of the float it was."""
    import tensorflow as tf

    original = load_model(frozen_graph).graph_defs[0]
    result = quantize_weights(original, where=str(frozen_graph))
    steps = {weight.name: weight.step for weight in result.weights}
    rng = np.random.default_rng(5)
    image = rng.uniform(-1, 1, (1, 6, 6, 4)).astype(np.float32)
    features = rng.uniform(-1, 1, (1, DENSE[0])).astype(np.float32)
    feeds = {"image:0": image, "features:0": features}
    fetches = ["conv_out:0", "dense_out:0", "library_out:0"]
    conv, dense, library = _run(original, fetches, feeds)
    conv_q, dense_q, library_q = _run(result.graph_def, fetches, feeds)
    kernel = _values(next(node for node in original.node if node.name == "conv/kernel"))
    magnitudes = tf.nn.conv2d(np.abs(image), np.abs(kernel), [1, 1, 1, 1], "SAME").numpy()
    conv_bound = tf.nn.conv2d(np.abs(image), np.full(KERNEL, steps["conv/kernel"], np.float32),
                              [1, 1, 1, 1], "SAME").numpy()
    assert np.all(np.abs(conv_q - conv) <= conv_bound + 1e-5 * magnitudes)
    dense_bound = np.abs(features) @ np.full(DENSE, steps["dense/weights"] + steps["dense/zeros"])
    assert np.all(np.abs(dense_q - dense) <= dense_bound + 1e-5 * (np.abs(features) @ np.ones(DENSE)))
    assert not np.array_equal(conv_q, conv) and not np.array_equal(dense_q, dense)  # the weights did change
    assert np.all(np.isfinite(dense_q))  # the weight of zeros is zeros again, not NaN
    np.testing.assert_array_equal(library_q, library)  # the library's constant stayed float


def test_tensorflows_dequantize_gives_each_weight_back_within_one_step(frozen_graph):
    original = load_model(frozen_graph).graph_defs[0]
    result = quantize_weights(original, where=str(frozen_graph))
    names = [weight.name for weight in result.weights]
    dequantized = _run(result.graph_def, [f"{name}:0" for name in names], {})
    before = {node.name: _values(node) for node in original.node if node.name in names}
    for weight, got in zip(result.weights, dequantized, strict=True):
        error = np.abs(got.astype(np.float64) - before[weight.name])
        assert error.max() <= weight.step, (weight.name, error.max(), weight.step)
    np.testing.assert_array_equal(dequantized[names.index("dense/zeros")], before["dense/zeros"])


@pytest.fixture(scope="module")
def float_to_quantized(tmp_path_factory) -> Path:
    """TensorFlow's FloatTensorToQuantizedInPlace<quint8>, compiled against the wheel's headers."""
    import tensorflow as tf

    include, lib = Path(tf.sysconfig.get_include()), Path(tf.sysconfig.get_lib())
    program = tmp_path_factory.mktemp("oracle") / "float_to_quantized"
    subprocess.run(
        ["g++", "-O1", "-w", *tf.sysconfig.get_compile_flags(), f"-I{include / 'external' / 'gemmlowp'}",
         str(ORACLE), "-o", str(program), f"-L{lib}", "-Wl,--no-as-needed", "-l:libtensorflow_framework.so.2",
         f"-Wl,-rpath,{lib}"],
        check=True, capture_output=True, timeout=600,
    )
    return program


def _tensorflow_codes(program: Path, values: np.ndarray, low: float, high: float) -> np.ndarray:
    data = struct.pack("<ffq", low, high, values.size) + values.astype("<f4").tobytes()
    done = subprocess.run([str(program)], input=data, capture_output=True, check=True, timeout=60)
    return np.frombuffer(done.stdout, dtype=np.uint8)


def _near_halves(rng, low: float, high: float) -> np.ndarray:
    """Values whose scaled value lies on a half (as near as float32 gets), where the rounding
    rule decides, and their float neighbours, with random ones over the range."""
    scale = 256 / (float(np.float32(high) - np.float32(low)) * 256 / 255)
    halves = ((np.arange(-300, 300) + 0.5) / scale).astype(np.float32)
    around = [halves, np.nextafter(halves, np.float32(np.inf)), np.nextafter(halves, np.float32(-np.inf))]
    return np.concatenate([*around, rng.uniform(low, high, 1000).astype(np.float32)])


@pytest.mark.compiler
def test_the_codes_are_tensorflows_own_rounding(frozen_graph, float_to_quantized):
    """Every code, of the model's weights and of values placed on the rounding's halves, is the
    one TensorFlow's FloatToQuantized<quint8> makes of it over the same range."""
    original = load_model(frozen_graph).graph_defs[0]
    result = quantize_weights(original, where=str(frozen_graph))
    nodes = {node.name: node for node in result.graph_def.node}
    before = {node.name: node for node in original.node}
    for weight in result.weights:
        values = _values(before[weight.name]).ravel()
        written = np.frombuffer(nodes[weight.name + "_quantized_const"].attr["value"].tensor.tensor_content, np.uint8)
        np.testing.assert_array_equal(written, _tensorflow_codes(float_to_quantized, values, weight.low, weight.high))
    rng = np.random.default_rng(11)
    for start, end in ((-1.0, 2.0), (-0.37, 0.0), (0.0, 5.5), (-3e-3, SMALLEST_POSITIVE), (-250.0, 1e-3)):
        values = np.clip(_near_halves(rng, start, end), np.float32(start), np.float32(end)).astype(np.float32)
        low, high = weight_range(np.append(values, [np.float32(start), np.float32(end)]))
        np.testing.assert_array_equal(quantized_codes(values, low, high),
                                      _tensorflow_codes(float_to_quantized, values, low, high))


QUANTIZE_V2 = """
import sys
import numpy as np
import tensorflow as tf
values, low, high = np.load(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
out = tf.raw_ops.QuantizeV2(input=values, min_range=low, max_range=high, T=tf.quint8, mode="MIN_FIRST",
                            ensure_minimum_range=0.0)
assert float(out.output_min) == np.float32(low) and float(out.output_max) == np.float32(high)
np.save(sys.argv[4], out.output.numpy().astype(np.uint8))
"""


def test_quantize_v2_is_no_stand_in_for_the_transform(tmp_path):
    """TensorFlow's QuantizeV2 (MIN_FIRST, over the same range) gives the transform's codes but
    one off: with its Eigen kernel only where a value's scaled value is a half within float's
    precision (it computes in float, the transform in double), with oneDNN's anywhere."""
    rng = np.random.default_rng(3)
    low, high = -1.0, 2.0
    values = np.clip(_near_halves(rng, low, high), low, high).astype(np.float32)
    mine = quantized_codes(values, low, high).astype(int)
    np.save(tmp_path / "values.npy", values)
    scale = 256 / (float(np.float32(high) - np.float32(low)) * 256 / 255)
    fraction = np.abs(values.astype(np.float64) * scale) % 1
    for onednn in ("0", "1"):
        env = {**os.environ, "TF_ENABLE_ONEDNN_OPTS": onednn, "TF_CPP_MIN_LOG_LEVEL": "3"}
        codes = tmp_path / f"codes{onednn}.npy"
        subprocess.run([sys.executable, "-c", QUANTIZE_V2, str(tmp_path / "values.npy"), str(low), str(high),
                        str(codes)], check=True, capture_output=True, env=env, timeout=300)
        differs = np.load(codes).astype(int) != mine
        assert np.all(np.abs(np.load(codes).astype(int) - mine) <= 1)
        if onednn == "0":
            assert differs.any() and np.all(np.abs(fraction[differs] - 0.5) < 1e-5)


def test_the_range_is_tensorflows(tmp_path):
    """Widened to include 0; the maximum never below the smallest positive float (TensorFlow's
    start); a zero minimum keeps the first zero's sign; a weight of zeros gets [0, 1], because
    TensorFlow's own [0, 1.18e-38] dequantizes to NaN, as TensorFlow shows."""
    import tensorflow as tf

    positive = np.array([0.5, 3.0, 1.0], np.float32)
    negative = np.array([-0.5, -3.0], np.float32)
    assert weight_range(positive) == (0.0, 3.0) and not np.signbit(weight_range(positive)[0])
    assert weight_range(negative) == (-3.0, SMALLEST_POSITIVE) == (-3.0, float(np.finfo(np.float32).tiny))
    assert np.signbit(weight_range(np.array([2.0, -0.0, 0.0], np.float32))[0])
    assert not np.signbit(weight_range(np.array([2.0, 0.0, -0.0], np.float32))[0])
    zeros = np.zeros(MIN_ELEMENTS, np.float32)
    low, high = weight_range(zeros)
    assert (low, high) == (0.0, 1.0) and not quantized_codes(zeros, low, high).any()
    codes = tf.constant(quantized_codes(zeros, low, high), dtype=tf.quint8)
    for maximum, finite in ((high, True), (SMALLEST_POSITIVE, False)):
        back = tf.raw_ops.Dequantize(input=codes, min_range=np.float32(low), max_range=np.float32(maximum),
                                     mode="MIN_FIRST").numpy()
        assert np.all(np.isfinite(back)) == finite and (not finite or not back.any())


def test_with_no_minimum_size_every_float_constant_is_quantized_and_still_runs(tmp_path):
    """--min-elements 0 quantizes scalars and empty constants too, as TensorFlow's
    minimum_size=0 does; TensorFlow runs the result."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
        scaled = x * tf.constant(np.float32(-2.5), name="scale")
        tf.identity(tf.concat([scaled, tf.constant(np.zeros(0, np.float32), name="nothing")], 0), name="y")
    original = load_model_from(graph, tmp_path)
    result = quantize_weights(original, where="graph", min_elements=0)
    assert {weight.name for weight in result.weights} == {"scale", "nothing"}
    feeds = {"x:0": np.array([1.0, -2.0, 0.5], np.float32)}
    (expected,), (got,) = _run(original, ["y:0"], feeds), _run(result.graph_def, ["y:0"], feeds)
    step = next(weight.step for weight in result.weights if weight.name == "scale")
    assert np.all(np.abs(got - expected) <= np.abs(feeds["x:0"]) * step + 1e-6)


def load_model_from(graph, tmp_path: Path):
    path = tmp_path / "graph.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return load_model(path).graph_defs[0]


def _quantize(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfbuild", "quantize-weights", *args], capture_output=True, text=True,
                          timeout=300)


def test_the_command_writes_a_graph_analyze_header_and_verify_read_as_8_bit(frozen_graph, tmp_path):
    from tfbuild.pipeline.verify.probe import plan_probe

    original = load_model(frozen_graph).graph_defs[0]
    out = tmp_path / "quantized.pb"
    done = _quantize(str(frozen_graph), "-o", str(out))
    assert done.returncode == 0, done.stderr
    floats = sum(node.op == "Const" and node.attr["dtype"].type == DT_FLOAT for node in original.node)
    assert f"wrote {out}: {len(_large_float_constants(original))} of {floats} float constants" in done.stdout
    written = load_model(out).graph_defs[0]
    assert written == quantize_weights(original, where="x").graph_def
    assert out.stat().st_size < frozen_graph.stat().st_size
    analyzed = subprocess.run([sys.executable, "-m", "tfbuild", "analyze", "--json", str(out)], capture_output=True,
                              text=True, timeout=300)
    assert analyzed.returncode == 0, analyzed.stderr
    (model,) = json.loads(analyzed.stdout)["models"]
    assert model["graphs"][0]["op_counts"]["Dequantize"] == 3
    header = tmp_path / "ops_to_register.h"
    assert main(["header", str(out), "-o", str(header)]) == 0
    assert 'isequal(op, "Dequantize")' in header.read_text()
    # verify fetches every dequantized weight and compares it on its 8-bit grid; what they feed is
    # compared as floating point, against the reference fed the target's weights.
    probe = plan_probe(written, where=str(out))
    assert set(probe.weights) == {f"{name}:0" for name in _large_float_constants(original)}
    assert probe.eight_bit == set(probe.weights) and "conv_out:0" in probe.outputs
    assert "library_out:0" in probe.outputs
    fewer = _quantize(str(frozen_graph), "-o", str(tmp_path / "fewer.pb"), "--min-elements", "1200", "--json")
    assert fewer.returncode == 0, fewer.stderr
    document = json.loads(fewer.stdout)
    assert {item["name"] for item in document["quantized"]} == _large_float_constants(original, 1200)


def _graph_with(tmp_path: Path, name: str, change) -> Path:
    """The frozen graph of a small MatMul with a 32x32 weight, changed by ``change``."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 32], name="x")
        tf.identity(tf.matmul(x, tf.constant(np.ones((32, 32), np.float32), name="w")), name="y")
    graph_def = graph.as_graph_def()
    change(graph_def)
    path = tmp_path / name
    path.write_bytes(graph_def.SerializeToString())
    return path


def _nan_weight(graph_def) -> None:
    node = next(node for node in graph_def.node if node.name == "w")
    values = np.ones((32, 32), np.float32)
    values[3, 4] = np.nan
    node.attr["value"].tensor.tensor_content = values.tobytes()


def _taken_name(graph_def) -> None:
    graph_def.node.add(name="w_quantized_min", op="NoOp")


def _dangling_input(graph_def) -> None:
    next(node for node in graph_def.node if node.name == "y").input.append("^missing")


@pytest.mark.parametrize(("change", "message"), [
    (_nan_weight, "Const node 'w' holds an infinite or NaN value"),
    (_taken_name, "quantizing 'w' makes a node 'w_quantized_min', a name the graph has"),
    (_dangling_input, "node 'y' reads '^missing', which is no node of the graph"),
])
def test_a_graph_it_cannot_quantize_is_one_line_and_nothing_written(change, message, tmp_path, capsys):
    model = _graph_with(tmp_path, "model.pb", change)
    out = tmp_path / "out" / "quantized.pb"
    out.parent.mkdir()
    out.write_bytes(b"kept")
    code = main(["quantize-weights", str(model), "-o", str(out)])
    errors = [line for line in capsys.readouterr().err.splitlines() if line]
    assert code == 3 and len(errors) == 1 and errors[0].startswith(f"error: {model}: {message}"), errors
    assert out.read_bytes() == b"kept" and list(out.parent.iterdir()) == [out]


@pytest.mark.parametrize("bad", INVALID, ids=[path.name for path in INVALID])
def test_what_is_no_frozen_graph_is_refused_in_one_line(bad, tmp_path, capsys):
    out = tmp_path / "quantized.pb"
    code = main(["quantize-weights", str(bad), "-o", str(out)])
    errors = [line for line in capsys.readouterr().err.splitlines() if line]
    assert code == 3 and len(errors) == 1 and bad.name in errors[0], errors
    assert list(tmp_path.iterdir()) == []


def test_other_inputs_and_outputs_are_refused(frozen_graph, models, tmp_path, capsys):
    from tfbuild.model.memmapped import write_package

    package = tmp_path / "model.mmap"
    package.write_bytes(write_package(load_model(frozen_graph).graph_defs[0], min_bytes=1024).data)
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    before = frozen_graph.read_bytes()
    cases = [
        ([str(package), "-o", str(tmp_path / "a.pb")], 3, f"{package}: is a memmapped package"),
        ([str(models.keras_saved_model), "-o", str(tmp_path / "a.pb")], 3, "this is a saved-model"),
        ([str(models.tflite), "-o", str(tmp_path / "a.pb")], 3, "this is a tflite"),
        ([str(tmp_path / "missing.pb"), "-o", str(tmp_path / "a.pb")], 3, "missing.pb: no such file"),
        ([str(fifo), "-o", str(tmp_path / "a.pb")], 3, f"{fifo}: is a FIFO"),
        ([str(frozen_graph), "-o", str(frozen_graph)], 2, "-o names the input model"),
        ([str(frozen_graph), "-o", str(tmp_path)], 2, "is a directory"),
    ]
    for argv, expected, message in cases:
        code = main(["quantize-weights", *argv])
        errors = [line for line in capsys.readouterr().err.splitlines() if line]
        assert code == expected and len(errors) == 1 and message in errors[0], (argv, errors)
    assert frozen_graph.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["model.fifo", "model.mmap"]
