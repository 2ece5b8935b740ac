"""``tfbuild header --source``: the header names the tree's kernel classes, not the installed TF's.

The trap it closes, measured on a real TF 1.12 build: TF 2.21 calls MatMul's CPU kernel
``BatchMatMulOp<CPUDevice, float, float, float, true>``, TF 1.12 registers
``MatMulOp<CPUDevice, float, false >``; TF 1.x keeps kernels by class string alone, so a header
from the installed TF silently compiles MatMul out of a 1.12 build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.model.header import parse_header

MATMUL_GRAPH = """
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } } float_val: 2 } } } }
node { name: "mm" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
"""


@pytest.fixture(scope="module")
def matmul_graph(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "matmul.pbtxt"
    path.write_text(MATMUL_GRAPH)
    return path


def _squash(text: str) -> str:
    return "".join(text.split())


@pytest.mark.tensorflow
def test_installed_names_miss_the_tree_and_source_names_match(tf1_tree, matmul_graph, tmp_path):
    from tfbuild.tree.kernel_index import build_kernel_index

    tree_classes = {_squash(c) for c in build_kernel_index(tf1_tree, cache_dir=tmp_path / "c").classes_for_op("MatMul")}
    assert tree_classes, "the TF 1.12-shaped tree registers MatMul"

    installed = tmp_path / "installed" / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(installed)]) == 0
    installed_classes = {_squash(c) for c in parse_header(installed).kernel_classes}
    assert not installed_classes & tree_classes, "installed TF names MatMul's kernel differently"

    retargeted = tmp_path / "tree" / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(retargeted), "--source", str(tf1_tree)]) == 0
    contents = parse_header(retargeted)
    assert "MatMul" in contents.ops
    selected = {_squash(c) for c in contents.kernel_classes}
    # Only the float kernel: the node's T is float, the tree's other dtypes stay out.
    assert selected & tree_classes == {"MatMulOp<CPUDevice,float,false>"}
    assert "source tree" in retargeted.read_text().splitlines()[0]


@pytest.mark.tensorflow
def test_preflight_passes_with_the_tree_header(tf1_tree, matmul_graph, tmp_path):
    header = tmp_path / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(header), "--source", str(tf1_tree)]) == 0
    assert main(["check", "--flavour", "makefile", "--header", str(header), "--source", str(tf1_tree)]) == 0


@pytest.mark.tensorflow
def test_the_summary_counts_what_the_header_registers(matmul_graph, tmp_path, capsys):
    """Not the models' ops: the header also registers the default ops (NoOp, _Recv, _Send)."""
    header = tmp_path / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(header)]) == 0
    contents = parse_header(header)
    assert len(contents.ops) > 3  # Placeholder, Const, MatMul and the default ops
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line == f"wrote {header} (registers {len(contents.ops)} ops, {len(contents.kernel_classes)} kernel classes)"
    assert main(["header", str(matmul_graph), "-o", str(header), "--granularity", "op"]) == 0
    assert capsys.readouterr().out.strip().endswith(f"(registers {len(contents.ops)} ops, every kernel class of each)")
