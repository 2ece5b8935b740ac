"""Real models generated with TensorFlow for the analysis and header tests.

Every model is built the way users build theirs (tf.function + convert_variables_to_constants_v2,
Keras + tf.saved_model.save, control flow v2, tf.compat.v1 export_meta_graph, TFLiteConverter
with SELECT_TF_OPS), written in every format tfbuild reads, plus copies under misleading names.
Generating them costs a few seconds, so :func:`generated_models` builds them once per test
session (``models`` fixture) and every test module shares the result.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

OPS_LIST = [
    ["AccumulateNV2", None],
    ["AddV2", "BinaryOp<CPUDevice, functor::add<float>>"],
    ["Const", "ConstantOp"],
    ["Identity", ""],
]

# A text GraphDef whose nodes have no CPU kernel, each for a different reason; AccumulateNV2
# is TF's allowlisted kernel-less op and must not be reported.
PROBLEMS_PBTXT = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "chol" op: "Cholesky" input: "x" attr { key: "T" value { type: DT_INT32 } } }
node { name: "mine" op: "MyCustomOp" input: "x" }
node { name: "acc" op: "AccumulateNV2" input: "x"
       attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 1 } }
       attr { key: "shape" value { shape { } } } }
library {
  function {
    signature { name: "poly" attr { name: "T" type: "type" }
                input_arg { name: "a" type_attr: "T" } output_arg { name: "b" type_attr: "T" } }
    node_def { name: "neg" op: "Neg" input: "a" attr { key: "T" value { placeholder: "T" } } }
    ret { key: "b" value: "neg:y:0" }
  }
}
"""


@dataclass(frozen=True)
class GeneratedModels:
    """Paths of the generated models (see the attribute names); ``root`` holds them all."""

    root: Path
    cnn_pb: Path  # frozen GraphDef, binary
    cnn_pbtxt: Path  # the same, text
    keras_saved_model: Path  # SavedModel directory (Keras model, tf.saved_model.save)
    keras_graph_pbs: tuple[Path, ...]  # its MetaGraphs' GraphDefs as .pb (for TF's own tool)
    loop_pb: Path  # control flow v2 GraphDef with its function library
    loop_saved_model: Path  # the same function in a SavedModel
    loop_saved_model_graph_pbs: tuple[Path, ...]
    meta: Path  # MetaGraphDef, binary (.meta)
    meta_text: Path  # MetaGraphDef, text
    tflite: Path  # TFLite with Select-TF (Flex) ops
    tflite_builtin_only: Path  # TFLite without Flex ops
    tflite_custom: Path  # TFLite with a plain (non-Flex) custom op: Erfinv
    ops_list: Path  # JSON ops list
    saved_model_text: Path  # SavedModel directory with saved_model.pbtxt
    bare_saved_model_proto: Path  # a saved_model.pb outside its directory, odd name
    pb_named_txt: Path  # binary GraphDef called .txt
    pbtxt_named_pb: Path  # text GraphDef called .pb
    problems_pbtxt: Path  # nodes without CPU kernels


_CACHE: dict[str, GeneratedModels] = {}


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> GeneratedModels:
    """All generated models, built once per session (shared across test modules)."""
    if "models" not in _CACHE:
        _CACHE["models"] = generate_models(tmp_path_factory.mktemp("models"))
    return _CACHE["models"]


def generate_models(root: Path) -> GeneratedModels:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.random.set_seed(0)
    cnn_pb, cnn_pbtxt = _write_cnn(root)
    keras_dir = _write_keras(root / "keras_saved_model")
    loop_pb, loop_dir = _write_control_flow(root)
    meta, meta_text = _write_meta_graph(root)
    tflite, builtin_only, custom = _write_tflite(root)
    ops_list = root / "ops_list.json"
    ops_list.write_text(json.dumps(OPS_LIST))
    text_dir = _write_text_saved_model(keras_dir, root / "keras_saved_model_text")
    bare = root / "exported_model.bin"
    shutil.copyfile(keras_dir / "saved_model.pb", bare)
    pb_named_txt = root / "graph_really_binary.txt"
    shutil.copyfile(cnn_pb, pb_named_txt)
    pbtxt_named_pb = root / "graph_really_text.pb"
    shutil.copyfile(cnn_pbtxt, pbtxt_named_pb)
    problems = root / "problems.pbtxt"
    problems.write_text(PROBLEMS_PBTXT)
    return GeneratedModels(
        root=root,
        cnn_pb=cnn_pb,
        cnn_pbtxt=cnn_pbtxt,
        keras_saved_model=keras_dir,
        keras_graph_pbs=saved_model_graph_pbs(keras_dir, root / "keras_graphs"),
        loop_pb=loop_pb,
        loop_saved_model=loop_dir,
        loop_saved_model_graph_pbs=saved_model_graph_pbs(loop_dir, root / "loop_graphs"),
        meta=meta,
        meta_text=meta_text,
        tflite=tflite,
        tflite_builtin_only=builtin_only,
        tflite_custom=custom,
        ops_list=ops_list,
        saved_model_text=text_dir,
        bare_saved_model_proto=bare,
        pb_named_txt=pb_named_txt,
        pbtxt_named_pb=pbtxt_named_pb,
        problems_pbtxt=problems,
    )


