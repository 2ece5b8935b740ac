"""The benchmark program's command line that `tfbuild analyze` and the build's size report give
for each model: its --input_layer/--input_layer_type/--input_layer_shape/--output_layer are what
summarize_graph finds, and TensorFlow runs the graph fed and fetched as those arguments say."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from manifests import write_manifest

from tfbuild.model.benchmark import FROZEN_GRAPH, PROGRAM
from tfbuild.model.formats import load_model
from tfbuild.model.memmapped import write_package

pytestmark = pytest.mark.tensorflow


@pytest.fixture(scope="module")
def frozen_graph(tmp_path_factory) -> Path:
    """Two placeholders (float image, int32 ids) and two outputs, one of them under a scope;
    written by TensorFlow."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        image = tf.compat.v1.placeholder(tf.float32, [1, 4, 4, 3], name="image")
        ids = tf.compat.v1.placeholder(tf.int32, [2], name="ids")
        weights = tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 8, dtype=np.float32).reshape(3, 3, 3, 8), name="w")
        tf.nn.relu(tf.nn.conv2d(image, weights, [1, 1, 1, 1], "SAME"), name="features")
        with tf.name_scope("head"):
            tf.identity(ids * 2, name="doubled")
    path = tmp_path_factory.mktemp("benchmark") / "frozen.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


def _arguments(argv: list[str]) -> dict[str, str]:
    return dict(argument.removeprefix("--").split("=", 1) for argument in argv[1:])


def _run_as_the_benchmark_would(graph: Path, arguments: dict[str, str]) -> list[np.ndarray]:
    """Feed each --input_layer a tensor of its --input_layer_type and --input_layer_shape, and
    fetch each --output_layer, in TensorFlow."""
    import tensorflow as tf

    names = arguments["input_layer"].split(",")
    types = arguments["input_layer_type"].split(",")
    shapes = [[int(size) for size in shape.split(",")] for shape in arguments["input_layer_shape"].split(":")]
    feeds = {f"{name}:0": np.ones(shape, dtype=tf.as_dtype(kind).as_numpy_dtype)
             for name, kind, shape in zip(names, types, shapes, strict=True)}
    graph_def = tf.compat.v1.GraphDef.FromString(graph.read_bytes())
    with tf.compat.v1.Session(graph=tf.Graph()) as session:
        tf.import_graph_def(graph_def, name="")
        return session.run([f"{name}:0" for name in arguments["output_layer"].split(",")], feeds)


def _analyze(*models: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfbuild", "analyze", *map(str, models)], capture_output=True,
                          text=True, timeout=300)


def test_analyze_gives_a_command_tensorflow_runs_the_graph_with(frozen_graph, tmp_path):
    done = subprocess.run([sys.executable, "-m", "tfbuild", "analyze", "--json", str(frozen_graph)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    ((graph,),) = [model["graphs"] for model in json.loads(done.stdout)["models"]]
    argv = graph["benchmark"]["argv"]
    assert argv[0] == PROGRAM and graph["benchmark"]["note"] is None
    arguments = _arguments(argv)
    assert arguments["graph"] == str(frozen_graph)
    assert arguments["input_layer"].split(",") == [item["name"] for item in graph["inputs"]] == ["image", "ids"]
    assert arguments["input_layer_type"] == "float,int32"
    assert arguments["output_layer"].split(",") == [item["name"] for item in graph["outputs"]]
    features, doubled = _run_as_the_benchmark_would(frozen_graph, arguments)
    assert features.shape == (1, 4, 4, 8) and list(doubled) == [2, 2]
    text = _analyze(frozen_graph)
    assert text.returncode == 0, text.stderr
    assert f"  benchmark: {shlex.join(argv)}\n" in text.stdout


def test_a_package_names_the_frozen_graph_and_a_saved_model_none(frozen_graph, models, tmp_path):
    package = tmp_path / "model.mmap"
    package.write_bytes(write_package(load_model(frozen_graph).graph_defs[0], min_bytes=64).data)
    done = subprocess.run([sys.executable, "-m", "tfbuild", "analyze", "--json", str(package),
                           str(models.keras_saved_model)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    packaged, saved = json.loads(done.stdout)["models"]
    (graph,) = packaged["graphs"]
    arguments = _arguments(graph["benchmark"]["argv"])
    assert arguments["graph"] == FROZEN_GRAPH and "reads no memmapped packages" in graph["benchmark"]["note"]
    assert len(_run_as_the_benchmark_would(frozen_graph, arguments)) == 2  # the frozen graph's names
    assert saved["graphs"] and all("benchmark" not in item for item in saved["graphs"])
    text = _analyze(package)
    assert f"--graph={FROZEN_GRAPH}" in text.stdout and "the frozen GraphDef model.mmap was made from" in text.stdout


def test_the_size_report_gives_each_model_the_builds_benchmark(frozen_graph, models, tmp_path):
    """A Makefile build's own benchmark program where the build has one, TensorFlow's elsewhere;
    none for a model the program cannot read."""
    from tfbuild.pipeline.report.render import render_markdown, report_json
    from tfbuild.pipeline.report.sizes import SizeReport, measure_build

    package = tmp_path / "model.mmap"
    package.write_bytes(write_package(load_model(frozen_graph).graph_defs[0], min_bytes=64).data)
    records = [{"name": path.name, "path": str(path)} for path in (frozen_graph, package, models.tflite)]
    for artifacts, program in (([{"name": "benchmark", "kind": "executable"}], "benchmark"), ([], PROGRAM)):
        out = write_manifest(tmp_path / f"out-{program}", models=records, artifacts=artifacts)
        (out / "benchmark").write_bytes(b"not a program")
        build = measure_build(out)
        frozen, packaged, tflite = build.models
        expected = str(out / "benchmark") if program == "benchmark" else PROGRAM
        assert frozen.benchmark is not None and frozen.benchmark.argv[0] == expected
        assert _arguments(list(frozen.benchmark.argv))["graph"] == str(frozen_graph)
        assert len(_run_as_the_benchmark_would(frozen_graph, _arguments(list(frozen.benchmark.argv)))) == 2
        assert packaged.benchmark is not None and _arguments(list(packaged.benchmark.argv))["graph"] == FROZEN_GRAPH
        assert tflite.benchmark is None
        markdown = render_markdown(SizeReport(build, None, "none"))
        assert f"- {frozen_graph.name}: `{frozen.benchmark.text}`\n" in markdown
        assert f"- model.mmap: `{packaged.benchmark.text}` ({packaged.benchmark.note})\n" in markdown
        document = report_json(SizeReport(build, None, "none"))
        assert [item["benchmark"] and item["benchmark"]["argv"] for item in document["models"]] == [
            list(frozen.benchmark.argv), list(packaged.benchmark.argv), None]
