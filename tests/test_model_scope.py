"""Model scope: a SavedModel's signature counts only what it runs; a builtin-only TFLite model is
said to need no TensorFlow kernels. TensorFlow's own graph pruning is the oracle."""

from __future__ import annotations

import json
import os

import pytest

from tfbuild.cli import main
from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.analysis import analyze_models
from tfbuild.model.formats import load_model
from tfbuild.model.header import HeaderOptions, render_header
from tfbuild.model.scope import ModelScope

pytestmark = pytest.mark.tensorflow

SAVER_OPS = {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename", "StringJoin"}
SERVING = ModelScope(signature="serving_default")


@pytest.fixture(scope="module")
def table_saved_model(tmp_path_factory):
    """A TF1 SavedModel (SavedModelBuilder) whose signature looks strings up in a hash table that
    its main op fills in, with a variable, so it also has a sharded saver."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    directory = tmp_path_factory.mktemp("scope") / "table_saved_model"
    graph = tf.Graph()
    with graph.as_default():
        initializer = tf.lookup.KeyValueTensorInitializer(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
        table = tf.lookup.StaticHashTable(initializer, -1)
        words = tf.compat.v1.placeholder(tf.string, [None], name="words")
        scale = tf.compat.v1.get_variable("scale", [], tf.float32)
        scores = tf.identity(tf.cast(table.lookup(words), tf.float32) * scale, name="scores")
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            builder = tf.compat.v1.saved_model.Builder(str(directory))
            signature = tf.compat.v1.saved_model.predict_signature_def({"words": words}, {"scores": scores})
            builder.add_meta_graph_and_variables(
                session, ["serve"], signature_def_map={"serving_default": signature},
                main_op=tf.compat.v1.tables_initializer(),
            )
            builder.save()
    return directory


def _ops(analysis) -> dict[str, int]:
    return {r.op: r.node_count for r in analysis.ops}


def test_signature_drops_the_saver_ops_of_a_keras_saved_model(models):
    everything = _ops(analyze_models([models.keras_saved_model]))
    serving = _ops(analyze_models([models.keras_saved_model], scope=SERVING))
    assert SAVER_OPS & set(everything) == SAVER_OPS and "RestoreV2" in everything
    assert not SAVER_OPS & set(serving) and "RestoreV2" not in serving
    assert {"Conv2D", "MaxPool", "MatMul", "Softmax", "StatefulPartitionedCall", "ReadVariableOp"} <= set(serving)
    assert all(serving[op] <= everything[op] for op in serving)


def test_signature_graph_nodes_are_tensorflows_pruned_subgraph(models):
    """The graph nodes kept are those TensorFlow's extract_sub_graph keeps for the signature's
    outputs and the init op, and the functions kept are those the kept nodes reach."""
    import tensorflow as tf
    from tensorflow.core.protobuf import saved_model_pb2

    saved = saved_model_pb2.SavedModel.FromString((models.keras_saved_model / "saved_model.pb").read_bytes())
    (meta_graph,) = saved.meta_graphs
    outputs = [t.name.split(":")[0] for t in meta_graph.signature_def["serving_default"].outputs.values()]
    init = [t.name.split(":")[0] for t in meta_graph.signature_def["__saved_model_init_op"].outputs.values()]
    expected = tf.compat.v1.graph_util.extract_sub_graph(meta_graph.graph_def, outputs + init)
    (scoped,) = load_model(models.keras_saved_model, SERVING).graph_defs
    assert [n.name for n in scoped.node] == [n.name for n in expected.node]
    kept = {f.signature.name for f in scoped.library.function}
    called = {n.attr["f"].func.name for n in scoped.node if "f" in n.attr}
    assert called <= kept < {f.signature.name for f in meta_graph.graph_def.library.function}


def test_tf1_signature_keeps_the_table_initialiser_and_drops_the_saver(table_saved_model):
    everything = _ops(analyze_models([table_saved_model]))
    serving = _ops(analyze_models([table_saved_model], scope=ModelScope(("serve",), "serving_default")))
    assert {"SaveV2", "RestoreV2", "MergeV2Checkpoints"} <= set(everything)
    assert not {"SaveV2", "RestoreV2", "MergeV2Checkpoints"} & set(serving)
    # the lookup runs in the signature; the table is filled by the main op the loader runs first
    assert {"LookupTableFindV2", "HashTableV2", "LookupTableImportV2", "Cast", "Mul"} <= set(serving)


def test_control_flow_functions_of_a_signature_are_kept(models):
    ops = _ops(analyze_models([models.loop_saved_model], scope=SERVING))
    assert {"StatelessWhile", "StatelessIf", "Less", "AddV2", "Mul", "Greater"} <= set(ops)
    assert not SAVER_OPS & set(ops)


def test_tag_alone_reads_that_meta_graph_whole(models):
    assert _ops(analyze_models([models.keras_saved_model], scope=ModelScope(("serve",)))) == _ops(
        analyze_models([models.keras_saved_model])
    )


def test_scope_is_recorded_in_the_header_and_json(models):
    analysis = analyze_models([models.keras_saved_model], scope=SERVING)
    header = render_header(analysis, HeaderOptions())
    assert 'scope "signature serving_default of MetaGraph [serve]"' in header
    assert analysis.to_dict()["models"][0]["scope"] == "signature serving_default of MetaGraph [serve]"
    assert "scope" not in analyze_models([models.keras_saved_model]).to_dict()["models"][0]


def test_unknown_signature_and_tags_are_config_errors_naming_the_model(models):
    with pytest.raises(ConfigError, match="has no signature 'predict'.*serving_default"):
        analyze_models([models.keras_saved_model], scope=ModelScope(signature="predict"))
    with pytest.raises(ConfigError, match=r"no MetaGraph has the tags \['train'\].*\[serve\]"):
        analyze_models([models.keras_saved_model], scope=ModelScope(("train",), "serving_default"))
    with pytest.raises(ConfigError, match="no SavedModel or MetaGraph among them"):
        analyze_models([models.cnn_pb], scope=SERVING)


def test_scope_applies_to_meta_graph_files(models):
    with pytest.raises(ConfigError, match="has no signature 'serving_default'"):
        analyze_models([models.meta], scope=SERVING)
    assert _ops(analyze_models([models.meta], scope=ModelScope(tags=()))) == _ops(analyze_models([models.meta]))


def test_cli_tag_and_signature(models, tmp_path, capsys):
    out = tmp_path / "ops_to_register.h"
    argv = ["header", str(models.keras_saved_model), "--tag", "serve", "--signature", "serving_default", "-o", str(out)]
    assert main(argv) == 0
    assert "RestoreV2" not in out.read_text() and "Conv2D" in out.read_text()
    capsys.readouterr()
    assert main(["analyze", "--json", "--signature", "serving_default", str(models.keras_saved_model)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert "SaveV2" not in {o["op"] for o in document["ops"]}
    assert main(["analyze", "--signature", "nope", str(models.keras_saved_model)]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(models.keras_saved_model) in errors[0] and "serving_default" in errors[0]


# --- TFLite models of builtin ops only ---------------------------------------------------------

BUILTIN_NOTE = "a TFLite model of builtin ops only; it needs no TensorFlow kernels"


def test_builtin_only_tflite_gets_a_note_not_an_empty_table(models, capsys):
    analysis = analyze_models([models.tflite_builtin_only])
    assert analysis.ops == () and analysis.problems == ()
    assert [m.needs_no_kernels for m in analysis.models] == [True]
    assert analysis.notes() == [f"{models.tflite_builtin_only}: {BUILTIN_NOTE} (the TFLite runtime alone runs it)"]
    assert analysis.to_dict()["notes"] == analysis.notes()
    assert main(["analyze", str(models.tflite_builtin_only)]) == 0
    out = capsys.readouterr().out
    assert "needs no TensorFlow" in " ".join(out.split()) and "Ops (" not in out


def test_flex_and_custom_tflite_models_get_no_such_note(models):
    analysis = analyze_models([models.tflite, models.tflite_custom, models.cnn_pb])
    assert analysis.notes() == [] and "notes" not in analysis.to_dict()


def test_header_of_builtin_only_tflite_says_so(models, tmp_path, capsys):
    out = tmp_path / "ops_to_register.h"
    assert main(["header", str(models.tflite_builtin_only), "-o", str(out)]) == 0
    assert "needs no TensorFlow kernels" in capsys.readouterr().err
    with pytest.raises(InputFileError, match="TFLite builtin ops only, which need no TensorFlow kernels.*register nothing"):
        render_header(analyze_models([models.tflite_builtin_only]), HeaderOptions(default_ops=""))


@pytest.fixture(scope="module")
def two_heads(tmp_path_factory):
    """A frozen graph with a serving head, a training leftover (a second head with its own ops)
    and a summary, written by TensorFlow."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 4], name="x")
        hidden = tf.nn.relu(tf.matmul(x, tf.ones([4, 4])), name="hidden")
        tf.nn.softmax(hidden, name="probabilities")
        tf.reduce_sum(tf.square(hidden - 1.0), name="loss")  # training only: Square, Sub, Sum
    path = tmp_path_factory.mktemp("heads") / "frozen.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


@pytest.mark.tensorflow
def test_outputs_keep_what_tensorflows_extract_sub_graph_keeps(two_heads):
    import tensorflow as tf

    graph_def = tf.compat.v1.GraphDef.FromString(two_heads.read_bytes())
    expected = tf.compat.v1.graph_util.extract_sub_graph(graph_def, ["probabilities"])
    model = load_model(two_heads, ModelScope(outputs=("probabilities:0",)))
    assert [n.name for n in model.graph_defs[0].node] == [n.name for n in expected.node]
    assert model.scope == "what probabilities depend(s) on"
    ops = {node.op for node in model.graph_defs[0].node}
    assert "Softmax" in ops and not ops & {"Square", "Sub", "Sum"}
    with pytest.raises(ConfigError, match="--output-node nothere: no such node in the graph") as raised:
        load_model(two_heads, ModelScope(outputs=("nothere",)))
    assert raised.value.hint == "its likely outputs: probabilities, loss"


@pytest.mark.tensorflow
def test_output_node_narrows_analyze_and_header(two_heads, tmp_path, capsys):
    assert main(["analyze", "--json", "--output-node", "probabilities", str(two_heads)]) == 0
    document = json.loads(capsys.readouterr().out)
    ops = {entry["op"] for entry in document["ops"]}
    assert "Softmax" in ops and not ops & {"Square", "Sub", "Sum"}
    assert document["models"][0]["scope"] == "what probabilities depend(s) on"
    header = tmp_path / "ops_to_register.h"
    assert main(["header", "--output-node", "probabilities", str(two_heads), "-o", str(header)]) == 0
    text = header.read_text()
    assert '"Softmax"' in text and '"Square"' not in text
