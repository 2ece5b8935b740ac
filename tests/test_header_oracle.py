"""ops_to_register.h equals TensorFlow's own tool's output, line for line, `//` lines aside."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tfbuild.cli import main
from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.analysis import analyze_models
from tfbuild.model.formats import load_model
from tfbuild.model.header import (
    DEFAULT_OPS,
    HeaderOptions,
    parse_header,
    render_header,
    write_header,
    write_ops_list,
)

pytestmark = pytest.mark.tensorflow


def tf_header(proto_fileformat: str, files, default_ops: str = DEFAULT_OPS) -> str:
    """TF's selective_registration_header_lib, the reference implementation."""
    from tensorflow.python.tools import selective_registration_header_lib as tf_lib

    pairs = tf_lib.get_ops_and_kernels(proto_fileformat, [str(f) for f in files], default_ops)
    return tf_lib.get_header_from_ops_and_kernels(pairs, default_ops == "all")


def body(header: str) -> list[str]:
    return [line for line in header.splitlines() if not line.startswith("//")]


def ours(files, **options) -> str:
    return render_header(analyze_models(files), HeaderOptions(**options))


@pytest.mark.parametrize(
    ("attributes", "proto_fileformat"),
    [
        (["cnn_pb"], "rawproto"),
        (["cnn_pbtxt"], "textproto"),
        (["loop_pb"], "rawproto"),
        (["cnn_pb", "loop_pb"], "rawproto"),
        (["problems_pbtxt"], "textproto"),
        (["ops_list"], "ops_list"),
    ],
)
def test_header_equals_tensorflow_tool(models, attributes, proto_fileformat):
    files = [getattr(models, a) for a in attributes]
    expected = tf_header(proto_fileformat, files)
    assert body(ours(files)) == body(expected)
    assert len(body(expected)) > 40  # the full selective header, not the 'all' shortcut


@pytest.mark.parametrize("default_ops", ["all", "", "NoOp:NoOp", "NoOp:NoOp,_Recv:RecvOp,_Send:SendOp"])
def test_default_ops_are_parsed_like_tensorflow(models, default_ops):
    expected = tf_header("rawproto", [models.cnn_pb], default_ops)
    assert body(ours([models.cnn_pb], default_ops=default_ops)) == body(expected)


def test_an_empty_kernel_class_is_refused_where_tensorflows_tool_drops_the_kernels(models):
    """TensorFlow's tool takes ``Foo:`` as the op Foo with none of its kernels; tfbuild refuses it
    (``NoOp:`` would build a binary that fails on the device), naming why."""
    with pytest.raises(ConfigError, match="'NoOp:' is not OP:KERNEL_CLASS: it names no kernel class"):
        ours([models.cnn_pb], default_ops="NoOp:NoOp,NoOp:")


@pytest.mark.parametrize(
    ("saved_model", "graph_pbs"),
    [("keras_saved_model", "keras_graph_pbs"), ("loop_saved_model", "loop_saved_model_graph_pbs")],
)
def test_saved_model_header_equals_tool_on_its_graphdefs(models, saved_model, graph_pbs):
    header = ours([getattr(models, saved_model)])
    assert body(header) == body(tf_header("rawproto", getattr(models, graph_pbs)))
    assert parse_header_text(header).ops >= {"StatefulPartitionedCall"}


def test_control_flow_body_ops_are_in_the_header(models):
    contents = parse_header_text(ours([models.loop_saved_model]))
    assert {"Less", "AddV2", "Mul", "Greater", "StatelessWhile", "StatelessIf"} <= contents.ops
    assert "BinaryOp<CPUDevice, functor::less<int32_t>>" in contents.kernel_classes


@pytest.mark.parametrize("attribute", ["meta", "meta_text"])
def test_meta_graph_header_equals_tool_on_its_graphdef(models, attribute, tmp_path):
    graph = tmp_path / "graph.pb"
    graph.write_bytes(load_model(getattr(models, attribute)).graph_defs[0].SerializeToString())
    assert body(ours([getattr(models, attribute)])) == body(tf_header("rawproto", [graph]))


