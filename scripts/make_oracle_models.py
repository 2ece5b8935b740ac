"""Write the model set the version-oracle comparisons use, with the installed TensorFlow.

    python scripts/make_oracle_models.py OUT_DIR

Besides MobileNetV2 (scripts/make_mobilenet_v2.py), four frozen GraphDefs whose op sets differ
from it in the ways that matter to a selective build:

- ``control_flow_v2.pb``: a tf.function ``while_loop`` (StatelessWhile, its cond/body functions
  with _Arg and _Retval inside them, Less, AddV2);
- ``control_flow_v1.pb``: the same loop in TF 1.x graph mode with control flow v1 (Enter, Exit,
  Merge, Switch, NextIteration, LoopCond);
- ``quantized.pb``: the graph ``quantize_nodes`` writes for a Conv2D (QuantizeV2, QuantizedConv2D,
  RequantizationRange, Requantize, Dequantize), built with ``tf.raw_ops``;
- ``strings.pb``: string ops (StringSplitV2, StringJoin, StringToNumber, RegexReplace).

Each is written as TensorFlow's own ``print_selective_registration_header`` reads it (a binary
GraphDef, function library included).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main(out_dir: Path) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    out_dir.mkdir(parents=True, exist_ok=True)

    def traced(function, *specs):
        return tf.function(function).get_concrete_function(*specs)

    def frozen(function, *specs):
        return convert_variables_to_constants_v2(traced(function, *specs)).graph.as_graph_def()

    def loop(x):
        return tf.while_loop(lambda i, v: i < 10, lambda i, v: (i + 1, v * 2.0), (tf.constant(0), x))[1]

    def quantized(images):
        q_images, low, high = tf.raw_ops.QuantizeV2(input=images, min_range=-1.0, max_range=1.0, T=tf.quint8)
        weights = tf.raw_ops.QuantizeV2(input=tf.fill([3, 3, 3, 4], 0.5), min_range=-1.0, max_range=1.0,
                                        T=tf.quint8).output
        conv, conv_low, conv_high = tf.raw_ops.QuantizedConv2D(
            input=q_images, filter=weights, min_input=low, max_input=high, min_filter=-1.0, max_filter=1.0,
            strides=[1, 1, 1, 1], padding="SAME", out_type=tf.qint32)
        range_low, range_high = tf.raw_ops.RequantizationRange(input=conv, input_min=conv_low, input_max=conv_high)
        requantized, r_low, r_high = tf.raw_ops.Requantize(
            input=conv, input_min=conv_low, input_max=conv_high, requested_output_min=range_low,
            requested_output_max=range_high, out_type=tf.quint8)
        return tf.raw_ops.Dequantize(input=requantized, min_range=r_low, max_range=r_high)

    def strings(text):
        words = tf.strings.split(text)
        joined = tf.strings.reduce_join(words, axis=-1, separator=" ")
        cleaned = tf.strings.regex_replace(joined, "[0-9]+", "7")
        return tf.strings.to_number(tf.strings.substr(cleaned, 0, 1), out_type=tf.float32)

    graphs = {
        # Not frozen: freezing lowers While to control flow v1; the loop holds no variables.
        "control_flow_v2.pb": traced(loop, tf.TensorSpec([2], tf.float32)).graph.as_graph_def(),
        "quantized.pb": frozen(quantized, tf.TensorSpec([1, 8, 8, 3], tf.float32)),
        "strings.pb": frozen(strings, tf.TensorSpec([2], tf.string)),
    }
    with tf.Graph().as_default() as graph:
        tf.compat.v1.disable_control_flow_v2()
        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        tf.identity(loop(x), name="y")
        graphs["control_flow_v1.pb"] = graph.as_graph_def()
        tf.compat.v1.enable_control_flow_v2()
    for name, graph_def in graphs.items():
        (out_dir / name).write_bytes(graph_def.SerializeToString())
        ops = sorted({n.op for n in graph_def.node} | {n.op for f in graph_def.library.function for n in f.node_def})
        print(f"wrote {out_dir / name}: {len(ops)} ops ({', '.join(ops)})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_oracle_models.py OUT_DIR")
    main(Path(sys.argv[1]))
