"""Write a frozen GraphDef with TensorFlow 1.x control flow, for the real-tree size table.

    python scripts/make_control_flow_model.py control_flow.pb

A small recurrent cell run by a ``while_loop`` (Enter, Merge, Switch, LoopCond, NextIteration,
Exit) for a step count fed at run time, then a ``cond`` (Switch, Merge) on the loop's result.
Built in graph mode with control flow v1, as TF 1.x trees know it: v2 control flow would be
the functional ``While``/``If`` ops, which TF 1.9 does not have. Weights are seeded random, so
every run of this script writes the same graph.

Inputs: ``x`` (float32, 1x16) and ``steps`` (int32 scalar); output: ``output`` (float32, 1x16).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

WIDTH = 16


def main(out: Path) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    tf1 = tf.compat.v1
    tf1.disable_control_flow_v2()
    rng = np.random.default_rng(7)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [1, WIDTH], name="x")
        steps = tf1.placeholder(tf.int32, [], name="steps")
        weights = tf.constant(rng.normal(0.0, 0.4, (WIDTH, WIDTH)).astype(np.float32), name="weights")
        bias = tf.constant(rng.normal(0.0, 0.1, (WIDTH,)).astype(np.float32), name="bias")

        def cell(i: tf.Tensor, h: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            mixed = tf.raw_ops.Add(x=tf.matmul(h, weights), y=x)
            return tf.raw_ops.Add(x=i, y=1), tf.tanh(tf.nn.bias_add(mixed, bias))

        _, state = tf1.while_loop(lambda i, h: tf.less(i, steps), cell, [tf.constant(0), x])
        total = tf.reduce_sum(state)
        result = tf1.cond(
            tf.greater(total, 0.0),
            lambda: tf.raw_ops.Mul(x=state, y=2.0),
            lambda: tf.raw_ops.Sub(x=state, y=1.0),
        )
        tf.identity(result, name="output")
    graph_def = graph.as_graph_def()
    out.write_bytes(graph_def.SerializeToString())
    ops = sorted({node.op for node in graph_def.node})
    print(f"wrote {out}: {len(graph_def.node)} nodes ({', '.join(ops)}), TensorFlow {tf.__version__}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_control_flow_model.py OUT.pb")
    main(Path(sys.argv[1]))
