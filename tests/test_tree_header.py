"""``tfbuild header --source``: the header names the tree's kernel classes, not the installed TF's.

The trap it closes, measured on a real TF 1.12 build: TF 2.21 calls MatMul's CPU kernel
``BatchMatMulOp<CPUDevice, float, float, float, true>``, TF 1.12 registers
``MatMulOp<CPUDevice, float, false >``; TF 1.x keeps kernels by class string alone, so a header
from the installed TF silently compiles MatMul out of a 1.12 build.
"""

from __future__ import annotations

import json
import os
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


# -- where the tree comes from: --source, else $TFBUILD_SOURCE, else tfbuild.toml's [build] source --
TREE_MATMUL = "MatMulOp<CPUDevice,float,false>"
_SETTINGS = ("TFBUILD_SOURCE", "TFBUILD_CONFIG", "TFBUILD_APP", "TFBUILD_DEFAULT_OPS", "TFBUILD_HEADER_GRANULARITY")


@pytest.fixture
def no_settings(tmp_path, monkeypatch) -> Path:
    """A working directory without tfbuild.toml and no tfbuild variables set."""
    for name in _SETTINGS:
        monkeypatch.delenv(name, raising=False)
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    return workdir


def _written_classes(header: Path) -> set[str]:
    return {_squash(c) for c in parse_header(header).kernel_classes}


@pytest.mark.tensorflow
def test_tfbuild_source_names_the_tree_when_no_flag_does(tf1_tree, matmul_graph, no_settings, monkeypatch, capsys):
    monkeypatch.setenv("TFBUILD_SOURCE", str(tf1_tree))
    header = no_settings / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(header), "--json"]) == 0
    classes = _written_classes(header)
    assert TREE_MATMUL in classes
    assert not any(c.startswith("BatchMatMulOp<") for c in classes), "not the installed TensorFlow's names"
    assert "source tree" in header.read_text().splitlines()[0]
    assert TREE_MATMUL in {_squash(c) for c in json.loads(capsys.readouterr().out)["kernel_classes"]}

    # The flag wins over the variable: a variable naming no tree is not read.
    monkeypatch.setenv("TFBUILD_SOURCE", str(no_settings / "no-such-tree"))
    assert main(["header", str(matmul_graph), "-o", str(header), "--source", str(tf1_tree)]) == 0
    assert TREE_MATMUL in _written_classes(header)


@pytest.mark.tensorflow
def test_tfbuild_toml_build_source_names_the_tree(tf1_tree, matmul_graph, no_settings, monkeypatch):
    # A relative [build] source is read from the file's directory, as tfbuild build reads it.
    (no_settings / "tfbuild.toml").write_text(f'[build]\nsource = "{os.path.relpath(tf1_tree, no_settings)}"\n')
    header = no_settings / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(header)]) == 0
    assert TREE_MATMUL in _written_classes(header)

    # The same file named by --config from elsewhere.
    elsewhere = no_settings.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    other = elsewhere / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(other), "--config", str(no_settings / "tfbuild.toml")]) == 0
    assert TREE_MATMUL in _written_classes(other)

    # The variable wins over the file: one naming no tree fails, it is not passed over.
    monkeypatch.chdir(no_settings)
    monkeypatch.setenv("TFBUILD_SOURCE", str(no_settings / "no-such-tree"))
    assert main(["header", str(matmul_graph), "-o", str(header)]) != 0


@pytest.mark.tensorflow
def test_without_a_source_the_header_keeps_the_installed_names(tf1_tree, matmul_graph, no_settings):
    header = no_settings / "ops_to_register.h"
    assert main(["header", str(matmul_graph), "-o", str(header)]) == 0
    classes = _written_classes(header)
    assert TREE_MATMUL not in classes
    assert any(c.startswith("BatchMatMulOp<") for c in classes)
    assert "source tree" not in header.read_text().splitlines()[0]
    # A tfbuild.toml that names no source changes nothing either.
    (no_settings / "tfbuild.toml").write_text('[header]\ngranularity = "kernel"\n')
    assert main(["header", str(matmul_graph), "-o", str(header)]) == 0
    assert _written_classes(header) == classes
