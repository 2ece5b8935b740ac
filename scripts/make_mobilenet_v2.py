"""Write a frozen MobileNetV2 GraphDef with the installed TensorFlow (no weights download).

    python scripts/make_mobilenet_v2.py mobilenet.pb

Keras' MobileNetV2 (alpha 0.35, 96x96 input, random weights), traced with a fixed batch of 1
and frozen with convert_variables_to_constants_v2: the model ``tfbuild check``/``tfbuild compat``
are shown with on TF 1.x trees in the README.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main(out: Path) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = tf.keras.applications.MobileNetV2(weights=None, input_shape=(96, 96, 3), alpha=0.35)
    spec = tf.TensorSpec([1, 96, 96, 3], tf.float32)
    concrete = tf.function(lambda images: model(images, training=False)).get_concrete_function(spec)
    graph_def = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    out.write_bytes(graph_def.SerializeToString())
    print(f"wrote {out}: {len(graph_def.node)} nodes, TensorFlow {tf.__version__}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_mobilenet_v2.py OUT.pb")
    main(Path(sys.argv[1]))
