"""Per-file selective registration (``--per-file-selection``), for real: the generated TF 1.x
tree built with the contrib Makefile, real make and g++, for two apps.

- The binaries register exactly the kernels of the one-header build, for both apps (the
  benchmark prints its registry), and ``tfbuild verify`` passes on the per-file build.
- The second app on the same tree recompiles only the sources whose own selection changed
  (counted by make's dry run and the compiler lines in the log), where the one-header build
  recompiles every kernel and op source.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from treegen import make_tf1_tree

APP_A = [["Relu", "ReluOp<CPUDevice, float>"], ["Add", "BinaryOp<CPUDevice, functor::add<float>>"]]
APP_B = [["Relu", "ReluOp<CPUDevice, float>"], ["Sqrt", "UnaryOp<CPUDevice, functor::sqrt<float>>"]]
IDENTITY = (
    'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }\n'
    '  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }\n'
    'node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n'
)

pytestmark = [pytest.mark.compiler, pytest.mark.tensorflow]


def tfbuild(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True)


def build(tree: Path, out: Path, app: list[list[str]], identity: Path, *more: str) -> tuple[set[str], list[str]]:
    """Build ``app`` (and the Identity graph); the kernel and op sources compiled, and the
    kernels the benchmark registers."""
    ops = out.with_suffix(".json")
    ops.write_text(json.dumps(app))
    done = tfbuild("build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree),
                   "--model", str(identity), "--model", str(ops), "--default-ops", "NoOp:NoOp", "--local",
                   "--out", str(out), "--jobs", "2", *more)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "linux-x86_64.build.log").read_text()
    compiled = set(re.findall(r" -c (tensorflow/core/(?:kernels|ops)/\S+\.cc)", log))
    listing = subprocess.run([str(out / "benchmark")], capture_output=True, text=True, check=True).stdout
    return compiled, sorted(line for line in listing.splitlines() if line.startswith("kernel\t"))


def test_a_second_app_recompiles_only_the_sources_whose_selection_changed(tmp_path):
    identity = tmp_path / "identity.pbtxt"
    identity.write_text(IDENTITY)
    one, per_file = make_tf1_tree(tmp_path / "one"), make_tf1_tree(tmp_path / "per-file")

    all_sources, one_a = build(one, tmp_path / "one-a", APP_A, identity)
    first, per_file_a = build(per_file, tmp_path / "per-file-a", APP_A, identity, "--per-file-selection")
    assert per_file_a == one_a and first == all_sources
    assert any("\tAdd\t" in line for line in one_a) and not any("\tSqrt\t" in line for line in one_a)

    recompiled_one, one_b = build(one, tmp_path / "one-b", APP_B, identity)
    recompiled, per_file_b = build(per_file, tmp_path / "per-file-b", APP_B, identity, "--per-file-selection")
    assert per_file_b == one_b
    assert any("\tSqrt\t" in line for line in one_b) and not any("\tAdd\t" in line for line in one_b)
    assert recompiled_one == all_sources  # one header: every kernel and op source sees the change
    # Per file: Add's and Sqrt's kernel files and the op file defining both; nothing else.
    assert recompiled == {
        "tensorflow/core/kernels/cwise_op_add_1.cc", "tensorflow/core/kernels/cwise_op_add_2.cc",
        "tensorflow/core/kernels/cwise_op_sqrt.cc", "tensorflow/core/ops/math_ops.cc",
    }
    log = (tmp_path / "per-file-b" / "linux-x86_64.build.log").read_text()
    assert "    4 objects to compile (make -n)" in log

    # The tree's header dispatches and names no op: the same for both apps.
    tree_header = per_file / "tensorflow/core/framework/ops_to_register.h"
    assert "#include TFBUILD_SELECTION_HEADER" in tree_header.read_text() and "Sqrt" not in tree_header.read_text()
    sqrt = per_file / "tensorflow/contrib/makefile/gen/tfbuild_selection/tensorflow/core/kernels/cwise_op_sqrt.h"
    assert '"UnaryOp<CPUDevice, functor::sqrt<float>>"' in sqrt.read_text()

    done = tfbuild("verify", "--out", str(tmp_path / "per-file-b"), "--model", str(identity))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]


def test_per_file_selection_is_refused_for_bazel(tmp_path, pristine_trees):
    identity = tmp_path / "identity.pbtxt"
    identity.write_text(IDENTITY)
    done = tfbuild("build", "--target", "linux-x86_64", "--flavour", "bazel", "--source", str(pristine_trees["tf1"]),
                   "--model", str(identity), "--out", str(tmp_path / "out"), "--per-file-selection", "--dry-run")
    assert done.returncode == 2
    assert "per-file selection is for the Makefile flavour, not bazel" in done.stderr
    assert not (tmp_path / "out").exists()