def test_tflite_header_equals_tool_on_its_flex_nodedefs(models, tmp_path):
    from tensorflow.core.framework import graph_pb2

    graph_def = graph_pb2.GraphDef()
    for index, source in enumerate(load_model(models.tflite).flex_nodes):
        node = graph_def.node.add()
        node.CopyFrom(source.node_def)
        node.name = f"flex_{index}"
    graph = tmp_path / "flex.pb"
    graph.write_bytes(graph_def.SerializeToString())
    header = ours([models.tflite])
    assert body(header) == body(tf_header("rawproto", [graph]))
    assert {"Cumprod", "MatrixInverse"} <= parse_header_text(header).ops


def test_tflite_without_flex_ops_needs_only_default_ops(models):
    assert parse_header_text(ours([models.tflite_builtin_only])).ops == {"NoOp", "_Recv", "_Send"}
    with pytest.raises(InputFileError, match="register nothing"):  # TF: "Error reading graph!"
        ours([models.tflite_builtin_only], default_ops="")


def test_comment_block_names_models_digests_and_versions(models):
    from tfbuild import __version__
    from tfbuild.fileio import sha256_file

    header = ours([models.cnn_pb, models.keras_saved_model])
    comments = "\n".join(line for line in header.splitlines() if line.startswith("//"))
    assert f"tfbuild {__version__}" in comments and "TensorFlow 2." in comments
    assert sha256_file(models.cnn_pb) in comments
    assert sha256_file(models.keras_saved_model / "saved_model.pb") in comments
    assert f'"{models.keras_saved_model.name}"' in comments
    # Names, not paths: the header is part of every kernel's compile, and two CI workers' checkout
    # directories must not make their caches miss each other.
    assert str(models.root) not in comments


def test_op_granularity_lists_ops_and_accepts_every_kernel(models):
    kernel = parse_header_text(ours([models.cnn_pb]))
    op = parse_header_text(ours([models.cnn_pb], granularity="op"))
    assert op.op_granularity and not kernel.op_granularity
    assert op.ops == kernel.ops and op.kernel_classes == ()


def test_parse_header_reads_tensorflow_tool_output(models, tmp_path):
    from tensorflow.python.tools import selective_registration_header_lib as tf_lib

    pairs = tf_lib.get_ops_and_kernels("rawproto", [str(models.cnn_pb)], DEFAULT_OPS)
    header = tmp_path / "ops_to_register.h"
    header.write_text(tf_lib.get_header_from_ops_and_kernels(pairs, False))
    contents = parse_header(header)
    assert contents.ops == {op for op, _ in pairs}
    assert contents.kernel_classes == tuple(dict.fromkeys(k for _, k in pairs if k))
    assert not contents.registers_everything and not contents.op_granularity
    header.write_text(tf_lib.get_header_from_ops_and_kernels(pairs, True))
    assert parse_header(header).registers_everything


def test_ops_list_written_is_read_by_tensorflow_tool(models, tmp_path):
    ops_list = write_ops_list(analyze_models([models.loop_saved_model]), tmp_path / "ops.json")
    expected = tf_header("rawproto", models.loop_saved_model_graph_pbs)
    assert body(tf_header("ops_list", [ops_list])) == body(expected)
    assert body(ours([ops_list])) == body(expected)


def test_parse_header_round_trips_escaped_names(models, tmp_path):
    import json

    ops_list = tmp_path / "odd.json"
    ops_list.write_text(json.dumps([["OddOp", ODD_KERNEL], ["_Odd>Op", "Caf\u00e9Op"]]))
    header = write_header(analyze_models([ops_list]), tmp_path / "ops_to_register.h")
    contents = parse_header(header)
    assert {"OddOp", "_Odd>Op"} <= contents.ops
    assert ODD_KERNEL in contents.kernel_classes and "Caf\u00e9Op" in contents.kernel_classes
    assert '\\077' in header.read_text()  # '?' escaped: no trigraph can form


