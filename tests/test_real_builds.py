"""Real builds in the toolchain containers, run as a user runs them (``tfbuild build``).

1. The example custom-op library, selectively, for linux-x86_64 (loaded into TensorFlow here and
   run), pi-armv7 and linux-aarch64 (Debian's cross compilers; checked with readelf/nm, and the
   example's arithmetic run under qemu-user). The cross archives compile against the same
   TensorFlow wheel headers: they do compile for 32-bit ARM hard-float.
2. A TF 1.x-shaped tree (tests/treegen.py) with the contrib Makefile flavour (ccache in a volume,
   downloads/ pre-filled) and with Bazel 0.26.1 in the bazel toolchain, both through
   ``tfbuild build``.

TensorFlow is the oracle: the header comes from tfbuild's analysis of the model, the selective
library runs the model in TensorFlow, and the qemu-run results must equal TensorFlow's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from op_library_probe import EXAMPLE_REQUEST as REQUEST
from op_library_probe import N, X
from real_build_plans import (
    APPS_DIR,
    SRC,
    TOOLS_IMAGE_DIR,
    TREE_BAZEL_VERSION,
    library_registry,
    prepare_tf1_tree,
    registered_kernels,
    run_in_toolchain,
)
from toolchain_fixtures import TREE_SUITE, bazel_toolchain, linux_toolchain

from tfbuild.model.header import parse_header
from tfbuild.pipeline.example import example_model, example_sources
from tfbuild.pipeline.report.objects import object_kind
from tfbuild.toolchain.engine import docker_client
from tfbuild.toolchain.targets import Platform, get_target, load_targets

pytestmark = [pytest.mark.docker, pytest.mark.tensorflow]

PROBE = Path(__file__).resolve().parent / "op_library_probe.py"
FUNCTOR_CHECK = Path(__file__).resolve().parent / "data" / "cross" / "functor_check.cc"
CROSS_TARGETS = {
    name: profile.architecture for name, profile in load_targets().items()
    if profile.platform is Platform.LINUX and profile.launcher and profile.ops_library is not None
    and profile.ops_library.dockerfile is not None
}
"""The Linux targets built in the toolchain container with a cross compiler and run under qemu-user."""


@dataclass(frozen=True)
class CliBuild:
    out: Path
    stdout: str
    manifest: dict
    tree: Path | None = None

    @property
    def header(self) -> Path:
        return self.out / "header" / "ops_to_register.h"

    def artifact(self, name: str) -> Path:
        path = self.out / name
        assert path.is_file(), f"{name} not in {sorted(p.name for p in self.out.iterdir())}"
        return path


def tfbuild_build(out: Path, *args: str, cwd: Path | None = None) -> CliBuild:
    """``tfbuild build ... --out OUT`` in its own process, as a user runs it."""
    argv = [sys.executable, "-m", "tfbuild", "build", *args, "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd or out.parent)
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"
    return CliBuild(out, done.stdout, json.loads((out / "manifest.json").read_text()))


# -- 1. the example op library -------------------------------------------------------------------
@pytest.fixture(scope="module")
def op_builds(tmp_path_factory) -> dict[str, CliBuild]:
    linux_toolchain()
    root = tmp_path_factory.mktemp("real-ops")
    sources = [arg for source in example_sources() for arg in ("--op-source", str(source))]
    return {
        target: tfbuild_build(
            root / target, "--target", target, "--flavour", "ops-library",
            "--model", str(example_model()), "--ops-library-name", "example_ops", *sources,
        )
        for target in ("linux-x86_64", *CROSS_TARGETS)
    }


def _probe(library: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(PROBE), str(library), str(example_model()), json.dumps(REQUEST)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def tf_outputs(op_builds) -> dict:
    """What TensorFlow computes for the example model with the container-built selective library."""
    return _probe(op_builds["linux-x86_64"].artifact("libexample_ops.so"))["outputs"]


def _selected_classes(header: Path) -> set[str]:
    """The example's kernel classes the header keeps, spelled as ``nm -C`` prints them."""
    spelled = {
        re.sub(r"\s+", "", kernel).replace("CPUDevice", "Eigen::ThreadPoolDevice").replace("int32", "int")
        for kernel in parse_header(header).kernel_classes
    }
    return {name for name in spelled if name.startswith("Example")}


