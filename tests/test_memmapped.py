"""Memmapped packages: tfbuild writes one from a frozen graph, TensorFlow's own MemmappedEnv (the
wheel's C++ libraries) loads and runs it and gets what TensorFlow gets from the frozen graph;
tfbuild reads packages as models, and refuses damaged ones in one line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tfbuild.errors import InputFileError
from tfbuild.model.formats import ModelFormat, load_model
from tfbuild.model.graph_summary import summarize_graph
from tfbuild.model.memmapped import (
    DEFAULT_GRAPH,
    IMMUTABLE_CONST,
    PACKAGE_PREFIX,
    TENSOR_ALIGNMENT,
    read_package,
    unpacked_graph,
    write_package,
)

RUNNER = Path(__file__).parent / "data" / "memmapped" / "run_package.cc"
pytestmark = pytest.mark.tensorflow  # every test reads a graph TensorFlow wrote (frozen_graph)

WIDTH = 64  # a 64x64 float weight is 16,384 bytes: converted; the 64-float bias (256 bytes) is not


@pytest.fixture(scope="module")
def frozen_graph(tmp_path_factory) -> Path:
    """x [1, 64] -> MatMul(W 64x64) -> Add(b) -> Relu -> MatMul(V 64x64, named with a '/') -> y,
    written by TensorFlow."""
    import tensorflow as tf

    rng = np.random.default_rng(7)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, WIDTH], name="x")
        w = tf.constant(rng.standard_normal((WIDTH, WIDTH)).astype(np.float32), name="W")
        b = tf.constant(rng.standard_normal(WIDTH).astype(np.float32), name="b")
        v = tf.constant(rng.standard_normal((WIDTH, WIDTH)).astype(np.float32), name="layer/V")
        hidden = tf.nn.relu(tf.matmul(x, w) + b)
        tf.identity(tf.matmul(hidden, v), name="y")
    path = tmp_path_factory.mktemp("memmapped") / "frozen.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


def _expected(frozen: Path) -> np.ndarray:
    import tensorflow as tf

    graph_def = tf.compat.v1.GraphDef.FromString(frozen.read_bytes())
    with tf.compat.v1.Session(graph=tf.Graph()) as session:
        tf.import_graph_def(graph_def, name="")
        feed = (0.01 * np.arange(WIDTH, dtype=np.float32)).reshape(1, WIDTH)
        return np.asarray(session.run("y:0", {"x:0": feed})).ravel()


def test_the_package_has_tensorflows_layout(frozen_graph, tmp_path):
    graph_def = load_model(frozen_graph).graph_defs[0]
    written = write_package(graph_def)
    assert written.converted == 2 and written.tensor_bytes == 2 * WIDTH * WIDTH * 4
    package = read_package(tmp_path / "p", written.data)
    names = [region.name for region in package.regions]
    assert names == [f"{PACKAGE_PREFIX}W", f"{PACKAGE_PREFIX}layer_V", DEFAULT_GRAPH]
    assert all(region.offset % TENSOR_ALIGNMENT == 0 for region in package.tensor_regions)
    assert int.from_bytes(written.data[-8:], "little") == package.regions[-1].offset + package.regions[-1].length
    nodes = {node.name: node for node in package.graph_def.node}
    assert nodes["W"].op == IMMUTABLE_CONST and nodes["b"].op == "Const"
    assert sorted(nodes["W"].attr) == ["dtype", "memory_region_name", "shape"]
    assert nodes["layer/V"].attr["memory_region_name"].s == f"{PACKAGE_PREFIX}layer_V".encode()
    # The regions hold the constants' bytes: unpacked, the graph has the frozen graph's tensors.
    original = {node.name: node for node in graph_def.node}
    restored = {node.name: node for node in unpacked_graph(package, written.data).node}
    for name in ("W", "layer/V"):
        assert restored[name].op == "Const"
        assert restored[name].attr["value"].tensor.tensor_content == original[name].attr["value"].tensor.tensor_content


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_tensorflows_memmapped_env_loads_and_runs_the_package(frozen_graph, tmp_path):
    import tensorflow as tf

    package = tmp_path / "model.mmap"
    package.write_bytes(write_package(load_model(frozen_graph).graph_defs[0]).data)
    lib = Path(tf.sysconfig.get_lib())
    runner = tmp_path / "run_package"
    subprocess.run(
        ["g++", "-O1", "-w", *tf.sysconfig.get_compile_flags(), str(RUNNER), "-o", str(runner), f"-L{lib}",
         "-Wl,--no-as-needed", "-l:libtensorflow_framework.so.2", "-l:libtensorflow_cc.so.2", f"-Wl,-rpath,{lib}"],
        check=True, capture_output=True, timeout=600,
    )
    ran = subprocess.run([str(runner), str(package), "x", "y", str(WIDTH)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr[-2000:]
    lines = ran.stdout.split()
    assert lines[:4] == ["nodes", str(len(load_model(frozen_graph).graph_defs[0].node)), "immutable", "2"]
    got = np.array([float(value) for value in lines[4:]], dtype=np.float32)
    np.testing.assert_allclose(got, _expected(frozen_graph), rtol=1e-5, atol=1e-5)


def test_a_package_is_read_as_a_model_and_summarized(frozen_graph, tmp_path):
    path = tmp_path / "model.mmap"
    path.write_bytes(write_package(load_model(frozen_graph).graph_defs[0]).data)
    model = load_model(path)
    assert model.format is ModelFormat.MEMMAPPED
    ops = {node.op for node in model.graph_defs[0].node}
    assert IMMUTABLE_CONST in ops and "MatMul" in ops
    summary = summarize_graph(model.graph_defs[0])
    assert [(item.name, item.dtype, item.shape) for item in summary.inputs] == [("x", "DT_FLOAT", (1, WIDTH))]
    assert [(item.name, item.op) for item in summary.outputs] == [("y", "Identity")]
    assert summary.const_parameters == 2 * WIDTH * WIDTH + WIDTH  # ImmutableConst elements count too
    assert summary.const_bytes == {"DT_FLOAT": 4 * (2 * WIDTH * WIDTH + WIDTH)}


@pytest.mark.parametrize(("damage", "message"), [
    (lambda data: data[:-1], "not a GraphDef"),  # the trailer no longer points at a directory
    (lambda data: data[:-8] + (len(data) + 10).to_bytes(8, "little"), "not a GraphDef"),
])
def test_a_damaged_package_is_one_line_naming_the_file(frozen_graph, tmp_path, damage, message):
    path = tmp_path / "broken.mmap"
    path.write_bytes(damage(write_package(load_model(frozen_graph).graph_defs[0]).data))
    with pytest.raises(InputFileError) as raised:
        load_model(path)
    assert str(path) in raised.value.one_line() and message in raised.value.one_line()


def test_a_directory_naming_bytes_outside_the_file_is_not_a_package(frozen_graph, tmp_path):
    written = write_package(load_model(frozen_graph).graph_defs[0]).data
    with pytest.raises(InputFileError, match="not inside the package"):
        # Cut the first tensor's bytes out: every offset now points past what the directory allows.
        start = int.from_bytes(written[-8:], "little")
        read_package(tmp_path / "cut", written[:start][-100:] + written[start:-8] + (100).to_bytes(8, "little"))


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_verify_runner_reads_a_package_through_memmapped_env(frozen_graph, tmp_path):
    """tfbuild verify's own C++ runner, rendered with package support and compiled against the
    wheel's TensorFlow: run on the package with --memmapped and on the frozen graph without, it
    writes the tensors TensorFlow's Python runtime computes."""
    import tensorflow as tf

    from tfbuild.pipeline.verify.cpp_runner import RUNNER_SOURCE, runner_sources
    from tfbuild.pipeline.verify.tensor_file import read_tensor_file, write_tensor_file
    from tfbuild.toolchain.targets import get_target

    for generated in runner_sources(tmp_path, get_target("linux-x86_64"), memmapped=True):
        generated.path.write_text(generated.content)
    lib = Path(tf.sysconfig.get_lib())
    runner = tmp_path / "runner"
    subprocess.run(
        ["g++", "-O1", "-w", *tf.sysconfig.get_compile_flags(), f"-I{tmp_path}", str(tmp_path / RUNNER_SOURCE),
         "-o", str(runner), f"-L{lib}", "-Wl,--no-as-needed", "-l:libtensorflow_framework.so.2",
         "-l:libtensorflow_cc.so.2", f"-Wl,-rpath,{lib}"],
        check=True, capture_output=True, timeout=600,
    )
    package = tmp_path / "model.mmap"
    package.write_bytes(write_package(load_model(frozen_graph).graph_defs[0]).data)
    inputs = tmp_path / "inputs.tensors"
    write_tensor_file(inputs, {"x:0": (0.01 * np.arange(WIDTH, dtype=np.float32)).reshape(1, WIDTH)})
    for flag, graph in ((["--memmapped"], package), ([], frozen_graph)):
        out = tmp_path / f"out{len(flag)}.tensors"
        ran = subprocess.run([str(runner), *flag, str(graph), str(inputs), str(out), "y:0"],
                             capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr[-2000:]
        np.testing.assert_allclose(read_tensor_file(out)["y:0"].ravel(), _expected(frozen_graph), rtol=1e-5, atol=1e-5)
    # A frozen graph is not a package: the runner says so in one line.
    ran = subprocess.run([str(runner), "--memmapped", str(frozen_graph), str(inputs), str(tmp_path / "no"), "y:0"],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 1 and "tfbuild verify runner: opening the package" in ran.stderr


def _tfbuild(*args: str) -> subprocess.CompletedProcess[str]:
    import sys

    return subprocess.run([sys.executable, "-m", "tfbuild", *args], capture_output=True, text=True, timeout=300)


def test_the_memmap_command_writes_a_package_the_other_commands_read(frozen_graph, tmp_path):
    package = tmp_path / "model.mmap"
    done = _tfbuild("memmap", str(frozen_graph), "-o", str(package))
    assert done.returncode == 0, done.stderr
    assert f"wrote {package}: 2 of " in done.stdout and "32,768 bytes of constants" in done.stdout
    assert read_package(package, package.read_bytes()).graph_def.node  # a package, as TensorFlow lays it out
    analyzed = _tfbuild("analyze", "--json", str(package))
    assert analyzed.returncode == 0, analyzed.stderr
    document = json.loads(analyzed.stdout)
    (model,) = document["models"]
    assert model["format"] == "memmapped"
    (graph,) = model["graphs"]  # what summarize_graph tells
    assert graph["inputs"] == [{"name": "x", "dtype": "DT_FLOAT", "shape": [1, WIDTH]}]
    assert graph["outputs"] == [{"name": "y", "op": "Identity"}]
    assert graph["const_parameters"] == 2 * WIDTH * WIDTH + WIDTH and graph["op_counts"]["ImmutableConst"] == 2
    header = tmp_path / "ops_to_register.h"
    assert _tfbuild("header", str(package), "-o", str(header)).returncode == 0
    assert '"ImmutableConstantOp"' in header.read_text() and 'isequal(op, "ImmutableConst")' in header.read_text()


def test_the_memmap_command_refuses_what_it_cannot_convert(frozen_graph, tmp_path):
    package = tmp_path / "model.mmap"
    assert _tfbuild("memmap", str(frozen_graph), "-o", str(package)).returncode == 0
    again = _tfbuild("memmap", str(package), "-o", str(tmp_path / "again.mmap"))
    assert again.returncode == 3 and f"{package}: is a memmapped package already" in again.stderr
    onto_itself = _tfbuild("memmap", str(frozen_graph), "-o", str(frozen_graph))
    assert onto_itself.returncode == 2 and "-o names the input model" in onto_itself.stderr
    assert not (tmp_path / "again.mmap").exists()
