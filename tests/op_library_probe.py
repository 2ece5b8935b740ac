"""Load one op library into a fresh TensorFlow and report, as JSON on stdout, what it registered
and what a GraphDef computes with it.

Run as ``python op_library_probe.py LIBRARY MODEL REQUEST_JSON``; the request names the ops to
inspect, the feeds (``{"x": {"dtype": "float32", "values": [...]}}``) and the fetches. Each
library gets its own process because two libraries that register the same op names cannot be
loaded into one.
"""

from __future__ import annotations

import json
import sys

# What the tests ask about the bundled example library (examples/custom_ops) and its model.
EXAMPLE_OPS = ("ExampleScale", "ExampleClip", "ExampleSquare", "ExampleCount")
X = [-2.0, -0.25, 0.5, 1.0, 4.0, 1.25]
N = [-2, 0, 5, 7]
EXAMPLE_REQUEST = {
    "ops": list(EXAMPLE_OPS),
    "feeds": {"x": {"dtype": "float32", "values": X}, "n": {"dtype": "int32", "values": N}},
    "fetches": ["clipped", "positives", "n_scaled"],
}


def main(library: str, model: str, request_json: str) -> None:
    import numpy as np
    import tensorflow as tf
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2, types_pb2
    from tensorflow.python.framework import kernels, op_def_registry

    request = json.loads(request_json)
    tf.load_op_library(library)

    registered_ops = {op: op_def_registry.get(op) is not None for op in request["ops"]}
    registered_kernels = {
        op: sorted(
            (
                {
                    "device": kernel.device_type,
                    "constraints": {
                        c.name: sorted(types_pb2.DataType.Name(t) for t in c.allowed_values.list.type)
                        for c in kernel.constraint
                    },
                }
                for kernel in kernels.get_registered_kernels_for_op(op).kernel
            ),
            key=lambda kernel: json.dumps(kernel, sort_keys=True),
        )
        for op in request["ops"]
    }

    with open(model, encoding="utf-8") as handle:
        graph_def = text_format.Parse(handle.read(), graph_pb2.GraphDef())
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    feeds = {
        graph.get_tensor_by_name(f"{name}:0"): np.asarray(feed["values"], dtype=feed["dtype"])
        for name, feed in request["feeds"].items()
    }
    with tf.compat.v1.Session(graph=graph) as session:
        values = session.run([f"{name}:0" for name in request["fetches"]], feed_dict=feeds)
    outputs = {
        name: {"dtype": str(value.dtype), "values": np.asarray(value).tolist()}
        for name, value in zip(request["fetches"], values, strict=True)
    }
    json.dump(
        {"ops": registered_ops, "kernels": registered_kernels, "outputs": outputs}, sys.stdout
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
