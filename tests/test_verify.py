"""``tfbuild verify``: the built binary against TensorFlow, element by element.

Unit tests for the parts (inputs, probe, tensor file on both sides, comparison, the C++ runner's
plan), then real runs: the example op library built with ``tfbuild build --local`` and verified
(it passes), built from sources whose kernel arithmetic is broken (it fails, exit 8, naming the
output, the element and both values), and, when a real Makefile build is at hand
(``TFBUILD_REAL_BUILD=<its output directory>``), that build through the C++ runner.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import numpy as np
import pytest
from manifests import write_manifest

from tfbuild.errors import ConfigError, InputFileError, ManifestError, ToolchainError, VerificationError
from tfbuild.pipeline.planning.plan import ImageSpec
from tfbuild.pipeline.verify.compare import compare_tensor
from tfbuild.pipeline.verify.cpp_runner import (
    COMPILE_STEP,
    CppRunnerRequest,
    RunnerJob,
    plan_cpp_runner,
    runner_sources,
)
from tfbuild.pipeline.verify.probe import (
    BATCH_SIZE,
    NOT_COMPARED,
    OPEN_DIM,
    OUTPUTS_FOUND,
    OUTPUTS_GIVEN,
    SHAPE_FOUND,
    SHAPE_GIVEN,
    Feed,
    make_inputs,
    parse_input_shape,
)
from tfbuild.pipeline.verify.tensor_file import DTYPES, MAGIC, encode_tensors, read_tensor_file, write_tensor_file
from tfbuild.resources import examples_dir
from tfbuild.toolchain.targets import Platform, get_target, load_targets

DATA = Path(__file__).resolve().parent / "data" / "verify"
ROUNDTRIP = DATA / "tensor_file_roundtrip.cc"
EXAMPLE = examples_dir() / "custom_ops"
MODEL = EXAMPLE / "model.pbtxt"
FUNCTORS = "example_functors.h"
SCALE_LINE = "  T operator()(T x) const { return static_cast<T>(x * scale); }"
DT = {"float": 1, "double": 2, "int32": 3, "uint8": 4, "int8": 6, "int64": 9, "bool": 10, "half": 19}


def tfbuild(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True, cwd=cwd)


# -- inputs ----------------------------------------------------------------------------------------
def test_inputs_are_deterministic_per_seed_and_name():
    feeds = [Feed("x:0", DT["float"], (4, 8)), Feed("y:0", DT["float"], (4, 8))]
    first, again, other = make_inputs(feeds, seed=0), make_inputs(feeds, seed=0), make_inputs(feeds, seed=1)
    assert np.array_equal(first["x:0"], again["x:0"]) and np.array_equal(first["y:0"], again["y:0"])
    assert not np.array_equal(first["x:0"], other["x:0"])
    assert not np.array_equal(first["x:0"], first["y:0"])  # two inputs never share values


@pytest.mark.parametrize(
    ("dtype", "low", "high"),
    [("float", -1.0, 1.0), ("double", -1.0, 1.0), ("half", -1.0, 1.0), ("int32", -8, 8), ("int8", -8, 8),
     ("int64", -8, 8), ("uint8", 0, 15)],
)
def test_inputs_follow_the_dtype_and_spread_over_its_range(dtype, low, high):
    values = make_inputs([Feed("t:0", DT[dtype], (64, 16))], seed=3)["t:0"]
    assert values.dtype == DTYPES[DT[dtype]] and values.shape == (64, 16)
    assert values.min() >= low and values.max() <= high
    assert len(np.unique(values)) > (5 if values.dtype.kind in "iu" else 500)  # spread, not a constant
    if low < 0:
        assert (values < 0).any() and (values > 0).any()


def test_bool_inputs_are_mixed_and_no_input_is_all_zeros():
    assert set(np.unique(make_inputs([Feed("b:0", DT["bool"], (100,))], seed=0)["b:0"])) == {False, True}
    for seed in range(60):  # single elements: the draw is 0 (or False) now and then, the input never
        for dtype in ("int32", "uint8", "bool", "float"):
            value = make_inputs([Feed("one:0", DT[dtype], (1,))], seed=seed)["one:0"]
            assert value.any(), (seed, dtype)


def test_input_shape_option_parses():
    assert parse_input_shape("input=1,96,96,3") == ("input", (1, 96, 96, 3))
    assert parse_input_shape("x:0=5") == ("x", (5,))
    assert parse_input_shape("scalar=") == ("scalar", ())
    with pytest.raises(ConfigError, match="NAME=D0,D1"):
        parse_input_shape("input 1x96x96x3")


# -- probe (needs TensorFlow's GraphDef protos) ----------------------------------------------------
PROBE_GRAPH = """
node { name: "images" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 8 } dim { size: -1 } } } } }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "ws" op: "Sqrt" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m1" op: "Mul" input: "images" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "id1" op: "Identity" input: "m1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m2" op: "Mul" input: "id1" input: "ws" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "r1" op: "Relu" input: "m2" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "r1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "n2" op: "Mul" input: "ids" input: "ids" attr { key: "T" value { type: DT_INT32 } } }
node { name: "ids_out" op: "Neg" input: "n2" attr { key: "T" value { type: DT_INT32 } } }
node { name: "init" op: "NoOp" }
"""


@pytest.fixture(scope="module")
def probe_graph(tmp_path_factory):
    from tfbuild.model.formats import load_model

    path = tmp_path_factory.mktemp("probe") / "graph.pbtxt"
    path.write_text(PROBE_GRAPH)
    return load_model(path).graph_defs[0]


@pytest.mark.tensorflow
def test_probe_feeds_placeholders_and_compares_sinks_and_first_of_each_kind(probe_graph):
    from tfbuild.pipeline.verify.probe import plan_probe

    probe = plan_probe(probe_graph, where="graph")
    assert [(feed.tensor, feed.dtype, feed.shape) for feed in probe.feeds] == [
        ("images:0", DT["float"], (BATCH_SIZE, 8, OPEN_DIM)), ("ids:0", DT["int32"], (OPEN_DIM,))]
    assert all(feed.shape_from.startswith(SHAPE_FOUND + "; its open dimensions made") for feed in probe.feeds)
    assert probe.outputs == ("out:0", "ids_out:0")  # an Identity may be an output; NoOp is none
    assert probe.outputs_from == OUTPUTS_FOUND
    # The first float Mul, Relu, the int32 Mul (another kernel), and the Sqrt of a constant; not
    # m2 (a second float Mul), the Identity, Const or placeholders. In graph order.
    assert probe.intermediates == ("ws:0", "m1:0", "r1:0", "n2:0")
    # Fewer: those the inputs flow through first, spread evenly; constant subgraphs last.
    assert plan_probe(probe_graph, where="graph", max_intermediates=3).intermediates == ("m1:0", "r1:0", "n2:0")
    assert plan_probe(probe_graph, where="graph", max_intermediates=2).intermediates == ("m1:0", "n2:0")
    assert plan_probe(probe_graph, where="graph", max_intermediates=0).intermediates == ()


@pytest.mark.tensorflow
def test_probe_takes_the_users_shapes_and_outputs(probe_graph):
    from tfbuild.pipeline.verify.probe import plan_probe

    probe = plan_probe(probe_graph, where="graph", shapes={"images": (2, 8, 3)}, outputs=["r1", "n2:0"])
    assert probe.feeds[0] == Feed("images:0", DT["float"], (2, 8, 3), SHAPE_GIVEN)
    assert probe.feeds[1].shape_from.startswith(SHAPE_FOUND)
    assert probe.outputs == ("r1:0", "n2:0") and probe.outputs_from == OUTPUTS_GIVEN
    assert "r1:0" not in probe.intermediates and "n2:0" not in probe.intermediates
    with pytest.raises(ConfigError, match="no placeholder"):
        plan_probe(probe_graph, where="graph", shapes={"w": (1,)})
    with pytest.raises(ConfigError, match="--output-tensor nothere:0"):
        plan_probe(probe_graph, where="graph", outputs=["nothere"])


@pytest.mark.tensorflow
def test_probe_compares_only_what_a_session_can_fetch_around_tf1_control_flow(tmp_path):
    """Tensors inside a while loop's frame or on a cond branch cannot be fetched after a run;
    the probe leaves them out, and TensorFlow fetches every tensor it keeps."""
    import importlib.util

    import tensorflow as tf

    from tfbuild.model.formats import load_model
    from tfbuild.pipeline.verify.probe import plan_probe

    script = Path(__file__).resolve().parent.parent / "scripts" / "make_control_flow_model.py"
    spec = importlib.util.spec_from_file_location("make_control_flow_model", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "control_flow.pb"
    module.main(path)
    graph_def = load_model(path).graph_defs[0]
    probe = plan_probe(graph_def, where=str(path))
    kept = {name.split(":")[0] for name in probe.intermediates}
    assert kept, "the probe keeps the tensors outside the loop and the cond"
    assert not any(name.startswith(("while/", "cond/")) for name in kept), kept
    assert "Sum" in kept  # after the loop's Exit: fetchable again

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    feeds = make_inputs(probe.feeds, seed=0)
    with tf.compat.v1.Session(graph=graph) as session:
        results = session.run([*probe.outputs, *probe.intermediates], feed_dict=feeds)
    assert len(results) == len(probe.outputs) + len(probe.intermediates)


@pytest.mark.tensorflow
def test_a_placeholder_of_unknown_rank_needs_a_shape(tmp_path):
    from tfbuild.model.formats import load_model
    from tfbuild.pipeline.verify.probe import plan_probe

    path = tmp_path / "g.pbtxt"
    path.write_text('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
                    'node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n')
    graph = load_model(path).graph_defs[0]
    with pytest.raises(ConfigError, match="'x' has no known rank") as caught:
        plan_probe(graph, where="g")
    assert caught.value.hint == "give it with --input-shape x=D0,D1,..."
    assert plan_probe(graph, where="g", shapes={"x": (3,)}).feeds == (Feed("x:0", DT["float"], (3,), SHAPE_GIVEN),)


SINKS_GRAPH = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "unused" op: "PlaceholderWithDefault" input: "x" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "check" op: "Assert" input: "flag" input: "y" attr { key: "T" value { list { type: DT_FLOAT } } } }
node { name: "flag" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
       attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: true } } } }
node { name: "z" op: "Square" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "set" op: "Assign" input: "v" input: "z" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "init" op: "NoOp" }
"""


