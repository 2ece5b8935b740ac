"""The proof that selection works: a selective build of an op library keeps exactly what the model needs.

``tfbuild example`` compiles the example op library twice with g++ against the installed
wheel's headers: plainly, and with ``-DSELECTIVE_REGISTRATION`` and the header generated for
the example model. TensorFlow is the oracle: each library is loaded with ``tf.load_op_library``
in its own process (two libraries registering the same op names cannot share one), which
reports the registered ops and kernels and runs the model. What the model needs is read from
the model file here, independently of tfbuild's analysis.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from example_run import example_run
from op_library_probe import EXAMPLE_OPS, N, X
from op_library_probe import EXAMPLE_REQUEST as REQUEST

from tfbuild.pipeline.example import ExamplePaths, example_model

pytestmark = [pytest.mark.compiler, pytest.mark.tensorflow]

PROBE = Path(__file__).resolve().parent / "op_library_probe.py"


@pytest.fixture(scope="session")
def paths(tmp_path_factory) -> ExamplePaths:
    return ExamplePaths.under(example_run(tmp_path_factory).check().out_dir)


def _probe(library: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(PROBE), str(library), str(example_model()), json.dumps(REQUEST)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def plain(paths) -> dict:
    return _probe(paths.plain_library)


@pytest.fixture(scope="session")
def selective(paths) -> dict:
    return _probe(paths.selective_library)


def _kernel_pairs(report: dict) -> set[tuple[str, str | None]]:
    """(op, dtype of T) for every registered kernel; None for a kernel without a T constraint."""
    pairs = set()
    for op, kernels in report["kernels"].items():
        for kernel in kernels:
            assert kernel["device"] == "CPU"
            dtypes = kernel["constraints"].get("T", [None])
            assert len(dtypes) == 1
            pairs.add((op, dtypes[0]))
    return pairs


@pytest.fixture(scope="session")
def needed() -> set[tuple[str, str | None]]:
    """(op, dtype of T) of every example-op node in the model, read from the GraphDef itself."""
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2, types_pb2

    graph_def = text_format.Parse(example_model().read_text(), graph_pb2.GraphDef())
    return {
        (node.op, types_pb2.DataType.Name(node.attr["T"].type) if "T" in node.attr else None)
        for node in graph_def.node
        if node.op in EXAMPLE_OPS
    }


def test_the_model_uses_only_some_of_the_example_kernels(needed, plain):
    assert needed < _kernel_pairs(plain)
    assert {op for op, _ in needed} < set(EXAMPLE_OPS)


def test_selective_library_registers_exactly_the_kernels_the_model_needs(needed, selective):
    assert _kernel_pairs(selective) == needed


def test_plain_library_registers_every_kernel_and_the_selective_one_drops_the_rest(
    needed, plain, selective
):
    dropped = _kernel_pairs(plain) - _kernel_pairs(selective)
    assert dropped and not dropped & needed
    assert _kernel_pairs(plain) == needed | dropped


def test_selective_library_registers_only_the_ops_the_model_uses(needed, plain, selective):
    assert all(plain["ops"].values())
    assert {op for op, registered in selective["ops"].items() if registered} == {op for op, _ in needed}


def test_both_builds_compute_the_model_the_same_and_correctly(plain, selective):
    assert selective["outputs"] == plain["outputs"]
    x, n = np.asarray(X, dtype=np.float32), np.asarray(N, dtype=np.int32)
    clipped = np.clip(x * np.float32(2.0), -1.0, 3.0)
    outputs = plain["outputs"]
    assert outputs["clipped"] == {"dtype": "float32", "values": clipped.tolist()}
    assert outputs["positives"] == {"dtype": "int32", "values": int((clipped > 0).sum())}
    assert outputs["n_scaled"] == {"dtype": "int32", "values": (n * 3).tolist()}


def test_selective_library_is_smaller(paths, record_property):
    plain_size = paths.plain_library.stat().st_size
    selective_size = paths.selective_library.stat().st_size
    record_property("plain_library_bytes", plain_size)
    record_property("selective_library_bytes", selective_size)
    print(f"plain {plain_size:,} bytes, selective {selective_size:,} bytes")
    assert selective_size < plain_size