def _compute_symbols(nm_output: str) -> set[str]:
    """Example kernel classes whose Compute method is defined in an object or archive."""
    found = set()
    for line in nm_output.splitlines():
        match = re.search(r" [TtWw] tensorflow::(Example\w+(?:<[^()]*>)?)::Compute\(", line)
        if match:
            found.add(re.sub(r"\s+", "", match.group(1)))
    return found


def _nm(library: Path) -> str:
    return run_in_toolchain(["nm", "-C", str(TOOLS_IMAGE_DIR / library.name)], library.parent)


def test_the_selective_library_built_in_the_container_runs_the_model_in_tensorflow(op_builds, tf_outputs):
    build = op_builds["linux-x86_64"]
    from tfbuild.toolchain.engine import docker_client as client

    toolchain = build.manifest["toolchain"]  # the image the build really ran in
    assert toolchain["image_id"] == client().images.get(toolchain["image_tag"]).id
    report = _probe(build.artifact("libexample_ops.so"))
    kept = {op for op, registered in report["ops"].items() if registered}
    assert kept == {"ExampleScale", "ExampleClip", "ExampleCount"}  # ExampleSquare is unused
    assert tf_outputs["clipped"]["values"] == [-1.0, -0.5, 1.0, 2.0, 3.0, 2.5]
    assert tf_outputs["positives"]["values"] == 4
    assert tf_outputs["n_scaled"]["values"] == [-6, 0, 15, 21]


def test_container_builds_leave_user_owned_artifacts_and_a_log(op_builds):
    build = op_builds["linux-x86_64"]
    assert build.artifact("libexample_ops.so").stat().st_uid == os.getuid()
    log = (build.out / "linux-x86_64.build.log").read_text()
    assert "==> [1/" in log and "-DSELECTIVE_REGISTRATION" in log and "/opt/tensorflow/include" in log


def test_only_the_selected_kernels_are_compiled_in(op_builds):
    build = op_builds["linux-x86_64"]
    selected = _selected_classes(build.header)
    plain = build.out / ".analysis" / "libexample_ops_host.so"  # tfbuild's plain build, for analysis
    assert _compute_symbols(_nm(build.artifact("libexample_ops.so"))) == selected
    assert _compute_symbols(_nm(plain)) > selected


@pytest.mark.cross
@pytest.mark.parametrize("target", sorted(CROSS_TARGETS))
def test_cross_archive_is_for_the_target_and_keeps_only_selected_kernels(op_builds, target):
    architecture = CROSS_TARGETS[target]
    archive = op_builds[target].artifact("libexample_ops.a")
    headers = run_in_toolchain([f"{architecture.tool_prefix}readelf", "-h", str(TOOLS_IMAGE_DIR / archive.name)],
                               archive.parent)
    assert re.search(r"Class:\s+ELF(32|64)\b", headers).group(1) == str(architecture.bits), headers
    assert object_kind(archive).machine == architecture.elf_machine
    nm = _nm(archive)
    selected = _selected_classes(op_builds[target].header)
    assert selected and _compute_symbols(nm) == selected
    assert not any("ExampleSquareOp" in line for line in nm.splitlines() if "::Compute(" in line)


@pytest.mark.cross
def test_pi_archive_uses_vfpv4_and_neon_with_fma(op_builds):
    archive = op_builds["pi-armv7"].artifact("libexample_ops.a")
    attributes = run_in_toolchain(
        ["arm-linux-gnueabihf-readelf", "-A", str(TOOLS_IMAGE_DIR / archive.name)], archive.parent
    )
    members = attributes.count("File Attributes")
    assert members == len(example_sources())
    assert attributes.count("Tag_FP_arch: VFPv4") == members
    assert attributes.count("Tag_Advanced_SIMD_arch: NEONv1 with Fused-MAC") == members
    assert attributes.count("Tag_ABI_VFP_args: VFP registers") == members  # hard-float