@pytest.mark.tensorflow
def test_the_default_outputs_are_summarize_graphs_likely_outputs_less_what_verify_cannot_compare(tmp_path):
    """One rule for what a graph's outputs are: analyze's list (summarize_graph's likely
    outputs); verify drops from it only the ops whose value no kernel of the build computes or that
    have no tensor to fetch."""
    from tfbuild.model.formats import load_model
    from tfbuild.model.graph_summary import likely_outputs
    from tfbuild.pipeline.verify.probe import plan_probe

    path = tmp_path / "sinks.pbtxt"
    path.write_text(SINKS_GRAPH)
    graph = load_model(path).graph_defs[0]
    likely = likely_outputs(graph)
    # y and z feed others; summarize_graph leaves out the Assign and the NoOp.
    assert [(output.name, output.op) for output in likely] == [("unused", "PlaceholderWithDefault"), ("check", "Assert")]
    probe = plan_probe(graph, where=str(path), outputs=["y", "z"])
    assert probe.outputs == ("y:0", "z:0") and probe.outputs_from == OUTPUTS_GIVEN
    with pytest.raises(InputFileError, match="has no output to compare") as caught:
        plan_probe(graph, where=str(path))  # every likely output is one verify cannot compare
    assert all(output.op in NOT_COMPARED for output in likely) and "--output-tensor" in caught.value.hint
    path.write_text(SINKS_GRAPH.replace('input: "flag" input: "y"', 'input: "flag" input: "x"'))
    graph = load_model(path).graph_defs[0]
    probe = plan_probe(graph, where=str(path))
    assert probe.outputs == tuple(f"{o.name}:0" for o in likely_outputs(graph) if o.op not in NOT_COMPARED) == ("y:0",)
    assert probe.outputs_from == OUTPUTS_FOUND and probe.feeds[0].shape_from == SHAPE_FOUND


