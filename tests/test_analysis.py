"""Ops, kernel classes and problems found in real generated models, with TF's registry as oracle."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from tfbuild.cli import main
from tfbuild.model.analysis import analyze_models
from tfbuild.model.formats import load_model

pytestmark = pytest.mark.tensorflow


def _tf_kernel_class(node_def) -> str:
    """TF's own tool's lookup, applied to a copy of the node."""
    from tensorflow.python.tools import selective_registration_header_lib as tf_lib

    copy = type(node_def)()
    copy.CopyFrom(node_def)
    found = tf_lib.get_ops_from_nodedef(copy)
    return found[1] if found else None


def _by_op(analysis):
    return {r.op: r for r in analysis.ops}


def test_cnn_ops_kernels_and_counts(models):
    analysis = analyze_models([models.cnn_pb])
    ops = _by_op(analysis)
    assert {"Conv2D", "BiasAdd", "Relu", "MaxPool", "MatMul", "Softmax"} <= set(ops)
    nodes = load_model(models.cnn_pb).graph_defs[0].node
    assert {op: r.node_count for op, r in ops.items()} == Counter(n.op for n in nodes)
    for node in nodes:  # every class is exactly what TF's tool finds for that node
        assert _tf_kernel_class(node) in ops[node.op].kernel_classes
    assert ops["Conv2D"].dtypes == ("float32",)
    assert all("CPUDevice" in k for k in ops["Conv2D"].kernel_classes)
    assert analysis.problems == ()
    assert analysis.models[0].format == "graphdef"


def test_control_flow_bodies_are_analysed(models):
    ops = _by_op(analyze_models([models.loop_pb]))
    assert ops["StatelessWhile"].kernel_classes == ("WhileOp",)
    assert ops["StatelessIf"].kernel_classes == ("IfOp",)
    assert ops["Less"].kernel_classes == ("BinaryOp<CPUDevice, functor::less<int32_t>>",)
    # AddV2 runs on int32 (the loop counter) and float32 (the cond branch): two kernels.
    assert set(ops["AddV2"].dtypes) == {"int32", "float32"}
    assert len(ops["AddV2"].kernel_classes) == 2
    assert {"Mul", "Greater"} <= set(ops)


def test_saved_model_counts_every_function_node(models):
    analysis = analyze_models([models.keras_saved_model])
    loaded = load_model(models.keras_saved_model)
    assert sum(r.node_count for r in analysis.ops) == sum(1 for _ in loaded.node_sources())
    ops = _by_op(analysis)
    assert {"Conv2D", "MaxPool", "MatMul", "Softmax", "StatefulPartitionedCall"} <= set(ops)
    assert ops["MaxPool"].dtypes == ("float32",)  # stripped default attr T filled from the OpDef
    assert analysis.problems == ()


def test_tflite_flex_ops_are_the_tensorflow_ops(models):
    analysis = analyze_models([models.tflite])
    assert [r.op for r in analysis.ops] == ["Cumprod", "MatrixInverse"]
    for source in load_model(models.tflite).flex_nodes:
        expected = (_tf_kernel_class(source.node_def),)
        assert _by_op(analysis)[source.node_def.op].kernel_classes == expected


def test_tflite_plain_custom_op_is_a_problem(models):
    analysis = analyze_models([models.tflite_custom])
    assert analysis.ops == ()
    assert [(p.op, p.model) for p in analysis.problems] == [("Erfinv", str(models.tflite_custom))]
    assert "not a Select-TF" in analysis.problems[0].message


def test_two_models_at_once(models):
    analysis = analyze_models([models.cnn_pb, models.loop_pb])
    assert [m.path for m in analysis.models] == [models.cnn_pb, models.loop_pb]
    ops = _by_op(analysis)
    assert ops["Const"].models == (str(models.cnn_pb), str(models.loop_pb))
    assert ops["Conv2D"].models == (str(models.cnn_pb),)
    assert ops["StatelessWhile"].models == (str(models.loop_pb),)


def test_nodes_without_kernel_are_problems_not_dropped(models):
    analysis = analyze_models([models.problems_pbtxt])
    problems = {p.op: p for p in analysis.problems}
    assert set(problems) == {"Cholesky", "MyCustomOp", "Neg"}
    assert "int32" in problems["Cholesky"].message
    assert "not registered" in problems["MyCustomOp"].message
    assert "--op-library" in problems["MyCustomOp"].message
    assert "$T" in problems["Neg"].message and problems["Neg"].node == "function poly: neg"
    ops = _by_op(analysis)
    assert ops["AccumulateNV2"].kept_without_kernel and "AccumulateNV2" not in problems
    pairs = analysis.ops_and_kernels()
    assert ("AccumulateNV2", None) in pairs
    assert not any(op in problems for op, _ in pairs)


def test_node_pinned_to_gpu_gets_its_cpu_kernel(tmp_path):
    graph = tmp_path / "gpu.pbtxt"
    graph.write_text(
        'node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
        'node { name: "b" op: "AddV2" input: "a" input: "a"'
        ' device: "/job:localhost/replica:0/task:0/device:GPU:0"'
        ' attr { key: "T" value { type: DT_FLOAT } } }\n'
    )
    ops = _by_op(analyze_models([graph]))
    assert ops["AddV2"].kernel_classes == ("BinaryOp<CPUDevice, functor::add<float>>",)


def test_ops_list_kernels_are_taken_as_given(models):
    analysis = analyze_models([models.ops_list])
    assert analysis.ops_and_kernels() == [
        ("AccumulateNV2", None),
        ("AddV2", "BinaryOp<CPUDevice, functor::add<float>>"),
        ("Const", "ConstantOp"),
        ("Identity", None),
    ]


def test_analyze_json_document(models, capsys):
    assert main(["analyze", "--json", str(models.cnn_pb), str(models.tflite)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [m["format"] for m in document["models"]] == ["graphdef", "tflite"]
    assert document["models"][0]["sha256"] == hashlib.sha256(models.cnn_pb.read_bytes()).hexdigest()
    conv = next(o for o in document["ops"] if o["op"] == "Conv2D")
    assert conv["models"] == [str(models.cnn_pb)] and conv["kernel_classes"] and conv["node_count"] == 1
    assert document["problems"] == [] and document["tensorflow_version"]


def test_analyze_table_shows_ops_and_problems(models, capsys):
    assert main(["analyze", str(models.problems_pbtxt)]) == 0
    out = capsys.readouterr().out
    assert "Cholesky" in out and "MyCustomOp" in out and "Problems" in out


def test_strict_fails_on_problems(models, capsys):
    assert main(["analyze", "--strict", str(models.problems_pbtxt)]) == 5
    assert "no CPU kernel" in capsys.readouterr().err
    assert main(["analyze", "--strict", str(models.cnn_pb)]) == 0


CUSTOM_OP_SOURCE = """
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
REGISTER_OP("TfbuildTestDouble").Input("x: float").Output("y: float");
class TfbuildTestDoubleOp : public tensorflow::OpKernel {
 public:
  explicit TfbuildTestDoubleOp(tensorflow::OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(tensorflow::OpKernelContext* c) override { c->set_output(0, c->input(0)); }
};
REGISTER_KERNEL_BUILDER(Name("TfbuildTestDouble").Device(tensorflow::DEVICE_CPU), TfbuildTestDoubleOp);
"""


@pytest.mark.compiler
def test_op_library_makes_custom_kernels_known(tmp_path, capsys):
    """A real custom-op .so built against the wheel's headers: without --op-library its node is a
    problem, with it the kernel class comes from the library's registration."""
    import shutil
    import subprocess

    import tensorflow as tf

    source, library = tmp_path / "double.cc", tmp_path / "libdouble.so"
    source.write_text(CUSTOM_OP_SOURCE)
    flags = tf.sysconfig.get_compile_flags() + tf.sysconfig.get_link_flags()
    compiler = shutil.which("g++") or "g++"
    build = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O0", "-w", str(source), "-o", str(library), *flags],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    graph = tmp_path / "custom.pbtxt"
    graph.write_text(
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
        'node { name: "d" op: "TfbuildTestDouble" input: "x" }\n'
    )
    without = analyze_models([graph])
    assert [p.op for p in without.problems] == ["TfbuildTestDouble"]
    with_library = analyze_models([graph], [library])
    assert with_library.problems == ()
    assert _by_op(with_library)["TfbuildTestDouble"].kernel_classes == ("TfbuildTestDoubleOp",)
