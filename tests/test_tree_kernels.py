"""Retargeting the installed TensorFlow's kernel classes to the tree's own class strings."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import treegen

from tfbuild.templating import render
from tfbuild.tree.kernel_index import build_kernel_index
from tfbuild.tree.retarget import canonical_dtype, retarget_ops_and_kernels, unregistered_classes

K = treegen.KERNELS_DIR
# What TF 2.21's analysis of a small model gives: its own class names for the nodes' kernels.
INSTALLED_PAIRS = [
    ("Const", "ConstantOp"),
    ("MatMul", "BatchMatMulOp<CPUDevice, float, float, float, true>"),
    ("Relu", "ReluOp<CPUDevice, float>"),
]
FLOAT32 = {"Const": ["float32"], "MatMul": ["float32"], "Relu": ["float32"]}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return treegen.make_tf1_tree(tmp_path_factory.mktemp("retarget") / "tf")


@pytest.fixture(scope="module")
def index(tree, tmp_path_factory):
    return build_kernel_index(tree, cache_dir=tmp_path_factory.mktemp("cache"))


def test_installed_class_names_become_the_trees(index):
    result = retarget_ops_and_kernels(INSTALLED_PAIRS, FLOAT32, index)
    assert result.ops_and_kernels == (
        ("Const", "ConstantOp"),
        ("MatMul", "MatMulOp<CPUDevice, float, false >"),
        ("Relu", "ReluOp<CPUDevice, float>"),
    )
    assert result.missing_ops == () and result.dtype_fallback_ops == ()
    assert result.foreign_classes == ("BatchMatMulOp<CPUDevice, float, float, float, true>",)


def test_other_attrs_than_t_do_not_exclude_registrations(index):
    result = retarget_ops_and_kernels([("Min", None)], {"Min": ["DT_FLOAT"]}, index)
    assert result.ops_and_kernels == (
        ("Min", "ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"),
        ("Min", "ReductionOp<CPUDevice, float, int64, Eigen::internal::MinReducer<float>>"),
    )


def test_every_constrained_type_attr_narrows_the_choice(index):
    """With the nodes' type attrs (``Tidx`` as well as ``T``), only the kernels TensorFlow's lookup
    could pick are kept: the strings model's Max/Prod on the real 2.21 tree needed this to
    equal TF's own header."""
    attrs = {"Min": [("T", "float32"), ("Tidx", "int32")]}
    result = retarget_ops_and_kernels([("Min", None)], {"Min": ["float32"]}, index, attrs)
    assert result.ops_and_kernels == (
        ("Min", "ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"),
    )


def test_registrations_for_unnamed_types_do_not_fit_every_dtype():
    """TF 2.1x's float8/int4 registrations are not taken for a float32 node."""
    from tfbuild.tree.kernel_index import KernelRegistration
    from tfbuild.tree.retarget import _fits

    float8 = KernelRegistration("Pack", "PackOp<CPUDevice, ::tensorflow::float8_e5m2>", "CPU",
                                (("T", "::tensorflow::float8_e5m2"),), "pack_op.cc", 1, None)
    assert canonical_dtype("float8_e5m2") == "float8_e5m2" and canonical_dtype("DT_INT4") == "int4"
    assert not _fits(float8, {"float"})


def test_ops_without_dtypes_keep_every_class(index):
    result = retarget_ops_and_kernels([("Relu", None)], {}, index)
    assert {cls for _, cls in result.ops_and_kernels} == index.classes_for_op("Relu")


def test_unmatched_dtypes_keep_every_class_and_are_reported(index):
    result = retarget_ops_and_kernels([("Softmax", "SoftmaxOp<CPUDevice, int32>")], {"Softmax": ["int32"]}, index)
    assert result.dtype_fallback_ops == ("Softmax",)
    assert {cls for _, cls in result.ops_and_kernels} == index.classes_for_op("Softmax")


def test_ops_the_tree_lacks_are_reported_not_dropped_silently(index):
    result = retarget_ops_and_kernels([("Relu", None), ("FusedBatchNormV3", "FusedBatchNormOp<CPUDevice, float, float>")],
                                      {"Relu": ["float32"]}, index)
    assert result.missing_ops == ("FusedBatchNormV3",)
    assert [op for op, _ in result.ops_and_kernels] == ["Relu"]


def test_unregistered_classes_compare_without_spaces(index):
    classes = [
        "BinaryOp< CPUDevice, functor::add<float>>",  # TF's own header spacing
        "MatMulOp<CPUDevice,float,false>",
        "BatchMatMulOp<CPUDevice, float, float, float, true>",
        "BatchMatMulOp<CPUDevice, float, float, float, true>",
    ]
    assert unregistered_classes(classes, index) == ("BatchMatMulOp<CPUDevice, float, float, float, true>",)


@pytest.mark.parametrize("name, canonical", [
    ("float32", "float"), ("DT_FLOAT", "float"), ("tf.float32", "float"), ("DT_FLOAT_REF", "float"),
    ("float", "float"), ("half", "half"), ("Eigen::half", "half"), ("float16", "half"),
    ("::tensorflow::int32", "int32"), ("DT_INT64", "int64"), ("tstring", "string"), ("string", "string"),
    ("bfloat16", "bfloat16"), ("ResourceHandle", "resource"), ("no_such_type", None),
])
def test_canonical_dtype(name, canonical):
    assert canonical_dtype(name) == canonical