# -- tensor file ---------------------------------------------------------------------------------
def sample_tensors() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    tensors = {f"t_{dtype}:0": rng.uniform(-50, 50, size=(2, 3)).astype(dtype) for dtype in DTYPES.values()
               if dtype.names is None}
    for dtype in DTYPES.values():  # TensorFlow's quantized dtypes: one-field records of their codes
        if dtype.names is not None:
            plain = dtype[0]
            tensors[f"t_{dtype.names[0]}:0"] = rng.integers(-50, 50, size=(2, 3)).astype(plain).view(dtype)
    tensors["scalar:0"] = np.array(3.5, dtype=np.float32)
    tensors["empty:0"] = np.zeros((0, 4), dtype=np.int32)
    tensors["name/with ünïcode:1"] = np.arange(5, dtype=np.int64)
    return tensors


def assert_same(got: dict, expected: dict) -> None:
    assert list(got) == list(expected)
    for name, array in expected.items():
        assert got[name].dtype == array.dtype and got[name].shape == array.shape, name
        assert np.array_equal(got[name], array), name


def test_tensor_file_roundtrips_every_dtype(tmp_path):
    tensors = sample_tensors()
    path = write_tensor_file(tmp_path / "a.tensors", tensors)
    assert path.read_bytes()[:8] == MAGIC
    assert_same(read_tensor_file(path), tensors)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda data: data[:-3], "truncated"),
        (lambda data: b"XXXXXXXX" + data[8:], "does not start with TFBTNS01"),
        (lambda data: data + b"\0", "1 bytes after the last tensor"),
        (lambda data: b"", "truncated: 8 bytes wanted at offset 0"),
    ],
)
def test_a_malformed_tensor_file_is_an_input_error(tmp_path, mangle, message):
    path = tmp_path / "bad.tensors"
    path.write_bytes(mangle(encode_tensors({"x:0": np.ones((2, 2), np.float32)})))
    with pytest.raises(InputFileError, match=message):
        read_tensor_file(path)


def test_a_string_tensor_cannot_be_written(tmp_path):
    with pytest.raises(ValueError, match="cannot be written"):
        encode_tensors({"s:0": np.array(["a", "b"])})


def compile_roundtrip(tmp_path: Path, compiler: str, flags: tuple[str, ...] = ()) -> Path:
    """The C++ test program against the header tfbuild renders for its runner."""
    include = tmp_path / "include"
    for generated in runner_sources(include, get_target("linux-x86_64")):
        generated.path.parent.mkdir(parents=True, exist_ok=True)
        generated.path.write_text(generated.content)
    binary = tmp_path / f"roundtrip-{compiler}"
    subprocess.run([compiler, "-std=c++11", "-Wall", "-Werror", *flags, f"-I{include}", str(ROUNDTRIP), "-o", str(binary)],
                   check=True, capture_output=True, text=True)
    return binary


