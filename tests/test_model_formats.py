"""Format detection from content and layout, checked against TensorFlow's own readers."""

from __future__ import annotations

import shutil

import pytest

from tfbuild.model.formats import ModelFormat, load_model

pytestmark = pytest.mark.tensorflow


def _graph_ops(graph_defs) -> list[str]:
    ops = []
    for graph_def in graph_defs:
        ops += [n.op for n in graph_def.node]
        for function in graph_def.library.function:
            ops += [n.op for n in function.node_def]
    return sorted(ops)


@pytest.mark.parametrize(
    ("attribute", "expected"),
    [
        ("cnn_pb", ModelFormat.GRAPHDEF),
        ("cnn_pbtxt", ModelFormat.GRAPHDEF_TEXT),
        ("keras_saved_model", ModelFormat.SAVED_MODEL),
        ("saved_model_text", ModelFormat.SAVED_MODEL),
        ("loop_pb", ModelFormat.GRAPHDEF),
        ("loop_saved_model", ModelFormat.SAVED_MODEL),
        ("meta", ModelFormat.METAGRAPH),
        ("meta_text", ModelFormat.METAGRAPH_TEXT),
        ("tflite", ModelFormat.TFLITE),
        ("tflite_builtin_only", ModelFormat.TFLITE),
        ("tflite_custom", ModelFormat.TFLITE),
        ("ops_list", ModelFormat.OPS_LIST),
        ("bare_saved_model_proto", ModelFormat.SAVED_MODEL_PROTO),
        ("pb_named_txt", ModelFormat.GRAPHDEF),
        ("pbtxt_named_pb", ModelFormat.GRAPHDEF_TEXT),
    ],
)
def test_format_is_detected_from_content(models, attribute, expected):
    assert load_model(getattr(models, attribute)).format is expected


def test_graphdefs_equal_what_tensorflow_parses(models):
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    binary = graph_pb2.GraphDef.FromString(models.cnn_pb.read_bytes())
    text = text_format.Parse(models.cnn_pbtxt.read_text(), graph_pb2.GraphDef())
    assert load_model(models.cnn_pb).graph_defs == (binary,)
    assert load_model(models.pbtxt_named_pb).graph_defs == (text,)
    assert load_model(models.pb_named_txt).graph_defs == (binary,)


@pytest.mark.parametrize("attribute", ["keras_saved_model", "saved_model_text", "loop_saved_model"])
def test_saved_model_yields_every_meta_graph(models, attribute):
    from tensorflow.python.saved_model import loader_impl

    expected = loader_impl.parse_saved_model(str(getattr(models, attribute)))
    loaded = load_model(getattr(models, attribute))
    assert loaded.graph_defs == tuple(m.graph_def for m in expected.meta_graphs)
    assert sum(1 for _ in loaded.node_sources()) == len(_graph_ops(loaded.graph_defs)) > 0


def test_bare_saved_model_proto_text_file(models, tmp_path):
    from tensorflow.python.saved_model import loader_impl

    bare = tmp_path / "exported.txt"
    shutil.copyfile(models.saved_model_text / "saved_model.pbtxt", bare)
    loaded = load_model(bare)
    assert loaded.format is ModelFormat.SAVED_MODEL_PROTO_TEXT
    expected = loader_impl.parse_saved_model(str(models.keras_saved_model))
    assert loaded.graph_defs == tuple(m.graph_def for m in expected.meta_graphs)


@pytest.mark.parametrize("attribute", ["meta", "meta_text"])
def test_meta_graph_matches_tensorflow_reader(models, attribute):
    from tensorflow.python.framework import meta_graph

    expected = meta_graph.read_meta_graph_file(str(getattr(models, attribute)))
    assert load_model(getattr(models, attribute)).graph_defs == (expected.graph_def,)


def test_meta_graph_renamed_is_still_found(models, tmp_path):
    renamed = tmp_path / "checkpoint_graph.bin"
    shutil.copyfile(models.meta, renamed)
    assert load_model(renamed).format is ModelFormat.METAGRAPH


def test_function_library_nodes_are_included(models):
    loaded = load_model(models.loop_pb)
    functions = {s.where for s in loaded.node_sources() if s.where != "graph"}
    assert any("while_body" in w for w in functions) and any("while_cond" in w for w in functions)
    ops = {s.node_def.op for s in loaded.node_sources()}
    assert {"StatelessWhile", "StatelessIf", "Less", "AddV2", "Mul", "Greater"} <= ops


def test_tflite_flex_nodes_match_the_flatbuffer(models):
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.read_model_from_bytearray(bytearray(models.tflite.read_bytes()))
    codes = [c.customCode.decode() for c in model.operatorCodes if c.customCode]
    flex_ops = sorted(
        model.operatorCodes[op.opcodeIndex].customCode.decode()[len("Flex"):]
        for subgraph in model.subgraphs
        for op in subgraph.operators
        if (model.operatorCodes[op.opcodeIndex].customCode or b"").startswith(b"Flex")
    )
    assert codes and all(c.startswith("Flex") for c in codes)
    loaded = load_model(models.tflite)
    assert sorted(s.node_def.op for s in loaded.flex_nodes) == flex_ops == ["Cumprod", "MatrixInverse"]
    assert all(s.node_def.attr["T"].type for s in loaded.flex_nodes)  # the real NodeDef, attrs and all
    assert loaded.tflite_custom_ops == ()


def test_tflite_without_flex_ops_has_no_tensorflow_nodes(models):
    loaded = load_model(models.tflite_builtin_only)
    assert loaded.flex_nodes == () and list(loaded.node_sources()) == []


def test_ops_list_entries(models):
    loaded = load_model(models.ops_list)
    assert [(e.op, e.kernel_class) for e in loaded.listed_ops] == [
        ("AccumulateNV2", None),
        ("AddV2", "BinaryOp<CPUDevice, functor::add<float>>"),
        ("Const", "ConstantOp"),
        ("Identity", None),
    ]


def test_sha256_is_of_the_file_read(models):
    from tfbuild.fileio import sha256_file

    assert load_model(models.cnn_pb).sha256 == sha256_file(models.cnn_pb)
    saved_model = load_model(models.keras_saved_model)
    assert saved_model.sha256 == sha256_file(models.keras_saved_model / "saved_model.pb")


@pytest.mark.parametrize("first_node", ["TFL3_lookalike", "pad_to_91_bytes"])
def test_binary_graphdef_that_looks_like_tflite_or_json(tmp_path, first_node):
    """Bytes 4..8 of a GraphDef are its first node's name; a 91-byte first node makes the file
    start with "\\n[". Neither may turn a good GraphDef into a TFLite or ops-list error."""
    from tensorflow.core.framework import graph_pb2

    graph_def = graph_pb2.GraphDef()
    node = graph_def.node.add(name=first_node, op="NoOp")
    if first_node.startswith("pad"):
        node.name += "x" * (91 - node.ByteSize())
    graph = tmp_path / "tricky.pb"
    graph.write_bytes(graph_def.SerializeToString())
    data = graph.read_bytes()
    assert data[4:8] == b"TFL3" or data[:2] == b"\n["
    loaded = load_model(graph)
    assert loaded.format is ModelFormat.GRAPHDEF and loaded.graph_defs == (graph_def,)