@pytest.mark.cross
@pytest.mark.parametrize("target", sorted(CROSS_TARGETS))
def test_the_functors_cross_compiled_compute_what_tensorflow_computes(tmp_path, tf_outputs, target):
    """The example's arithmetic, built with the target's compiler and flags (its profile), run
    under qemu-user in the toolchain container."""
    launcher = get_target(target).launcher
    profile = get_target(target).ops_library
    (tmp_path / "functor_check.cc").write_bytes(FUNCTOR_CHECK.read_bytes())
    binary = str(TOOLS_IMAGE_DIR / "functor_check")
    run_in_toolchain(
        [profile.compiler, "-O2", *profile.cflags, "-I", str(SRC),
         str(TOOLS_IMAGE_DIR / "functor_check.cc"), "-o", binary],
        tmp_path,
    )
    argv = ["2", "-1", "3", "0", "3", ",".join(map(str, X)), ",".join(map(str, N))]
    ran = run_in_toolchain([*launcher, binary, *argv], tmp_path)
    lines = dict(line.split(" ", 1) for line in ran.strip().splitlines())
    assert [float(v) for v in lines["clipped"].split()] == tf_outputs["clipped"]["values"]
    assert int(lines["positives"]) == tf_outputs["positives"]["values"]
    assert [int(v) for v in lines["n_scaled"].split()] == tf_outputs["n_scaled"]["values"]


# -- 2. TensorFlow-shaped trees: the Makefile and Bazel flavours -------------------------------------
@pytest.fixture(scope="module")
def cache_prefix():
    prefix = f"tfbuild-test-{uuid.uuid4().hex[:8]}"
    yield prefix
    for volume in docker_client().volumes.list(filters={"name": prefix}):
        volume.remove(force=True)


@pytest.fixture(scope="module")
def makefile_build(tmp_path_factory, cache_prefix) -> CliBuild:
    linux_toolchain(TREE_SUITE)
    root = tmp_path_factory.mktemp("real-makefile")
    tree = prepare_tf1_tree(root / "tree", root / "android")
    return tfbuild_build(
        root / "out", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree),
        "--model", str(APPS_DIR / "app_a.json"), "--cache-prefix", cache_prefix,
    )


@pytest.fixture(scope="module")
def bazel_build(tmp_path_factory, cache_prefix) -> CliBuild:
    """``tfbuild build --flavour bazel`` on a tree pinned to Bazel 0.26.1 (.bazelversion)."""
    bazel_toolchain()
    root = tmp_path_factory.mktemp("real-bazel")
    tree = prepare_tf1_tree(root / "tree", root / "android")
    build = tfbuild_build(
        root / "out", "--target", "linux-x86_64", "--flavour", "bazel", "--source", str(tree),
        "--model", str(APPS_DIR / "app_a.json"), "--cache-prefix", cache_prefix,
    )
    return dataclasses.replace(build, tree=tree)


@pytest.fixture(scope="module")
def tf2_makefile_build(tmp_path_factory, cache_prefix) -> CliBuild:
    """TF 2.0.0 through its contrib Makefile (the tf2-makefile tree), as the real v2.0.0 tree was
    built: linux-x86_64 in the container, ``small``, its downloads made by its own script there."""
    from treegen import make_tf2_makefile_tree

    linux_toolchain(TREE_SUITE)
    root = tmp_path_factory.mktemp("real-tf2-makefile")
    tree = make_tf2_makefile_tree(root / "tree")
    build = tfbuild_build(
        root / "out", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree),
        "--model", str(APPS_DIR / "app_a.json"), "--cache-prefix", cache_prefix, "--size-profile", "small",
    )
    return dataclasses.replace(build, tree=tree)


