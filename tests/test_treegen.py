"""The generated TensorFlow-shaped trees: git layout, and (marked) that they really compile and
that selective registration really drops kernels, the behaviour the rest of tfbuild relies on."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import treegen
from tfbuild_testing import bazel_binary

HEADER = treegen.DATA_DIR / "headers" / "tf1_find_in_ops_to_register.h"

# What the header selects, as (op, class) pairs of CPU kernels. The class is checked while
# compiling, the op at run time by register_kernel::Name (TF 1.x since 0.12, and 2.x): kernels of
# ops missing from the header's op list are dropped even where they share a selected class
# (AddV2 shares Add's class, _HostSend/_HostRecv share SendOp/RecvOp).
TF1_SELECTED_CPU = {
    ("Add", "BinaryOp<CPUDevice, functor::add<float>>"),
    ("Const", "ConstantOp"),
    ("MatMul", "MatMulOp<CPUDevice, float, false >"),
    ("NoOp", "NoOp"),
    ("_Send", "SendOp"),
    ("_Recv", "RecvOp"),
}
# The tf2 tree registers MatMul as TF 2.x does (BatchMatMulOp<..., true>): a header with TF 1.x's
# class names drops it, the version-skew trap tfbuild's retargeting exists for.
TF2_SELECTED_CPU = TF1_SELECTED_CPU - {("MatMul", "MatMulOp<CPUDevice, float, false >")}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout.strip()


def _cpu_pairs(kernels) -> set[tuple[str, str]]:
    """The pairs a CPU build runs: CPU kernels and DEFAULT ones (the tf2 tree's NoOp)."""
    return {(op, cls) for op, device, cls in kernels if device in ("CPU", "DEFAULT")}


def test_tf1_tree_is_a_git_repo_with_two_tags(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf")
    assert _git(root, "tag", "--list").split() == ["v1.12.0", "v1.13.0"]
    assert _git(root, "rev-parse", "HEAD") == _git(root, "rev-parse", "v1.13.0^{commit}")
    assert _git(root, "status", "--porcelain") == ""
    version_h = (root / "tensorflow/core/public/version.h").read_text()
    assert "#define TF_MINOR_VERSION 13" in version_h
    old_version_h = _git(root, "show", "v1.12.0:tensorflow/core/public/version.h")
    assert "#define TF_MINOR_VERSION 12" in old_version_h
    added = _git(root, "diff", "--name-only", "v1.12.0", "v1.13.0").split()
    assert f"{treegen.KERNELS_DIR}/{treegen.TF1_NEXT_KERNEL_FILE}" in added
    assert "check_bazel_version('0.19.0', '0.20.0')" in (root / "configure.py").read_text()
    assert (root / treegen.MAKEFILE).is_file()
    assert not (root / ".bazelversion").exists()


def test_tf1_tree_without_tags_has_one_untagged_commit(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf", version=(1, 14, 0), tags=False)
    assert _git(root, "tag", "--list") == ""
    assert _git(root, "rev-list", "--count", "HEAD") == "1"
    assert "#define TF_MINOR_VERSION 14" in (root / "tensorflow/core/public/version.h").read_text()


def test_tf2_tree_layout(tmp_path):
    root = treegen.make_tf2_tree(tmp_path / "tf")
    assert _git(root, "tag", "--list") == "v2.6.0"
    assert (root / ".bazelversion").read_text().strip() == treegen.TF2_BAZEL_VERSION
    assert not (root / "tensorflow/contrib/makefile").exists()
    build = (root / treegen.KERNELS_BUILD).read_text()
    assert 'name = "portable_extended_ops_group1",' in build
    assert "android_" not in build


def test_op_files_list_only_existing_files_and_leave_some_out(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf")
    listed = (root / treegen.OP_FILES_TXT).read_text().splitlines()
    assert all((root / line).is_file() for line in listed)
    assert any(line.startswith("tensorflow/contrib/") for line in listed)
    build = (root / treegen.KERNELS_BUILD).read_text()
    for name in treegen.UNLISTED_KERNEL_FILES:
        assert (root / treegen.KERNELS_DIR / name).is_file()
        assert f"{treegen.KERNELS_DIR}/{name}" not in listed
        assert f'"{name}"' not in build


def test_large_tree_has_the_generated_kernels(tmp_path):
    root = treegen.make_large_tree(tmp_path / "tf", 40)
    generated = sorted((root / treegen.KERNELS_DIR).glob("generated_op_*.cc"))
    assert len(generated) == 40
    assert treegen.large_tree_op(7) in generated[7].read_text()
    assert _git(root, "status", "--porcelain") == ""


def _make(root: Path, *extra: str) -> None:
    subprocess.run(["make", "-j2", "-f", treegen.MAKEFILE, "TARGET=LINUX", *extra], cwd=root,
                   check=True, capture_output=True, text=True)


def _run_benchmark(binary: Path):
    listing = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    return treegen.parse_registry_listing(listing)


@pytest.mark.compiler
def test_tf1_makefile_builds_and_selective_registration_drops_kernels(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf")
    treegen.build_host_protobuf(root)
    _make(root, "OPTFLAGS=-O0")
    assert (root / treegen.MAKEFILE_LIB).is_file()
    kernels, ops = _run_benchmark(root / treegen.MAKEFILE_BENCHMARK)
    everything = _cpu_pairs(kernels)
    assert everything > TF1_SELECTED_CPU
    assert ("Relu", "ReluOp<CPUDevice, float>") in everything
    assert not any(op == "Min" for op, _ in everything)  # reduction_ops_min.cc is not listed
    assert {"Add", "MatMul", "CreateTreeEnsembleVariable"} <= ops
    listing = subprocess.run([str(root / treegen.MAKEFILE_BENCHMARK)], check=True, capture_output=True,
                             text=True).stdout
    assert "protobuf runtime: full\n" in listing  # benchmark_model.cc and env.cc, linked
    assert "DebugString() const override;" in (root / f"{treegen.GENERATED_PROTO}.h").read_text()  # protoc ran
    assert _git(root, "status", "--porcelain") == ""  # gen/ is ignored, as in TensorFlow

    shutil.copyfile(HEADER, root / treegen.OPS_TO_REGISTER_H)
    _make(root, "cleantarget")  # `clean` would remove gen/protobuf (protoc) too
    _make(root, "OPTFLAGS=-O0 -DSELECTIVE_REGISTRATION")
    kernels, ops = _run_benchmark(root / treegen.MAKEFILE_BENCHMARK)
    assert _cpu_pairs(kernels) == TF1_SELECTED_CPU
    assert ops == {"Add", "Const", "MatMul", "NoOp", "_Recv", "_Send"}


@pytest.mark.compiler
def test_tf2_standin_also_checks_the_op_name(tmp_path):
    root = treegen.make_tf2_tree(tmp_path / "tf")
    shutil.copyfile(HEADER, root / treegen.OPS_TO_REGISTER_H)
    sources = [
        *(str(p.relative_to(root)) for p in (root / "tensorflow/core/framework").glob("*.cc")),
        *(f"{treegen.KERNELS_DIR}/{name}" for name in (
            "cwise_op_add_1.cc", "constant_op.cc", "matmul_op.cc", "no_op.cc",
            "sendrecv_ops.cc", "relu_op.cc")),
        "tensorflow/tools/benchmark/benchmark_model_main.cc",
    ]
    binary = tmp_path / "benchmark"
    subprocess.run(["g++", "-std=c++11", "-O0", "-DSELECTIVE_REGISTRATION", "-I.", *sources,
                    "-o", str(binary)], cwd=root, check=True, capture_output=True, text=True)
    kernels, _ = _run_benchmark(binary)
    assert _cpu_pairs(kernels) == TF2_SELECTED_CPU
    assert ("NoOp", "DEFAULT", "NoOp") in kernels  # registered for DEVICE_DEFAULT, as since TF 1.15


@pytest.mark.bazel
def test_bazel_builds_the_mobile_filegroups_offline(tmp_path):
    root = treegen.make_tf2_tree(tmp_path / "tf")
    shutil.copyfile(HEADER, root / treegen.OPS_TO_REGISTER_H)
    subprocess.run(
        [bazel_binary(), f"--output_user_root={tmp_path / 'bazel-root'}", "build", "--jobs=2",
         "--copt=-DSELECTIVE_REGISTRATION", treegen.BAZEL_BENCHMARK_TARGET],
        cwd=root, check=True, capture_output=True, text=True, timeout=1800)
    try:
        kernels, _ = _run_benchmark(root / "bazel-bin/tensorflow/tools/benchmark/benchmark_model")
    finally:
        subprocess.run([bazel_binary(), f"--output_user_root={tmp_path / 'bazel-root'}",
                        "shutdown"], cwd=root, capture_output=True)
    assert _cpu_pairs(kernels) == TF2_SELECTED_CPU
