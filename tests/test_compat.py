"""A model exported by a newer TensorFlow on an older tree's runtime: ``tfbuild check`` reports
what the runtime's NodeDef checks would refuse, ``tfbuild compat`` writes a copy it accepts.

The models are made with the installed TensorFlow (2.x), whose Conv2D carries
``explicit_paddings`` and whose MatMul carries ``grad_a``/``grad_b``; the generated TF 1.x tree's
``ops.pbtxt`` lacks those attrs, and lacks ``Rsqrt`` altogether. TensorFlow is also the oracle
for the copy: the tree's ``ops.pbtxt`` is parsed into an ``OpList`` by TensorFlow's own protobuf
classes and every node is checked by the runtime's ``ValidateNodeDef`` rules written out here,
independently of tfbuild's reader.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import treegen

from tfbuild.cli import main
from tfbuild.tree.op_def_index import OpDefStats, build_op_defs
from tfbuild.tree.preflight import PreflightRequest, run_preflight

pytestmark = pytest.mark.tensorflow

INVALID = sorted((Path(__file__).parent / "invalid_inputs").iterdir())
CONV2D_TF19 = (
    "Op<name=Conv2D; signature=input:T, filter:T -> output:T; "
    "attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE]; attr=strides:list(int); "
    'attr=use_cudnn_on_gpu:bool,default=true; attr=padding:string,allowed=["SAME", "VALID"]; '
    'attr=data_format:string,default="NHWC",allowed=["NHWC", "NCHW"]; '
    "attr=dilations:list(int),default=[1, 1, 1, 1]>"
)
STRIPPED = {("Conv2D", "explicit_paddings"), ("MatMul", "grad_a"), ("MatMul", "grad_b")}


@dataclass(frozen=True)
class CompatModels:
    cnn_pb: Path  # Conv2D + BiasAdd + Relu, MatMul + Softmax, frozen: every new attr at its default
    cnn_pbtxt: Path  # the same, text
    grad_a_pb: Path  # MatMul with grad_a=True: not a default
    rsqrt_pb: Path  # Rsqrt, an op the generated trees do not define
    defun_pbtxt: Path  # a graph node calling a library function whose MatMul carries grad_a/grad_b
    explicit_pb: Path  # Conv2D with padding "EXPLICIT" and explicit_paddings set


@pytest.fixture(scope="module")
def compat_models(tmp_path_factory) -> CompatModels:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from google.protobuf import text_format
    from tensorflow.python.framework import function
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    root = tmp_path_factory.mktemp("compat_models")
    tf.random.set_seed(0)
    filters, bias = tf.Variable(tf.random.normal([3, 3, 1, 4])), tf.Variable(tf.zeros([4]))
    dense = tf.Variable(tf.random.normal([6, 3]))

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 1], tf.float32), tf.TensorSpec([1, 6], tf.float32)])
    def cnn(images, features):
        x = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, filters, strides=1, padding="SAME"), bias))
        return x, tf.nn.softmax(tf.matmul(features, dense))

    graph_def = convert_variables_to_constants_v2(cnn.get_concrete_function()).graph.as_graph_def()
    cnn_pb, cnn_pbtxt = root / "cnn.pb", root / "cnn.pbtxt"
    cnn_pb.write_bytes(graph_def.SerializeToString())
    cnn_pbtxt.write_text(text_format.MessageToString(graph_def))

    def write(name, function_, *specs):
        path = root / name
        path.write_bytes(tf.function(function_).get_concrete_function(*specs).graph.as_graph_def().SerializeToString())
        return path

    pair = (tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([3, 4], tf.float32))
    grad_a_pb = write("grad_a.pb", lambda a, b: tf.raw_ops.MatMul(a=a, b=b, grad_a=True), *pair)
    rsqrt_pb = write("rsqrt.pb", tf.math.rsqrt, tf.TensorSpec([2, 3], tf.float32))
    explicit_pb = write(
        "explicit.pb", lambda x, w: tf.nn.conv2d(x, w, strides=1, padding=[[0, 0], [1, 1], [1, 1], [0, 0]]),
        tf.TensorSpec([1, 8, 8, 1], tf.float32), tf.TensorSpec([3, 3, 1, 4], tf.float32))

    graph = tf.Graph()
    with graph.as_default():
        @function.Defun(tf.float32, tf.float32)
        def product(a, b):
            return tf.raw_ops.MatMul(a=a, b=b)

        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        y = tf.compat.v1.placeholder(tf.float32, [3, 4], name="y")
        tf.identity(product(x, y), name="out")
    defun_pbtxt = root / "defun.pbtxt"
    defun_pbtxt.write_text(text_format.MessageToString(graph.as_graph_def()))
    return CompatModels(cnn_pb, cnn_pbtxt, grad_a_pb, rsqrt_pb, defun_pbtxt, explicit_pb)


def read_graph(path: Path):
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    graph_def = graph_pb2.GraphDef()
    if path.suffix == ".pbtxt":
        text_format.Parse(path.read_text(), graph_def)
    else:
        graph_def.ParseFromString(path.read_bytes())
    return graph_def


def validate_node_defs(graph_def, ops_pbtxt: Path) -> list[str]:
    """The runtime's ValidateNodeDef rules (op registered, every non-internal attr declared,
    every declared attr without a default present) against an OpList TensorFlow's protobuf
    classes read."""
    from google.protobuf import text_format
    from tensorflow.core.framework import op_def_pb2

    op_defs = {op.name: op for op in text_format.Parse(ops_pbtxt.read_text(), op_def_pb2.OpList()).op}
    functions = {f.signature.name for f in graph_def.library.function}
    nodes = list(graph_def.node) + [n for f in graph_def.library.function for n in f.node_def]
    errors = []
    for node in nodes:
        if node.op in functions:
            continue
        op_def = op_defs.get(node.op)
        if op_def is None:
            errors.append(f"{node.name}: Op type not registered '{node.op}'")
            continue
        declared = {attr.name for attr in op_def.attr}
        errors += [f"{node.name}: NodeDef mentions attr '{name}' not in {node.op}"
                   for name in node.attr if not name.startswith("_") and name not in declared]
        errors += [f"{node.name}: NodeDef missing attr '{attr.name}'"
                   for attr in op_def.attr if not attr.HasField("default_value") and attr.name not in node.attr]
    return errors


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


def test_the_generated_trees_golden_op_lists_are_real_oplists(tf1_tree, tf2_tree):
    from google.protobuf import text_format
    from tensorflow.core.framework import op_def_pb2

    for tree in (tf1_tree, tf2_tree):
        golden = text_format.Parse((tree / treegen.OPS_PBTXT).read_text(), op_def_pb2.OpList())
        index = build_op_defs(tree)
        assert index.origin == treegen.OPS_PBTXT
        assert {op.name for op in golden.op} <= set(index.ops)
        assert "_Send" in index.ops and "_Send" not in {op.name for op in golden.op}  # from the sources
        conv = index.ops["Conv2D"]
        assert (conv.attr("explicit_paddings") is not None) == (tree == tf2_tree)
        assert index.ops["MatMul"].attr("grad_a") is None


def test_check_reports_the_attrs_the_tree_lacks_and_names_the_fix(tf1_tree, compat_models, capsys):
    model = compat_models.cnn_pb
    code = main(["check", "--model", str(model), "--source", str(tf1_tree), "--flavour", "makefile"])
    captured = capsys.readouterr()
    assert code == 5, captured.err
    # the runtime's refusal, its OpDef named rather than pasted (the full text is in --json)
    assert ("Conv2D: NodeDef mentions attr 'explicit_paddings' not in Op<name=Conv2D; ...>; NodeDef: "
            "Conv2D = Conv2D[T=DT_FLOAT, data_format=\"NHWC\", dilations=[1, 1, 1, 1], ") in captured.out
    assert CONV2D_TF19 not in captured.out and "(Check whether your GraphDef" not in captured.out
    # MatMul's two attrs TF 1.13 lacks: one gap naming both
    assert "MatMul: NodeDef mentions attrs 'grad_a', 'grad_b' not in Op<name=MatMul; ...>" in captured.out
    fix = f"fix: run: tfbuild compat {model} --source {tf1_tree} -o {model.with_name('cnn-tf1.13.pb')}"
    assert captured.out.count(fix) == 2
    (line,) = error_lines(captured.err)
    assert "NodeDef mentions attr 'explicit_paddings' not in Op<name=Conv2D; ...>" in line
    assert f"tfbuild compat {model}" in line


def test_the_preflight_reports_each_attr_once_with_its_nodes(tf1_tree, compat_models):
    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="bazel", models=(compat_models.cnn_pb,)))
    compat = [(gap.op, gap.kind, gap.nodes) for gap in report.gaps if gap.kind.startswith("attr")]
    assert compat == [
        ("Conv2D", "attr-not-in-op", ("Conv2D",)),
        ("MatMul", "attr-not-in-op", ("MatMul",)),
        ("MatMul", "attr-not-in-op", ("MatMul",)),
    ]


@pytest.mark.parametrize("name", ["cnn_pb", "cnn_pbtxt"])
def test_compat_strips_default_valued_attrs_and_the_copy_passes_the_runtime_checks(tf1_tree, compat_models, tmp_path,
                                                                                    capsys, name):
    model = getattr(compat_models, name)
    out = tmp_path / f"out{model.suffix}"
    golden = tf1_tree / treegen.OPS_PBTXT
    assert len(validate_node_defs(read_graph(model), golden)) == 3

    code = main(["compat", str(model), "--source", str(tf1_tree), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "remove Conv2D.explicit_paddings = [] (the default in TensorFlow 2." in captured.out
    assert "remove MatMul.grad_a = false" in captured.out and "remove MatMul.grad_b = false" in captured.out
    assert f"wrote {out}: 3 attr(s) removed from 2 node(s)" in captured.out

    copy, original = read_graph(out), read_graph(model)
    assert validate_node_defs(copy, golden) == []
    removed = {(n.op, a) for n in original.node for a in n.attr} - {(n.op, a) for n in copy.node for a in n.attr}
    assert removed == STRIPPED
    for node in original.node:  # nothing else changed
        for attr in STRIPPED:
            if node.op == attr[0]:
                del node.attr[attr[1]]
    assert copy == original
    assert (out.read_bytes()[:4] == b"node") == (model.suffix == ".pbtxt")  # the input's format

    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="bazel", models=(out,)))
    assert not [gap for gap in report.gaps if gap.kind.startswith("attr")]


def test_attrs_the_tree_already_has_are_kept_on_a_tf2_tree(tf2_tree, compat_models, tmp_path, capsys):
    out = tmp_path / "cnn-tf2.pb"
    assert main(["compat", str(compat_models.cnn_pb), "--source", str(tf2_tree), "-o", str(out)]) == 0
    assert "explicit_paddings" not in capsys.readouterr().out
    copy = read_graph(out)
    assert validate_node_defs(copy, tf2_tree / treegen.OPS_PBTXT) == []
    assert any("explicit_paddings" in node.attr for node in copy.node if node.op == "Conv2D")
    assert not any("grad_a" in node.attr for node in copy.node)


def test_function_library_nodes_are_checked_and_stripped(tf1_tree, compat_models, tmp_path, capsys):
    out = tmp_path / "defun.pbtxt"
    code = main(["compat", str(compat_models.defun_pbtxt), "--source", str(tf1_tree), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "remove MatMul.grad_a = false (the default in TensorFlow" in captured.out
    assert "node(s): function product_" in captured.out
    copy = read_graph(out)
    assert validate_node_defs(copy, tf1_tree / treegen.OPS_PBTXT) == []
    (function,) = copy.library.function
    assert [sorted(node.attr) for node in function.node_def] == [["T", "transpose_a", "transpose_b"]]


def test_a_non_default_value_is_refused_and_nothing_is_written(tf1_tree, compat_models, tmp_path, capsys):
    out = tmp_path / "out" / "grad_a-tf1.pb"
    code = main(["compat", str(compat_models.grad_a_pb), "--source", str(tf1_tree), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 5
    assert "MatMul: NodeDef mentions attr 'grad_a' not in Op<name=MatMul;" in captured.out
    assert "node MatMul: grad_a = true" in captured.out
    assert "MatMul.grad_a = true is not its default in TensorFlow 2." in captured.out
    assert "remove MatMul.grad_b = false" in captured.out  # what it could remove, still said
    (line,) = error_lines(captured.err)
    assert "nothing written" in line and "(MatMul)" in line
    assert not out.parent.exists()


def test_an_op_the_tree_does_not_define_is_refused(tf1_tree, compat_models, tmp_path, capsys):
    out = tmp_path / "rsqrt-tf1.pb"
    code = main(["compat", str(compat_models.rsqrt_pb), "--source", str(tf1_tree), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 5
    assert "Rsqrt: Op type not registered 'Rsqrt' in binary running on this device." in captured.out
    assert "node Rsqrt" in captured.out and "defines no op Rsqrt" in captured.out
    assert len(error_lines(captured.err)) == 1
    assert not out.exists()

    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="bazel", models=(compat_models.rsqrt_pb,)))
    kinds = [(gap.op, gap.kind) for gap in report.gaps if gap.op == "Rsqrt"]
    assert kinds == [("Rsqrt", "op-not-in-tree")]  # the op error, not also "no kernel"


def test_a_value_the_tree_does_not_allow_is_refused(tf1_tree, compat_models, tmp_path, capsys):
    out = tmp_path / "explicit-tf1.pb"
    code = main(["compat", str(compat_models.explicit_pb), "--source", str(tf1_tree), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 5
    assert ("""Conv2D: Value for attr 'padding' of "EXPLICIT" is not in the list of allowed values: "SAME", "VALID"; """
            "NodeDef: Conv2D = Conv2D[") in captured.out
    assert "node Conv2D: explicit_paddings = [0, 0, 1, 1, 1, 1, 0, 0]" in captured.out
    assert not out.exists()


def test_an_attr_the_tree_requires_must_be_there(tf1_tree, compat_models, tmp_path, capsys):
    graph_def = read_graph(compat_models.cnn_pbtxt)
    (softmax,) = [node for node in graph_def.node if node.op == "Softmax"]
    del softmax.attr["T"]
    model = tmp_path / "no_t.pb"
    model.write_bytes(graph_def.SerializeToString())
    assert main(["compat", str(model), "--source", str(tf1_tree), "-o", str(tmp_path / "out.pb")]) == 5
    captured = capsys.readouterr()
    assert "Softmax: NodeDef missing attr 'T' from Op<name=Softmax; ...>; NodeDef: Softmax = Softmax[](" in captured.out
    assert "re-export the model with Softmax's T set" in captured.out


def test_the_output_may_not_be_the_input(tf1_tree, compat_models, tmp_path, capsys):
    model = tmp_path / "cnn.pb"
    model.write_bytes(compat_models.cnn_pb.read_bytes())
    before = model.read_bytes()
    code = main(["compat", str(model), "--source", str(tf1_tree), "-o", str(tmp_path / "." / "cnn.pb")])
    assert code == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert "names the input model" in line
    assert model.read_bytes() == before


def test_a_saved_model_is_refused_with_how_to_freeze_it(tf1_tree, models, tmp_path, capsys):
    out = tmp_path / "copy.pb"
    code = main(["compat", str(models.keras_saved_model), "--source", str(tf1_tree), "-o", str(out)])
    assert code == 3
    (line,) = error_lines(capsys.readouterr().err)
    assert "saved-model" in line and "freeze it to a GraphDef first" in line
    assert not out.exists()


@pytest.mark.parametrize("bad", INVALID, ids=[p.name for p in INVALID])
def test_compat_rejects_invalid_models(tf1_tree, bad, tmp_path, capsys):
    out = tmp_path / "copy.pb"
    assert main(["compat", str(bad), "--source", str(tf1_tree), "-o", str(out)]) == 3
    (line,) = error_lines(capsys.readouterr().err)
    assert bad.name in line
    assert not out.exists()


def test_without_ops_pbtxt_the_register_op_sources_say_the_same(tf1_tree, compat_models, tmp_path, capsys):
    (tf1_tree / treegen.OPS_PBTXT).unlink()
    stats = OpDefStats()
    index = build_op_defs(tf1_tree, stats=stats)
    assert index.origin == "REGISTER_OP sources" and not stats.cache_hit  # the deletion changes the key
    assert [a.name for a in index.ops["Conv2D"].attrs] == [
        "T", "strides", "use_cudnn_on_gpu", "padding", "data_format", "dilations"]
    assert index.ops["Min"].attr("Tidx").default == "DT_INT32"  # through the REDUCTION_OP macro
    assert index.ops["Add"].attr("T").allowed[:2] == ("DT_BFLOAT16", "DT_HALF")  # through .BINARY_MORE()

    out = tmp_path / "cnn-tf1.pb"
    assert main(["compat", str(compat_models.cnn_pb), "--source", str(tf1_tree), "-o", str(out)]) == 0
    assert "op definitions from REGISTER_OP sources" in capsys.readouterr().out
    assert {(n.op, a) for n in read_graph(compat_models.cnn_pb).node for a in n.attr} - {
        (n.op, a) for n in read_graph(out).node for a in n.attr} == STRIPPED


GHOSTS = """#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/util/padding.h"

