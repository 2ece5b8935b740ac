"""tfbuild's reading of a TF 2.x-shaped tree, checked against an older TensorFlow's own registry.

The oracle is ``tensorflow-cpu`` 2.14 in a venv of its own (scripts/install-oracle-tensorflow.sh,
run by CI), not the TensorFlow tfbuild runs with (2.21): the two spell thousands of class names
differently (``::tensorflow::int32`` against ``::int32_t``). The tree is the generated TF 2.x tree
stamped 2.14.1, with the registration shapes real trees have from 1.15 on (NoOp for DEVICE_DEFAULT
only, ``Name(kArgOp)``, MatMul served by ``BatchMatMulOp`` through a macro from a header).
For a graph whose ops that tree registers the way 2.14 does, the header ``tfbuild header
--source TREE`` writes names exactly the ops and classes 2.14's ``print_selective_registration_header``
writes for the same graph, and the index's (op, device, class) triples for those ops are 2.14's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import treegen
from oracle_tensorflow import oracle_header, oracle_registry
from test_header_oracle import parse_header_text

from tfbuild.cli import main
from tfbuild.model.kernel_registry import KernelRegistry
from tfbuild.tree.kernel_index import build_kernel_index
from tfbuild.tree.needs import squash

# A float graph of ops the generated tree registers exactly as TF 2.14 does for float (its other
# dtypes follow TF 1.12's lists, so whole-op equality is checked on NoOp, _Arg and _Retval).
GRAPH = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } }
                                            float_val: 2.0 } } } }
node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "add" op: "Add" input: "mm" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "relu" op: "Relu" input: "add" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sm" op: "Softmax" input: "relu" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "done" op: "NoOp" input: "^sm" }
"""
WHOLE_OPS = ("NoOp", "_Arg", "_Retval")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return treegen.make_tf2_tree(tmp_path_factory.mktemp("oracle") / "tf", version=(2, 14, 1))


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> Path:
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    path = tmp_path_factory.mktemp("graph") / "graph.pb"
    path.write_bytes(text_format.Parse(GRAPH, graph_pb2.GraphDef()).SerializeToString())
    return path


@pytest.mark.tensorflow
def test_header_from_the_tree_equals_the_older_tensorflows_own(tree, graph, tmp_path):
    ours_path = tmp_path / "ours.h"
    assert main(["header", str(graph), "-o", str(ours_path), "--source", str(tree)]) == 0
    ours = parse_header_text(ours_path.read_text())
    theirs = parse_header_text(oracle_header([graph], tmp_path))
    assert ours.ops == theirs.ops
    assert {squash(c) for c in ours.kernel_classes} == {squash(c) for c in theirs.kernel_classes}
    # TF 2.x serves MatMul with BatchMatMulOp, registered by a macro from matmul_op.h.
    assert "BatchMatMulOp<CPUDevice, float, float, float, true>" in ours.kernel_classes
    assert "NoOp" in ours.kernel_classes  # found through the DEFAULT registration


def test_the_trees_registrations_of_whole_ops_are_the_older_tensorflows(tree, tmp_path):
    """NoOp (DEFAULT only), _Arg and _Retval (op names held in constants): the (device, class)
    pairs of every registration, as 2.14's registry lists them."""
    registry = KernelRegistry(oracle_registry(tmp_path))
    index = build_kernel_index(tree, cache_dir=tmp_path / "cache")
    for op in WHOLE_OPS:
        ours = {(r.device, squash(r.kernel_class)) for r in index.registrations_for_op(op)}
        theirs = {(r.device_type, squash(r.kernel_class or "")) for r in registry.registrations(op)}
        assert ours == theirs, op