def saved_model_graph_pbs(saved_model_dir: Path, out_dir: Path) -> tuple[Path, ...]:
    """Each MetaGraph's GraphDef as a binary .pb: the only input TF's own header tool reads."""
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel.FromString((saved_model_dir / "saved_model.pb").read_bytes())
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, meta_graph in enumerate(proto.meta_graphs):
        path = out_dir / f"meta_graph_{index}.pb"
        path.write_bytes(meta_graph.graph_def.SerializeToString())
        paths.append(path)
    return tuple(paths)


def _write_cnn(root: Path) -> tuple[Path, Path]:
    """Conv2D, BiasAdd, Relu, MaxPool, MatMul, Softmax with variables, frozen to constants."""
    import tensorflow as tf
    from google.protobuf import text_format
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    filters = tf.Variable(tf.random.normal([3, 3, 1, 4]))
    bias = tf.Variable(tf.zeros([4]))
    dense = tf.Variable(tf.random.normal([4 * 4 * 4, 10]))

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 1], tf.float32)])
    def cnn(images):
        x = tf.nn.conv2d(images, filters, strides=1, padding="SAME")
        x = tf.nn.relu(tf.nn.bias_add(x, bias))
        x = tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")
        x = tf.reshape(x, [1, -1])
        return tf.nn.softmax(tf.matmul(x, dense))

    frozen = convert_variables_to_constants_v2(cnn.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    pb, pbtxt = root / "cnn_frozen.pb", root / "cnn_frozen.pbtxt"
    pb.write_bytes(graph_def.SerializeToString())
    pbtxt.write_text(text_format.MessageToString(graph_def))
    return pb, pbtxt


def _write_keras(directory: Path) -> Path:
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )
    tf.saved_model.save(model, str(directory))
    return directory


def _loop_module():
    """A tf.function with tf.while_loop and tf.cond (control flow v2: StatelessWhile/If)."""
    import tensorflow as tf

    class LoopModule(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def run(self, x):
            def body(i, value):
                value = tf.cond(value > 10.0, lambda: value * 0.5, lambda: value + 1.0)
                return i + 1, value

            _, result = tf.while_loop(lambda i, _: tf.less(i, 5), body, [tf.constant(0), x])
            return result

    return LoopModule()


def _write_control_flow(root: Path) -> tuple[Path, Path]:
    import tensorflow as tf

    module = _loop_module()
    graph_def = module.run.get_concrete_function().graph.as_graph_def()  # library kept
    pb = root / "control_flow.pb"
    pb.write_bytes(graph_def.SerializeToString())
    directory = root / "control_flow_saved_model"
    tf.saved_model.save(module, str(directory))
    return pb, directory


def _write_meta_graph(root: Path) -> tuple[Path, Path]:
    """A TF1-style graph with a variable, exported as .meta (binary and text)."""
    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        weights = tf.compat.v1.get_variable("w", [4, 2])
        tf.nn.softmax(tf.matmul(x, weights) + 1.0, name="y")
        meta, meta_text = root / "tf1_model.meta", root / "tf1_model_text.meta"
        tf.compat.v1.train.export_meta_graph(filename=str(meta), graph=graph)
        tf.compat.v1.train.export_meta_graph(filename=str(meta_text), graph=graph, as_text=True)
    return meta, meta_text


def _write_tflite(root: Path) -> tuple[Path, Path, Path]:
    """Cumprod and MatrixInverse have no TFLite builtin, so SELECT_TF_OPS makes them Flex ops;
    Erfinv is not even in the Flex allowlist, so only allow_custom_ops converts it."""
    import tensorflow as tf

    class FlexModule(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
        def run(self, x):
            y = tf.nn.relu(x) + 1.0
            return tf.math.cumprod(y, axis=1), tf.linalg.inv(tf.matmul(y, y, transpose_b=True))

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
        def builtin(self, x):
            return tf.nn.relu(x) + 1.0

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
        def custom(self, x):
            return tf.math.erfinv(tf.sigmoid(x))

    module = FlexModule()
    paths = []
    builtins, select = tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS
    for name, function, ops in (
        ("flex.tflite", module.run, [builtins, select]),
        ("builtin_only.tflite", module.builtin, [builtins]),
        ("custom_op.tflite", module.custom, [builtins]),
    ):
        converter = tf.lite.TFLiteConverter.from_concrete_functions(
            [function.get_concrete_function()], module
        )
        converter.target_spec.supported_ops = ops
        converter.allow_custom_ops = name == "custom_op.tflite"
        path = root / name
        path.write_bytes(converter.convert())
        paths.append(path)
    return paths[0], paths[1], paths[2]


def _write_text_saved_model(binary_dir: Path, text_dir: Path) -> Path:
    from google.protobuf import text_format
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel.FromString((binary_dir / "saved_model.pb").read_bytes())
    text_dir.mkdir(parents=True)
    (text_dir / "saved_model.pbtxt").write_text(text_format.MessageToString(proto))
    return text_dir


def graph_pbtxt(path: Path, op: str) -> Path:
    """A text GraphDef: a float [2, 3] placeholder ``x`` and ``y = op(x)``."""
    path.write_text(
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }\n'
        '  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }\n'
        f'node {{ name: "y" op: "{op}" input: "x" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n'
    )
    return path