def run_roundtrip(launcher: tuple[str, ...], binary: Path, tmp_path: Path) -> None:
    tensors = sample_tensors()
    given, back = tmp_path / "given.tensors", tmp_path / "back.tensors"
    write_tensor_file(given, tensors)
    done = subprocess.run([*launcher, str(binary), str(given), str(back)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "t_float32:0 dtype=1 rank=2 bytes=24" in done.stdout
    assert "empty:0 dtype=3 rank=2 bytes=0" in done.stdout
    expected = {**tensors, "made_in_cpp:0": np.array([[1, -2], [3, -4]], dtype=np.int32)}
    assert_same(read_tensor_file(back), expected)
    assert not back.with_name(back.name + ".partial").exists()

    truncated = tmp_path / "truncated.tensors"
    truncated.write_bytes(given.read_bytes()[:-1])
    done = subprocess.run([*launcher, str(binary), str(truncated), str(tmp_path / "never")], capture_output=True, text=True)
    assert done.returncode == 1 and "truncated element data" in done.stderr
    assert not (tmp_path / "never").exists()


@pytest.mark.compiler
def test_the_cpp_tensor_file_reads_and_writes_what_python_does(tmp_path):
    binary = compile_roundtrip(tmp_path, "g++")
    run_roundtrip(get_target("linux-x86_64").launcher, binary, tmp_path)


CROSS_LINUX_TARGETS = sorted(
    name for name, profile in load_targets().items()
    if profile.platform is Platform.LINUX and profile.launcher and profile.ops_library is not None
)
"""Every Linux target whose programs run here under qemu-user, as the target files say."""


@pytest.mark.cross
@pytest.mark.parametrize("target", CROSS_LINUX_TARGETS)
def test_the_cpp_tensor_file_on_a_cross_target_under_its_launcher(tmp_path, target):
    profile = get_target(target)
    compiler = profile.ops_library.compiler
    binary = compile_roundtrip(tmp_path, compiler, profile.ops_library.cflags)
    assert profile.launcher[0] == profile.architecture.runs and profile.launcher[0].startswith("qemu-")
    run_roundtrip(profile.launcher, binary, tmp_path)


# -- comparison -----------------------------------------------------------------------------------
def test_floats_pass_within_the_tolerance_and_fail_beyond_naming_the_worst_element():
    expected = np.array([[0.5, 100.0], [-2.0, 0.0]], dtype=np.float32)  # peak 100: bound 1e-2 at 1e-4
    close = expected + np.array([[5e-3, -9e-3], [9e-3, 1e-3]], dtype=np.float32)
    assert compare_tensor("y:0", "output", close, expected, 1e-4).passed
    far = expected.copy()
    far[1, 0] = -2.05
    far[0, 0] = 0.52
    diff = compare_tensor("y:0", "output", far, expected, 1e-4)
    assert not diff.passed and diff.mismatched == 2
    assert diff.worst.index == (1, 0) and diff.worst.expected == -2.0 and diff.worst.got == pytest.approx(-2.05)
    assert diff.max_abs_diff == pytest.approx(0.05, rel=1e-3)
    assert diff.max_rel_diff == pytest.approx(0.04, rel=1e-3)  # 0.02 / 0.5, relative to the element
    assert "output 'y:0' differs from the reference: at index [1, 0] got -2.04999995, expected -2" in diff.describe()
    assert "2 of 4 elements out of bounds" in diff.describe()


@pytest.mark.parametrize("scale", [1e-12, 1.0, 1e6])
def test_the_bound_follows_the_tensors_own_magnitude(scale):
    # The same relative error passes or fails whatever the values' magnitude: a tensor of tiny
    # activations (a random-weight network's last layers) is checked as closely as one of ones.
    expected = (np.linspace(-1, 1, 11) * scale).astype(np.float32)
    assert compare_tensor("t:0", "intermediate", expected * np.float32(1 + 5e-6), expected, 1e-4).passed
    off = expected.copy()
    off[3] += np.float32(2e-3 * scale)
    diff = compare_tensor("t:0", "intermediate", off, expected, 1e-4)
    assert not diff.passed and diff.worst.index == (3,)
    zeros = np.zeros(4, np.float32)
    assert compare_tensor("z:0", "intermediate", zeros.copy(), zeros, 1e-4).passed
    assert not compare_tensor("z:0", "intermediate", zeros + np.float32(1e-30), zeros, 1e-4).passed


def test_integers_must_be_equal_and_nan_equals_nan():
    assert not compare_tensor("n:0", "output", np.array([1, 2, 4]), np.array([1, 2, 3]), 1.0).passed
    assert compare_tensor("n:0", "output", np.array([1, 2, 3]), np.array([1, 2, 3]), 0.0).passed
    nan = np.array([np.nan, 1.0, np.inf], dtype=np.float32)
    assert compare_tensor("f:0", "output", nan.copy(), nan, 0.0).passed
    assert not compare_tensor("f:0", "output", np.array([1.0, 1.0, np.inf], np.float32), nan, 0.5).passed
    assert not compare_tensor("f:0", "output", np.array([np.nan, 1.0, -np.inf], np.float32), nan, 0.5).passed


def test_a_tensor_computed_from_8_bit_values_passes_within_two_steps_of_its_grid():
    expected = np.linspace(0.0, 2.55, 256, dtype=np.float32)  # range 2.55: one 8-bit step is 0.01
    one_and_a_half = expected + np.float32(0.015)
    plain = compare_tensor("y:0", "output", one_and_a_half, expected, 1e-4)
    assert not plain.passed and plain.bound == "float" and plain.step is None  # 0.015 > 1e-4 * 2.55
    eight_bit = compare_tensor("y:0", "output", one_and_a_half, expected, 1e-4, eight_bit=True)
    assert eight_bit.passed and eight_bit.bound == "8-bit" and eight_bit.step == pytest.approx(0.01)
    three_steps = compare_tensor("y:0", "output", expected + np.float32(0.03), expected, 1e-4, eight_bit=True)
    assert not three_steps.passed and three_steps.mismatched == 256
    # Integers stay exact whatever the model: the 8-bit rule is for values on a float grid.
    assert compare_tensor("n:0", "output", np.array([1, 2]), np.array([1, 3]), 1e-4, eight_bit=True).bound == "exact"


QUANTIZED_GRAPH = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "lo" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: -4 } } } }
node { name: "hi" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 4 } } } }
node { name: "scaled" op: "Mul" input: "x" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "q" op: "QuantizeV2" input: "scaled" input: "lo" input: "hi" attr { key: "T" value { type: DT_QUINT8 } } }
node { name: "dq" op: "Dequantize" input: "q" input: "q:1" input: "q:2" attr { key: "T" value { type: DT_QUINT8 } } }
node { name: "act" op: "Relu" input: "dq" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "act" attr { key: "T" value { type: DT_FLOAT } } }
"""


def test_the_probe_marks_what_a_dequantize_feeds_as_8_bit(tmp_path):
    from tfbuild.model.formats import load_model
    from tfbuild.pipeline.verify.probe import plan_probe

    path = tmp_path / "quantized.pbtxt"
    path.write_text(QUANTIZED_GRAPH)
    probe = plan_probe(load_model(path).graph_defs[0], where="graph")
    assert probe.outputs == ("out:0",)
    assert {"scaled:0", "dq:0", "act:0"} <= set(probe.intermediates)
    assert probe.eight_bit == {"out:0", "dq:0", "act:0"}  # the float Mul before QuantizeV2 is not
    assert probe.weights == ()  # the Dequantize is on the input's path: no stored weight


def test_shape_or_dtype_differences_fail_without_values():
    shape = compare_tensor("t:0", "intermediate", np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32), 1.0)
    assert not shape.passed and shape.problem == "shape [2, 3], expected [3, 2]"
    dtype = compare_tensor("t:0", "output", np.zeros(3, np.float64), np.zeros(3, np.float32), 1.0)
    assert not dtype.passed and "dtype float64, expected float32" in dtype.describe()
    assert not compare_tensor("t:0", "output", None, np.zeros(3, np.float32), 1.0).passed


# -- the C++ runner's plan -----------------------------------------------------------------------
def runner_request(tmp_path: Path, target: str, *, image: ImageSpec | None, libraries=True) -> CppRunnerRequest:
    out, tree = tmp_path / "out", tmp_path / "tree"
    out.mkdir(parents=True, exist_ok=True)
    tree.mkdir(parents=True, exist_ok=True)
    if libraries:
        for name in ("libtensorflow-core.a", "libprotobuf.a", "libnsync.a"):
            (out / name).write_bytes(b"!<arch>\n")
    work = out / "verify"
    job = RunnerJob("run m.pb", work / "0-m.graph.pb", work / "0-m.inputs.tensors", work / "0-m.target.tensors",
                    ("out:0", "mid:0"))
    return CppRunnerRequest(get_target(target), out, tree, work, image, (job,))


def test_cpp_runner_plan_in_the_container_links_the_archive_whole_and_runs_under_qemu(tmp_path):
    image = ImageSpec("linux.Dockerfile", {"BASE_IMAGE": "tfbuild-base:bullseye"}, "tfbuild-toolchain:linux-x")
    plan = plan_cpp_runner(runner_request(tmp_path, "linux-aarch64", image=image))
    assert plan.image == image
    assert {(str(m.target), m.source, m.read_only) for m in plan.mounts} == {
        ("/src", tmp_path / "tree", True), ("/out", tmp_path / "out", False),
    }
    compile_step, run = plan.steps
    assert compile_step.name == COMPILE_STEP
    argv = compile_step.argv
    assert argv[0] == "aarch64-linux-gnu-g++" and "-march=armv8-a" in argv
    assert "-I/src/tensorflow/contrib/makefile/gen/proto" in argv and "-I/out/verify" in argv
    link = argv[argv.index("-Wl,--whole-archive"):]
    assert link[:4] == ("-Wl,--whole-archive", "/out/libtensorflow-core.a", "-Wl,--no-whole-archive", "/out/libprotobuf.a")
    assert link[-4:] == ("-lpthread", "-ldl", "-lm", "-lz")
    assert run.argv == (
        "qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "/out/verify/runner-linux-aarch64",
        "/out/verify/0-m.graph.pb", "/out/verify/0-m.inputs.tensors", "/out/verify/0-m.target.tensors",
        "out:0", "mid:0",
    )
    assert run.workdir == PurePosixPath("/out/verify")
    assert {generated.path.name for generated in plan.generated_files} == {"runner.cc", "tensor_file.h"}
    assert "tensorflow::ReadBinaryProto" in plan.generated_files[0].content


def test_cpp_runner_plan_on_this_machine_uses_host_paths_and_no_launcher(tmp_path):
    plan = plan_cpp_runner(runner_request(tmp_path, "linux-x86_64", image=None))
    assert plan.image is None and plan.mounts == ()
    assert plan.steps[0].argv[0] == "g++"
    assert f"-I{tmp_path / 'tree'}/tensorflow/contrib/makefile/downloads/eigen" in plan.steps[0].argv
    assert plan.steps[1].argv[0] == str(tmp_path / "out" / "verify" / "runner-linux-x86_64")


def test_cpp_runner_links_with_the_builds_size_profile_flags_as_an_app_would(tmp_path):
    request = runner_request(tmp_path, "linux-x86_64", image=None)
    ldflags = ["-fuse-ld=gold", "-Wl,--gc-sections", "-Wl,--icf=all", "-s"]
    write_manifest(tmp_path / "out", size_profile={"name": "small", "ldflags": ldflags})
    argv = plan_cpp_runner(request).steps[0].argv
    assert argv[-len(ldflags):] == tuple(ldflags)
    assert argv.index("-Wl,--whole-archive") < argv.index("-Wl,--gc-sections")


def test_cpp_runner_refuses_targets_it_cannot_run_and_missing_libraries(tmp_path):
    with pytest.raises(ToolchainError, match="ios-arm64"):
        plan_cpp_runner(runner_request(tmp_path, "ios-arm64", image=None))
    with pytest.raises(InputFileError, match="libtensorflow-core.a"):
        plan_cpp_runner(runner_request(tmp_path / "empty", "linux-x86_64", image=None, libraries=False))


def test_every_target_that_runs_here_says_how():
    assert CROSS_LINUX_TARGETS and "linux-x86_64" not in CROSS_LINUX_TARGETS
    for name in ("linux-x86_64", "linux-aarch64", "pi-armv7", "android-arm64", "android-armv7"):
        assert get_target(name).run is not None
    assert get_target("linux-x86_64").launcher == ()
    assert get_target("pi-armv7").launcher == ("qemu-arm", "-L", "/usr/arm-linux-gnueabihf")
    assert get_target("linux-aarch64").launcher == ("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu")
    assert get_target("android-arm64").launcher == ("qemu-aarch64",)  # a static runner: no system root
    assert get_target("android-armv7").launcher == ("qemu-arm",)
    assert get_target("android-x86_64").launcher == ()
    assert get_target("ios-arm64").launcher is None


# -- what verify refuses before running anything -------------------------------------------------
SHARED_LIB = [{"name": "libtfbuild_ops.so", "kind": "shared-lib"}]


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"target": "ios-arm64"}, ToolchainError, "ios-arm64 has no way to run its programs here"),
        ({"target": "android-arm64"}, InputFileError, r"records no Android NDK \(android_ndk\)"),
        ({"target": "android-arm64", "android_ndk": {"path": "/ndk", "revision": "17.2.4988734", "adapter": "gcc",
                                                      "stl": "gnustl_static"}},
         ToolchainError, "the contrib Makefile's own Android section"),
        ({"target": "android-arm64", "android_ndk": {"path": "/ndk"}}, ManifestError,
         r"manifest.json: not a valid manifest: android_ndk: missing key 'revision'"),
        ({"flavour": "bazel"}, ToolchainError, "Makefile and op-library builds; this one is bazel"),
        ({"target": "pi-armv7", "flavour": "ops-library", "artifacts": [{"name": "libtfbuild_ops.a", "kind": "static-lib"}]},
         ToolchainError, "static archive"),
        ({"flavour": "ops-library", "artifacts": SHARED_LIB}, InputFileError, "no stock build of the op library"),
        ({"target": "nowhere"}, ConfigError, "unknown target 'nowhere'"),
        ({"flavour": "cmake"}, ManifestError, "flavour: unknown flavour 'cmake'"),
        ({"schema": 2}, ManifestError, "manifest schema 2, this tfbuild reads schema 1"),
        ({"artifacts": [{"name": 3}]}, ManifestError, r"artifacts\[0\].name: expected a string"),
    ],
)
def test_verify_refuses_what_it_cannot_run_before_running_anything(tmp_path, fields, error, message):
    from tfbuild.pipeline.verify.run import VerifyOptions, run_verify

    out = write_manifest(tmp_path / "out", **fields)
    with pytest.raises(error, match=message):
        run_verify(VerifyOptions(out_dir=out, local=fields.get("local")))
    assert not (out / "verify").exists()


def test_verify_refuses_a_container_run_of_a_local_build(tmp_path):
    from tfbuild.pipeline.verify.run import VerifyOptions, run_verify

    out = write_manifest(tmp_path / "out")
    with pytest.raises(ConfigError, match="no toolchain container") as caught:
        run_verify(VerifyOptions(out_dir=out, local=False))
    assert caught.value.hint == "use --local"


def test_verify_refuses_a_model_changed_since_the_build(tmp_path):
    from tfbuild.pipeline.verify.run import VerifyOptions, run_verify

    model = tmp_path / "model.pbtxt"
    model.write_text(MODEL.read_text() + "\n# edited\n")
    out = write_manifest(
        tmp_path / "out", flavour="ops-library", artifacts=SHARED_LIB,
        models=[{"name": "model.pbtxt", "path": str(model), "sha256": hashlib.sha256(MODEL.read_bytes()).hexdigest()}],
    )
    (out / ".analysis").mkdir()
    (out / ".analysis" / "libtfbuild_ops_host.so").write_bytes(b"\x7fELF")
    with pytest.raises(InputFileError, match="changed since the build"):
        run_verify(VerifyOptions(out_dir=out))


# -- real runs: the example op library -------------------------------------------------------------
def build_example(out: Path, sources_dir: Path) -> None:
    sources = sorted(sources_dir.glob("*.cc"))
    argv = ["build", "--target", "linux-x86_64", "--local", "--jobs", "2", "--out", str(out), "--model", str(MODEL)]
    for source in sources:
        argv += ["--op-source", str(source)]
    done = tfbuild(*argv, cwd=out.parent)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]


def broken_copy(directory: Path, replacement: str) -> Path:
    """The example's sources with ExampleScale's arithmetic replaced."""
    shutil.copytree(EXAMPLE, directory)
    functors = directory / FUNCTORS
    text = functors.read_text()
    assert SCALE_LINE in text
    functors.write_text(text.replace(SCALE_LINE, replacement))
    return directory


@pytest.fixture(scope="module")
def good_build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("verify-good") / "out"
    build_example(out, EXAMPLE)
    return out


def verify_section(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["verify"]


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_verify_passes_on_the_example_op_library(good_build):
    done = tfbuild("verify", "--out-dir", str(good_build))  # the others keep the old spelling, --out
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "verify: passed, 4 tensor(s) compared" in done.stdout
    assert not any("\u2500" <= char <= "\u257f" for char in done.stdout)  # piped: plain rows, no boxes
    record = verify_section(good_build)
    assert record["passed"] is True and record["error"] is None and record["tolerance"] == 1e-4
    assert str(good_build / ".analysis" / "libtfbuild_ops_host.so") in record["reference"]
    assert "libtfbuild_ops.so" in record["runner"]
    (model,) = record["models"]
    assert model["path"] == str(MODEL)
    assert [(feed["tensor"], feed["dtype"]) for feed in model["inputs"]] == [("x:0", "float32"), ("n:0", "int32")]
    # Where the outputs and the shapes came from: the graph, as summarize_graph finds them.
    assert sorted(model["outputs"]) == ["n_scaled:0", "positives:0"] and model["outputs_from"] == OUTPUTS_FOUND
    assert all(feed["shape_from"].startswith(SHAPE_FOUND) for feed in model["inputs"])
    assert f"outputs: {', '.join(model['outputs'])} ({OUTPUTS_FOUND})" in done.stdout
    assert f"input x:0: float32 {OPEN_DIM} ({model['inputs'][0]['shape_from']})" in done.stdout
    roles = {tensor["tensor"]: tensor["role"] for tensor in model["tensors"]}
    assert roles == {"positives:0": "output", "n_scaled:0": "output", "scaled:0": "intermediate",
                     "clipped:0": "intermediate"}
    assert all(t["passed"] and t["max_abs_diff"] == 0 and t["mismatched"] == 0 for t in model["tensors"])
    # What the runners saw: non-trivial inputs, and outputs that are the model's arithmetic on them.
    work = good_build / "verify"
    inputs = read_tensor_file(work / "0-model.inputs.tensors")
    outputs = read_tensor_file(work / "0-model.target.tensors")
    assert inputs["x:0"].any() and inputs["n:0"].any()
    assert np.array_equal(outputs["n_scaled:0"], (inputs["n:0"] * 3.0).astype(np.int32))
    assert outputs["positives:0"] == np.count_nonzero(np.clip(inputs["x:0"] * 2, -1, 3) > 0)


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_verify_takes_a_memmapped_package_as_the_model(good_build, tmp_path):
    """The example model as a memmapped package (its graph in the package's default region): the
    reference and the op library run its graph, and the package itself is kept for a C++ runner."""
    from tfbuild.model.formats import load_model
    from tfbuild.model.memmapped import write_package

    package = tmp_path / "model.mmap"
    package.write_bytes(write_package(load_model(MODEL).graph_defs[0]).data)
    done = tfbuild("verify", "--out", str(good_build), "--model", str(package), "--output-tensor", "positives:0",
                   "--output-tensor", "n_scaled", "--input-shape", "x=5")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "verify: passed, 4 tensor(s) compared" in done.stdout
    assert f"outputs: positives:0, n_scaled:0 ({OUTPUTS_GIVEN})" in done.stdout
    assert f"input x:0: float32 5 ({SHAPE_GIVEN})" in done.stdout and f"input n:0: int32 {OPEN_DIM} (" in done.stdout
    (model,) = verify_section(good_build)["models"]
    assert model["outputs_from"] == OUTPUTS_GIVEN and model["inputs"][0]["shape_from"] == SHAPE_GIVEN
    work = good_build / "verify"
    assert (work / "0-model.package").read_bytes() == package.read_bytes()
    assert verify_section(good_build)["models"][0]["path"] == str(package)


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_verify_feeds_the_reference_the_targets_dequantized_weights(good_build, tmp_path):
    """A graph with 8-bit weights: both runs write every dequantized weight, the reference runs
    again fed the target's, and the record says which were fed."""
    import tensorflow as tf

    from tfbuild.model.quantize_weights import quantize_weights

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 48], name="x")
        weights = np.random.default_rng(2).normal(0, 0.5, (48, 32)).astype(np.float32)
        tf.nn.relu(tf.matmul(x, tf.constant(weights, name="dense/w")), name="act")
    model = tmp_path / "dense_8bit.pb"
    model.write_bytes(quantize_weights(graph.as_graph_def(), where="dense").graph_def.SerializeToString())
    done = tfbuild("verify", "--out", str(good_build), "--model", str(model))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "weights: 1 dequantized, each compared on its 8-bit grid" in done.stdout
    (record,) = verify_section(good_build)["models"]
    assert record["weights_fed"] == ["dense/w:0"]
    tensors = {tensor["tensor"]: tensor for tensor in record["tensors"]}
    assert tensors["dense/w:0"]["bound"] == "8-bit" and tensors["act:0"]["bound"] == "float"
    work = good_build / "verify"
    fed_inputs = read_tensor_file(work / "0-dense_8bit.fed-inputs.tensors")
    target = read_tensor_file(work / "0-dense_8bit.target.tensors")
    assert sorted(fed_inputs) == ["dense/w:0", "x:0"]
    assert np.array_equal(fed_inputs["dense/w:0"], target["dense/w:0"])
    assert "act:0" in read_tensor_file(work / "0-dense_8bit.fed-reference.tensors")


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_verify_compares_a_quantized_output_by_what_its_codes_stand_for(good_build, tmp_path):
    """A quantize_nodes-style graph whose output is quint8 (a QuantizedRelu's): the output and
    its range travel to and from the runners and are compared; the record names the dtype."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 32], name="x")
        q = tf.raw_ops.QuantizeV2(input=x, min_range=tf.constant(-1.0), max_range=tf.constant(1.0), T=tf.quint8,
                                  mode="MIN_FIRST", name="q")
        tf.raw_ops.QuantizedRelu(features=q.output, min_features=q.output_min, max_features=q.output_max,
                                 out_type=tf.quint8, name="act")
    model = tmp_path / "quantized_out.pb"
    model.write_bytes(graph.as_graph_def().SerializeToString())
    done = tfbuild("verify", "--out", str(good_build), "--model", str(model))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "skipped" not in (good_build / "verify" / "verify-reference.build.log").read_text()
    (record,) = verify_section(good_build)["models"]
    tensors = {tensor["tensor"]: tensor for tensor in record["tensors"]}
    assert record["outputs"] == ["act:0"]
    assert tensors["act:0"]["dtype"] == "quint8" and tensors["act:0"]["bound"] == "8-bit"
    assert tensors["act:0"]["step"] == pytest.approx(2.0 / 255)  # its grid's, wider than its values' spread
    assert {"act:1", "act:2", "q:0", "q:1", "q:2"} <= set(tensors)
    assert re.search(r"^ok +output +quint8 +1x32 .* act:0", done.stdout, re.MULTILINE)


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_verify_fails_when_the_selective_build_computes_differently(tmp_path):
    # ExampleScale adds 1 in the selective build only: what a stock build of the same sources
    # (the default reference) cannot hide.
    broken = "#ifdef SELECTIVE_REGISTRATION\n" + SCALE_LINE.replace(
        "static_cast<T>(x * scale)", "static_cast<T>(x * scale) + static_cast<T>(1)"
    ) + "\n#else\n" + SCALE_LINE + "\n#endif"
    sources = broken_copy(tmp_path / "sources", broken)
    out = tmp_path / "out"
    build_example(out, sources)
    done = tfbuild("verify", "--out", str(out))
    assert done.returncode == VerificationError.exit_code == 8, done.stdout + done.stderr[-3000:]
    message = " ".join(done.stderr.split())  # rich may wrap long lines
    assert "error: model.pbtxt: output 'positives:0' differs from the reference: at index [] got" in message
    assert "more tensor(s) differ" in message
    record = verify_section(out)
    assert record["passed"] is False
    scaled = next(t for t in record["models"][0]["tensors"] if t["tensor"] == "n_scaled:0")
    assert scaled["passed"] is False and scaled["max_abs_diff"] == 1.0 and scaled["mismatched"] == 16
    assert scaled["worst"]["got"] == scaled["worst"]["expected"] + 1


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_broken_sources_fail_against_a_trusted_reference_library(tmp_path, good_build):
    broken = SCALE_LINE.replace("x * scale", "x * (scale + 1.0f)")
    sources = broken_copy(tmp_path / "sources", broken)
    out = tmp_path / "out"
    build_example(out, sources)
    # The default reference is a stock build of the same (broken) sources: they agree, so the
    # build is faithful to its sources, which is what that reference checks.
    assert tfbuild("verify", "--out", str(out)).returncode == 0
    trusted = good_build / ".analysis" / "libtfbuild_ops_host.so"
    done = tfbuild("verify", "--out", str(out), "--reference-op-library", str(trusted))
    assert done.returncode == 8, done.stdout + done.stderr[-3000:]
    message = " ".join(done.stderr.split())
    assert "output 'n_scaled:0' differs from the reference: at index [" in message
    worst = next(t for t in verify_section(out)["models"][0]["tensors"] if t["tensor"] == "n_scaled:0")["worst"]
    assert f"got {worst['got']}, expected {worst['expected']}" in message
    assert worst["got"] == int(worst["expected"] / 3 * 4)  # x * 4 where the reference has x * 3


@pytest.mark.tensorflow
def test_verify_without_a_build_is_an_input_error(tmp_path):
    done = tfbuild("verify", "--out", str(tmp_path))
    assert done.returncode == 3 and "no manifest" in done.stderr


# -- real runs: a Makefile build through the C++ runner ------------------------------------------
@pytest.mark.docker
@pytest.mark.tensorflow
@pytest.mark.skipif(not os.environ.get("TFBUILD_REAL_BUILD"), reason="TFBUILD_REAL_BUILD names no real Makefile build")
def test_verify_a_real_makefile_build_through_the_cpp_runner():
    out = Path(os.environ["TFBUILD_REAL_BUILD"])
    done = tfbuild("verify", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    record = verify_section(out)
    assert record["passed"] and "C++ runner" in record["runner"]
    tensors = record["models"][0]["tensors"]
    assert sum(t["role"] == "intermediate" for t in tensors) >= 4
    assert all(t["passed"] for t in tensors)


# -- real runs: every cross Linux target, built here and verified under its qemu-user ---------------
@pytest.mark.cross
@pytest.mark.tensorflow
@pytest.mark.parametrize("target", CROSS_LINUX_TARGETS)
def test_a_cross_target_builds_the_generated_tree_here_and_verifies_under_its_qemu(tf1_tree, tmp_path, target):
    """``tfbuild build --local`` of the generated TF 1.x tree's contrib Makefile with the target's
    cross compiler, then ``tfbuild verify``: the runner is compiled with the same compiler and
    flags, linked against the build's archives and the target's zlib, and run under the qemu-user
    program of the target's architecture. The tree's kernels compute nothing; its session
    forwards Identity's input once the library registered an Identity kernel, so what this
    checks is the runner's whole path on the target and that it runs the selective registry."""
    from modelgen import graph_pbtxt

    from tfbuild.pipeline.report.objects import object_kind

    architecture = get_target(target).architecture
    out = tmp_path / "out"
    model = graph_pbtxt(tmp_path / "identity.pbtxt", "Identity")
    done = tfbuild("build", "--source", str(tf1_tree), "--model", str(model), "--out", str(out), "--target", target,
                   "--flavour", "makefile", "--local", "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for name in ("libtensorflow-core.a", "libprotobuf.a", "libnsync.a", "benchmark"):
        assert object_kind(out / name).machine == architecture.elf_machine, name

    done = tfbuild("verify", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "verify: passed, 1 tensor(s) compared" in done.stdout
    record = verify_section(out)
    assert record["passed"] and f"run {architecture.runs} on this machine" in record["runner"]
    assert object_kind(out / "verify" / f"runner-{target}").machine == architecture.elf_machine
    (tensor,) = record["models"][0]["tensors"]
    assert tensor["tensor"] == "y:0" and tensor["shape"] == [2, 3] and tensor["max_abs_diff"] == 0

    # The runner runs the selective library: Sqrt's kernel was left out (exit 8, naming the op).
    done = tfbuild("verify", "--out", str(out), "--model", str(graph_pbtxt(tmp_path / "sqrt.pbtxt", "Sqrt")),
                   cwd=tmp_path)
    assert done.returncode == 8, done.stdout[-2000:] + done.stderr[-3000:]
    assert "No OpKernel was registered to support Op 'Sqrt'" in done.stderr


@pytest.mark.cross
@pytest.mark.tensorflow
@pytest.mark.parametrize("target", CROSS_LINUX_TARGETS)
def test_a_cross_target_builds_the_example_op_library_here(tmp_path, target):
    """The op-library flavour with the target's cross compiler on this machine: a static archive
    of the target's machine, which the size report reads with the architecture's cross nm."""
    from tfbuild.pipeline.report.objects import ObjectKind, object_kind

    architecture = get_target(target).architecture
    out = tmp_path / "out"
    sources = [arg for source in sorted(EXAMPLE.glob("*.cc")) for arg in ("--op-source", str(source))]
    done = tfbuild("build", "--target", target, "--flavour", "ops-library", "--local", "--jobs", "2",
                   "--model", str(MODEL), "--out", str(out), *sources, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    archive = out / "libtfbuild_ops.a"
    assert object_kind(archive) == ObjectKind("elf", architecture.elf_machine, archive=True)
    log = (out / f"{target}.build.log").read_text()
    assert f"{architecture.tool_prefix}g++ " in log and all(flag in log for flag in get_target(target).ops_library.cflags)
    report = json.loads((out / "report.json").read_text())
    (row,) = [artifact for artifact in report["artifacts"] if artifact["name"] == archive.name]
    assert Path(row["attribution"]["tool"]).name == f"{architecture.tool_prefix}nm"
    assert row["attribution"]["object_kind"] == f"ELF {architecture.name} archive"
    assert row["attribution"]["symbol_bytes"] > 0