def test_parse_header_rejects_other_files(tmp_path):
    other = tmp_path / "ops_to_register.h"
    other.write_text("#define SOMETHING 1\n")
    with pytest.raises(InputFileError, match="not an ops_to_register.h"):
        parse_header(other)
    with pytest.raises(InputFileError, match="no such header"):
        parse_header(tmp_path / "missing.h")


def test_header_command_writes_what_render_header_renders(models, tmp_path, capsys):
    out = tmp_path / "include" / "ops_to_register.h"
    assert main(["header", str(models.cnn_pb), str(models.loop_pb), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert out.read_text() == ours([models.cnn_pb, models.loop_pb])
    assert [p.name for p in out.parent.iterdir()] == ["ops_to_register.h"]  # no temp files left


def test_header_command_warns_about_problems(models, tmp_path, capsys):
    out = tmp_path / "ops_to_register.h"
    assert main(["header", str(models.problems_pbtxt), "-o", str(out)]) == 0
    assert "Cholesky" in capsys.readouterr().err
    assert main(["header", "--strict", str(models.problems_pbtxt), "-o", str(tmp_path / "s.h")]) == 5
    assert not (tmp_path / "s.h").exists()


@pytest.mark.parametrize(
    "options", [{"granularity": "class"}, {"default_ops": "NoOp"}, {"default_ops": "Bad Op:X"}]
)
def test_bad_header_options_are_config_errors(options):
    with pytest.raises(ConfigError):
        HeaderOptions(**options)


# Kernel class names a crafted ops list could carry: quotes, backslashes, trigraph starters.
ODD_KERNEL = 'Weird"Kernel\\??/<float>'


@pytest.mark.compiler
@pytest.mark.parametrize("granularity", ["kernel", "op"])
def test_header_compiles_and_selects(models, tmp_path, granularity):
    """g++ evaluates the header's constexpr selection exactly as a TF build would."""
    import json

    ops_list = tmp_path / "odd.json"
    ops_list.write_text(json.dumps([["OddOp", ODD_KERNEL]]))
    analysis = analyze_models([models.cnn_pb, ops_list])
    write_header(analysis, tmp_path / "ops_to_register.h", HeaderOptions(granularity=granularity))
    conv_kernel = next(r for r in analysis.ops if r.op == "Conv2D").kernel_classes[0]
    checks = [
        ('SHOULD_REGISTER_OP("Conv2D")', True),
        ('SHOULD_REGISTER_OP("OddOp")', True),
        ('SHOULD_REGISTER_OP("_Recv")', True),  # a default op
        ('SHOULD_REGISTER_OP("Cholesky")', False),
        (f"SHOULD_REGISTER_OP_KERNEL({json.dumps(conv_kernel)})", True),
        ('SHOULD_REGISTER_OP_KERNEL("Weird\\"Kernel\\\\\\?\\?/< float >")', True),  # spaces aside
        ('SHOULD_REGISTER_OP_KERNEL("Constant Op")', True),
        ('SHOULD_REGISTER_OP_KERNEL("CholeskyOp<float>")', granularity == "op"),
        ("SHOULD_REGISTER_OP_GRADIENT", False),
    ]
    source = tmp_path / "check.cc"
    source.write_text(
        '#include "ops_to_register.h"\n'
        + "".join(f'static_assert({"" if want else "!"}{expr}, "{i}");\n' for i, (expr, want) in enumerate(checks))
    )
    compiled = subprocess.run(
        [shutil.which("g++") or "g++", "-std=c++17", "-fsyntax-only", "-I", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
    )
    assert compiled.returncode == 0, compiled.stderr


def parse_header_text(text: str):
    """parse_header on a header held in memory."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "ops_to_register.h"
        path.write_text(text)
        return parse_header(path)