def _expected(header: Path) -> tuple[set[str], set[str]]:
    """Kernel classes (spaces dropped) and ops the header selects."""
    contents = parse_header(header)
    return {"".join(k.split()) for k in contents.kernel_classes}, set(contents.ops)


def test_the_makefile_flavour_builds_the_tree_selectively_with_ccache(makefile_build):
    log = (makefile_build.out / "linux-x86_64.build.log").read_text()
    assert "download dependencies: skipped" in log  # downloads/ was pre-filled
    assert "ccache g" in log and "-DSELECTIVE_REGISTRATION" in log
    makefile_build.artifact("libtensorflow-core.a")
    kernels, ops = registered_kernels(makefile_build.artifact("benchmark"))
    classes, selected_ops = _expected(makefile_build.header)
    assert {cls for _, cls in kernels} == classes
    assert ("Relu", "ReluOp<CPUDevice,float>") in kernels
    assert not any(op in ("Softmax", "Mul", "Sub", "Conv2D") for op, _ in kernels)
    assert ops == selected_ops


@pytest.mark.bazel
def test_bazel_in_the_container_builds_the_tree_selectively(bazel_build):
    toolchain = bazel_build.manifest["toolchain"]
    assert toolchain["image_tag"].startswith("tfbuild-toolchain:bazel-")
    assert toolchain["build_args"]["BAZEL_VERSION"] == TREE_BAZEL_VERSION  # the tree's .bazelversion
    log = (bazel_build.out / "linux-x86_64.build.log").read_text()
    assert "--copt=-DSELECTIVE_REGISTRATION" in log
    assert "Build completed successfully" in log
    kernels, ops = library_registry(bazel_build.artifact("libtensorflow_cc.so"))
    classes, selected_ops = _expected(bazel_build.header)
    assert {cls for _, cls in kernels} == classes
    assert ("Relu", "ReluOp<CPUDevice,float>") in kernels
    assert not any(op in ("Softmax", "Mul", "Sub", "Conv2D") for op, _ in kernels)
    assert ops == selected_ops


@pytest.mark.bazel
def test_bazel_parsed_the_workspace_with_tfbuilds_android_block(bazel_build):
    workspace = (bazel_build.tree / "WORKSPACE").read_text()
    assert "android_sdk_repository(" in workspace and 'path = "/opt/android-sdk"' in workspace
    assert "# BEGIN tfbuild android repositories" in workspace
    assert bazel_build.artifact("libtensorflow_cc.so").stat().st_size > 0  # the build that read it succeeded


def test_the_tf2_makefile_tree_builds_in_the_container_with_its_fixups(tf2_makefile_build):
    """The fix-ups of [1.4, 2.1) that a linux build takes run as named, logged steps (the absl
    edits find the stand-in's absl without that code and say so), the gmock one is left out
    (protobuf 310ba5ee downloads none), both protos compile (test_log.proto's wrappers import
    included), and the benchmark registers exactly the header's kernels."""
    log = (tf2_makefile_build.out / "linux-x86_64.build.log").read_text()
    assert "fix-up nsync-without-werror: " in log and "protobuf-without-gmock" not in log
    for edit in ("absl-sigstksz-glibc234", "absl-graphcycles-include-limits"):
        assert f"fix-up: {edit}" in log, edit
    assert tf2_makefile_build.manifest["tensorflow"]["version"] == "2.0.0"
    generated = tf2_makefile_build.tree / "tensorflow/contrib/makefile/gen/proto/tensorflow/core/util/test_log.pb.cc"
    assert generated.is_file()
    kernels, ops = registered_kernels(tf2_makefile_build.artifact("benchmark"))
    classes, selected_ops = _expected(tf2_makefile_build.header)
    assert {cls for _, cls in kernels} == classes and ops == selected_ops
