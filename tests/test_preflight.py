"""Preflight on generated trees: each gap reported as the device's error, with the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import treegen

from tfbuild.errors import ConfigError, PreflightError
from tfbuild.model.analysis import Analysis, OpRequirement
from tfbuild.model.header import HeaderOptions, write_header
from tfbuild.tree.edits import EditRequest, run_edit
from tfbuild.tree.preflight import PreflightRequest, require_pass, run_preflight

MIN_CLASS = "ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"
# The class names TF 2.21's registry gives a float MatMul and Const (see TF-FACTS.md), and the
# one a TF 1.12 tree registers for the same MatMul.
TF221_MATMUL = "BatchMatMulOp<CPUDevice, float, float, float, true>"
TF112_MATMUL = "MatMulOp<CPUDevice, float, false >"


def ops_list(tmp_path: Path, pairs: list[list[str]], name: str = "ops.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(pairs))
    return path


def header_for(tmp_path: Path, ops: dict[str, tuple[str, ...]], *, name="ops_to_register.h", granularity="kernel") -> Path:
    analysis = Analysis(
        models=(),
        ops=tuple(OpRequirement(op, classes, ("float",), 1, ("model",)) for op, classes in sorted(ops.items())),
        problems=(),
        tensorflow_version="2.21.0",
    )
    return write_header(analysis, tmp_path / name, HeaderOptions(default_ops="", granularity=granularity))


@pytest.mark.parametrize("flavour", ["makefile", "bazel"])
def test_a_kernel_file_the_build_does_not_compile_is_a_gap_until_edited(tf1_tree, tmp_path, flavour, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    model = ops_list(tmp_path, [["Min", MIN_CLASS], ["Const", "ConstantOp"]])
    request = PreflightRequest(source=tf1_tree, flavour=flavour, models=(model,))
    report = run_preflight(request)
    assert [(g.op, g.kind) for g in report.gaps] == [("Min", "kernel-not-compiled")]
    gap = report.gaps[0]
    assert gap.device_error.startswith("No OpKernel was registered to support Op 'Min' with these attrs")
    assert gap.fix == f"run: tfbuild edit {flavour} --model {model} --source {tf1_tree}"
    assert gap.files == (f"{treegen.KERNELS_DIR}/reduction_ops_min.cc",)
    with pytest.raises(PreflightError) as caught:
        require_pass(report)
    assert "No OpKernel was registered to support Op 'Min'" in caught.value.message
    assert caught.value.exit_code == 5

    run_edit(EditRequest(source=tf1_tree, flavour=flavour, models=(model,)))
    after = run_preflight(request)
    assert after.ok, after.lines()
    require_pass(after)


def test_portable_tree_is_checked_through_its_own_filegroups(tf2_tree, tmp_path):
    model = ops_list(tmp_path, [["Min", MIN_CLASS]])
    report = run_preflight(PreflightRequest(source=tf2_tree, flavour="bazel", models=(model,)))
    assert [g.kind for g in report.gaps] == ["kernel-not-compiled"]


def test_an_op_definition_the_makefile_does_not_compile_is_op_type_not_registered(tf1_tree, tmp_path):
    listed = tf1_tree / treegen.OP_FILES_TXT
    listed.write_text("".join(line for line in listed.read_text().splitlines(keepends=True) if "ops/math_ops.cc" not in line))
    model = ops_list(tmp_path, [["MatMul", TF112_MATMUL]])
    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="makefile", models=(model,)))
    assert [(g.op, g.kind) for g in report.gaps] == [("MatMul", "op-not-compiled")]
    assert report.gaps[0].device_error.startswith("Op type not registered 'MatMul' in binary")
    assert report.gaps[0].files == ("tensorflow/core/ops/math_ops.cc",)


def test_a_header_made_by_a_newer_tensorflow_is_caught_on_an_older_tree(tf1_tree, tmp_path):
    """The installed TF 2.21 names MatMul's kernel BatchMatMulOp<...>; TF 1.12 registers
    MatMulOp<...>: that header would compile the kernel away."""
    header = header_for(tmp_path, {"MatMul": (TF221_MATMUL,), "Const": ("ConstantOp",)})
    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="makefile", header=header))
    assert [(g.op, g.kind) for g in report.gaps] == [("MatMul", "kernel-not-in-header")]
    gap = report.gaps[0]
    assert "No OpKernel was registered to support Op 'MatMul'" in gap.device_error
    assert "--source" in gap.fix
    assert TF112_MATMUL in gap.kernel_classes
    assert any(TF221_MATMUL in note for note in report.notes)


def test_a_header_with_the_trees_class_names_passes(tf1_tree, tmp_path):
    header = header_for(tmp_path, {"MatMul": (TF112_MATMUL,), "Const": ("ConstantOp",)})
    assert run_preflight(PreflightRequest(source=tf1_tree, flavour="bazel", header=header)).ok


def test_op_granular_header_needs_only_the_op(tf1_tree, tmp_path):
    header = header_for(tmp_path, {"MatMul": (TF221_MATMUL,)}, granularity="op")
    assert run_preflight(PreflightRequest(source=tf1_tree, flavour="makefile", header=header)).ok


def test_a_header_that_drops_a_model_op_is_a_gap(tf1_tree, tmp_path):
    model = ops_list(tmp_path, [["MatMul", TF112_MATMUL], ["Const", "ConstantOp"]])
    header = header_for(tmp_path, {"Const": ("ConstantOp",)})
    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="makefile", models=(model,), header=header))
    assert [(g.op, g.kind) for g in report.gaps] == [("MatMul", "op-not-in-header")]
    assert report.gaps[0].device_error.startswith("Op type not registered 'MatMul'")


def test_an_op_no_file_of_the_tree_implements_is_a_gap(tf1_tree, tmp_path):
    model = ops_list(tmp_path, [["FancyCustomOp", "FancyCustomOp<float>"]])
    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="bazel", models=(model,)))
    assert [(g.op, g.kind) for g in report.gaps] == [("FancyCustomOp", "no-kernel-in-tree")]
    assert "custom op library" in report.gaps[0].fix


def test_model_classes_from_another_tensorflow_are_noted_without_a_header(tf1_tree, tmp_path):
    model = ops_list(tmp_path, [["MatMul", TF221_MATMUL]])
    report = run_preflight(PreflightRequest(source=tf1_tree, flavour="makefile", models=(model,)))
    assert report.ok
    assert any(TF221_MATMUL in note and TF112_MATMUL in note for note in report.notes)


def test_nothing_to_check_is_a_config_error(tf1_tree):
    with pytest.raises(ConfigError):
        run_preflight(PreflightRequest(source=tf1_tree, flavour="makefile"))


@pytest.mark.tensorflow
def test_a_header_written_by_the_installed_tensorflow_is_caught_on_a_tf112_tree(tf1_tree, tmp_path):
    """The real thing: the installed TF (2.x) analyses a MatMul+Min graph and writes the header;
    the TF 1.12-shaped tree registers both kernels under other class strings."""
    import tensorflow as tf

    from tfbuild.model.analysis import analyze_models

    @tf.function
    def model(a, b):
        return tf.reduce_min(tf.matmul(a, b), axis=1)

    graph = model.get_concrete_function(
        tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([3, 4], tf.float32)
    ).graph.as_graph_def()
    graph_path = tmp_path / "matmul_min.pb"
    graph_path.write_bytes(graph.SerializeToString())
    header = write_header(analyze_models([graph_path]), tmp_path / "ops_to_register.h")

    report = run_preflight(
        PreflightRequest(source=tf1_tree, flavour="bazel", models=(graph_path,), header=header)
    )
    missing = {gap.op for gap in report.gaps if gap.kind == "kernel-not-in-header"}
    assert {"MatMul", "Min"} <= missing, report.lines()
    assert any("never registers" in note for note in report.notes)