def _header(pairs) -> str:
    classes = sorted({cls for _, cls in pairs if cls})
    return render("ops_to_register.h.j2", comment_lines=[], registers_everything=False,
                  op_granularity=False, kernel_classes=classes, ops=sorted({op for op, _ in pairs}),
                  register_gradients=False)


def _registered(tree: Path, header_text: str, binary: Path) -> set[tuple[str, str]]:
    (tree / treegen.OPS_TO_REGISTER_H).write_text(header_text)
    framework = [p.relative_to(tree).as_posix() for p in (tree / "tensorflow/core/framework").glob("*.cc")]
    sources = [f"{K}/{name}" for name in ("constant_op.cc", "matmul_op.cc", "relu_op.cc")]
    subprocess.run(["g++", "-std=c++11", "-O0", "-w", "-DSELECTIVE_REGISTRATION", "-I.", *framework, *sources,
                    "tensorflow/tools/benchmark/benchmark_model_main.cc", "-o", str(binary)],
                   cwd=tree, check=True, capture_output=True, text=True)
    listing = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    kernels, _ = treegen.parse_registry_listing(listing)
    return {(op, cls) for op, device, cls in kernels if device == "CPU"}


@pytest.mark.compiler
def test_retargeted_header_keeps_matmul_in_a_tf1_build(tree, index, tmp_path):
    """The TF 1.12 measurement, reproduced: a header with TF 2.21's class names drops MatMul
    from the TF 1.12-shaped build; the retargeted header keeps exactly the float kernels."""
    installed = _registered(tree, _header(INSTALLED_PAIRS), tmp_path / "installed")
    assert not any(op == "MatMul" for op, _ in installed)
    retargeted = retarget_ops_and_kernels(INSTALLED_PAIRS, FLOAT32, index).ops_and_kernels
    kept = _registered(tree, _header(retargeted), tmp_path / "retargeted")
    assert kept == {
        ("Const", "ConstantOp"),
        ("MatMul", "MatMulOp<CPUDevice, float, false >"),
        ("Relu", "ReluOp<CPUDevice, float>"),
    }


def test_renamed_and_dropped_classes_are_reported_apart(index):
    """One class renamed, three with no counterpart: the notes say so, not "4 replaced"."""
    from tfbuild.tree.retarget import retarget_notes

    needed = [
        *INSTALLED_PAIRS,
        ("FusedBatchNormV3", "FusedBatchNormOp<CPUDevice, float, float>"),  # op missing from the tree
        ("_FusedConv2D", "FusedConv2DOp<CPUDevice, float>"),  # op missing from the tree
        ("Softmax", "SoftmaxOp<CPUDevice, int32>"),  # the tree has Softmax, but no int32 kernel
    ]
    result = retarget_ops_and_kernels(needed, {**FLOAT32, "Softmax": ["int32"]}, index)
    assert [(r.op, r.installed, r.tree) for r in result.renamed_classes] == [
        ("MatMul", "BatchMatMulOp<CPUDevice, float, float, float, true>", ("MatMulOp<CPUDevice, float, false >",)),
    ]
    assert result.dropped_classes == (
        ("FusedBatchNormV3", "FusedBatchNormOp<CPUDevice, float, float>"),
        ("_FusedConv2D", "FusedConv2DOp<CPUDevice, float>"),
        ("Softmax", "SoftmaxOp<CPUDevice, int32>"),
    )
    notes = retarget_notes(result)
    assert ("1 kernel class name(s) of the installed TensorFlow are spelled differently in the tree and were "
            "replaced by the tree's, e.g. MatMul: BatchMatMulOp<CPUDevice, float, float, float, true> -> "
            "MatMulOp<CPUDevice, float, false >") in notes
    assert ("3 kernel class(es) of the installed TensorFlow were dropped: the tree registers no kernel for that "
            "op and dtype, e.g. FusedBatchNormV3: FusedBatchNormOp<CPUDevice, float, float>") in notes
    assert not any("differ in the tree" in note for note in notes)


def test_classes_the_tree_registers_are_neither_renamed_nor_dropped(index):
    result = retarget_ops_and_kernels([("Const", "ConstantOp"), ("Relu", "ReluOp<CPUDevice, float>")], FLOAT32, index)
    assert result.renamed_classes == () and result.dropped_classes == ()


@pytest.mark.parametrize("kernel_class, dtypes", [
    ("BatchMatMulOp<CPUDevice, float, float, float, true>", {"float"}),
    ("BinaryOp<CPUDevice, functor::add<Eigen::half>>", {"half"}),
    ("ReductionOp<CPUDevice, float, int64, Eigen::internal::MinReducer<float>>", {"float", "int64"}),
    ("BinaryOp<CPUDevice, functor::add<int32_t>>", {"int32"}),
    ("ConstantOp", set()),
])
def test_class_dtypes(kernel_class, dtypes):
    from tfbuild.tree.retarget import class_dtypes

    assert class_dtypes(kernel_class) == dtypes