namespace tensorflow {
// REGISTER_OP("InLineComment").Attr("T: type");
/* REGISTER_OP("InBlockComment")
    .Attr("T: type"); */
const char* kText = "REGISTER_OP(\\"InString\\")";
#if GOOGLE_CUDA
REGISTER_OP("CudaOnly").Attr("T: type");
#endif  // GOOGLE_CUDA
#if defined(SOME_BUILD_FLAG)
REGISTER_OP("Guarded").Attr("T: type");
#endif
REGISTER_OP("Padded")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {half, float}")
    .Attr(GetPaddingAttrString())
    .Attr(GetUnknownAttrString());
}  // namespace tensorflow
"""


def test_ops_in_comments_strings_and_cuda_blocks_do_not_count(tf1_tree):
    (tf1_tree / "tensorflow/core/ops/ghost_ops.cc").write_text(GHOSTS)
    util = tf1_tree / "tensorflow/core/util"
    util.mkdir(parents=True, exist_ok=True)  # the tree has util/proto
    (util / "padding.h").write_text("string GetPaddingAttrString();\n")
    (util / "padding.cc").write_text('string GetPaddingAttrString() { return "padding: {\'SAME\', \'VALID\'}"; }\n')
    index = build_op_defs(tf1_tree)
    assert {"InLineComment", "InBlockComment", "InString", "CudaOnly"}.isdisjoint(index.ops)
    assert index.files["Guarded"] == ("tensorflow/core/ops/ghost_ops.cc",)
    padded = index.ops["Padded"]
    assert padded.summary() == ('Op<name=Padded; signature=input:T -> output:T; attr=T:type,allowed=[DT_HALF, DT_FLOAT]; '
                                'attr=padding:string,allowed=["SAME", "VALID"]>')
    assert padded.unread == ("GetUnknownAttrString()",)
    assert any("Padded: attr spec 'GetUnknownAttrString()' not read" in note for note in index.skipped)


def test_op_definitions_are_cached_by_commit(tf1_tree):
    first, second = OpDefStats(), OpDefStats()
    build_op_defs(tf1_tree, stats=first)
    again = build_op_defs(tf1_tree, stats=second)
    assert second.cache_hit and second.files_scanned == 0 and first.cache_path == second.cache_path
    assert again.ops["Conv2D"] == build_op_defs(tf1_tree, cache_dir=tf1_tree.parent / "fresh").ops["Conv2D"]
    math_ops = tf1_tree / "tensorflow/core/ops/math_ops.cc"
    math_ops.write_text(math_ops.read_text().replace('REGISTER_OP("Sqrt")', 'REGISTER_OP("SqrtRenamed")'))
    edited = OpDefStats()
    assert "SqrtRenamed" in build_op_defs(tf1_tree, stats=edited).files and not edited.cache_hit


def test_the_makefile_op_files_come_from_the_index(tf1_tree):
    from tfbuild.tree.needs import op_definition_files

    assert op_definition_files(tf1_tree, ["Min", "Conv2D", "NotAnOp"]) == {
        "Conv2D": ("tensorflow/core/ops/nn_ops.cc",), "Min": ("tensorflow/core/ops/math_ops.cc",)}


def test_the_build_preflight_stops_on_them(tf1_tree, compat_models, tmp_path):
    """The tree check ``tfbuild build`` runs before changing anything (dry runs too)."""
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--local",
         "--source", str(tf1_tree), "--model", str(compat_models.cnn_pb), "--out", str(tmp_path / "out"),
         "--dry-run"],
        capture_output=True, text=True,
    )
    assert done.returncode == 5, done.stderr[-2000:]
    (line,) = error_lines(done.stderr)
    assert "NodeDef mentions attr 'explicit_paddings' not in Op<name=Conv2D" in line
    assert f"tfbuild compat {compat_models.cnn_pb} --source {tf1_tree}" in line
