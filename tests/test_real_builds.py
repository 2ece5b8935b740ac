"""Real builds in the toolchain containers: the example custom-op library, selectively, for
linux-x86_64 (loaded into TensorFlow here and run), pi-armv7 and linux-aarch64 (cross-compiled
with Debian's compilers, checked with readelf/nm and run under qemu-user).

TensorFlow is the oracle: the header comes from ``tfbuild header`` on the example model with the
container-built plain library loaded, the selective library is loaded with
``tf.load_op_library`` in its own process and runs the model, and the qemu-run program's results
are compared with TensorFlow's for the same model. The cross-built archives are compiled against
the same TensorFlow wheel headers (32-bit ARM included: they compile).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from real_build_plans import (
    SRC,
    TOOLS_IMAGE_DIR,
    TREE_BAZEL_VERSION,
    app_header,
    ops_library_plan,
    prepare_tf1_tree,
    registered_kernels,
    run_in_toolchain,
    tree_plan,
)
from tfbuild.example import example_model, example_sources_dir
from tfbuild.executor import ExecutionResult, execute_plan
from tfbuild.header import parse_header
from toolchain_fixtures import linux_toolchain

pytestmark = [pytest.mark.docker, pytest.mark.tensorflow]

PROBE = Path(__file__).resolve().parent / "op_library_probe.py"
FUNCTOR_CHECK = Path(__file__).resolve().parent / "data" / "cross" / "functor_check.cc"
EXAMPLE_OPS = ("ExampleScale", "ExampleClip", "ExampleSquare", "ExampleCount")
X = [-2.0, -0.25, 0.5, 1.0, 4.0, 1.25]
N = [-2, 0, 5, 7]
REQUEST = {
    "ops": list(EXAMPLE_OPS),
    "feeds": {"x": {"dtype": "float32", "values": X}, "n": {"dtype": "int32", "values": N}},
    "fetches": ["clipped", "positives", "n_scaled"],
}
CROSS_TARGETS = {
    # target: (readelf, qemu, sysroot, ELF machine)
    "pi-armv7": ("arm-linux-gnueabihf-readelf", "qemu-arm", "/usr/arm-linux-gnueabihf", "ARM"),
    "linux-aarch64": ("aarch64-linux-gnu-readelf", "qemu-aarch64", "/usr/aarch64-linux-gnu", "AArch64"),
}


@dataclass(frozen=True)
class Builds:
    header: Path
    plain: ExecutionResult
    selective: dict[str, ExecutionResult]


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> Builds:
    """The plain x86-64 library, the header from it, and the selective library for every target."""
    linux_toolchain()
    root = tmp_path_factory.mktemp("real-ops")
    plain = execute_plan(ops_library_plan("linux-x86_64", root / "plain", header=None))
    header = root / "include" / "ops_to_register.h"
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "header", str(example_model()), "-o", str(header),
         "--op-library", str(plain.artifacts[0])],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    selective = {
        target: execute_plan(ops_library_plan(target, root / target, header=header))
        for target in ("linux-x86_64", *CROSS_TARGETS)
    }
    return Builds(header=header, plain=plain, selective=selective)


def _probe(library: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(PROBE), str(library), str(example_model()), json.dumps(REQUEST)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def tf_outputs(builds) -> dict:
    """What TensorFlow computes for the example model with the container-built selective library."""
    return _probe(builds.selective["linux-x86_64"].artifacts[0])["outputs"]


def _selected_classes(header: Path) -> set[str]:
    """The example's kernel classes the header keeps, spelled as nm -C prints them."""
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


# -- linux-x86_64: the library TensorFlow loads --------------------------------------------------
def test_selective_library_built_in_the_container_runs_the_model_in_tensorflow(builds, tf_outputs):
    report = _probe(builds.selective["linux-x86_64"].artifacts[0])
    kept = {op for op, registered in report["ops"].items() if registered}
    assert kept == {"ExampleScale", "ExampleClip", "ExampleCount"}  # ExampleSquare is unused
    assert tf_outputs["clipped"]["values"] == [-1.0, -0.5, 1.0, 2.0, 3.0, 2.5]
    assert tf_outputs["positives"]["values"] == 4
    assert tf_outputs["n_scaled"]["values"] == [-6, 0, 15, 21]


def test_container_builds_leave_user_owned_artifacts_and_a_log(builds):
    import os

    result = builds.selective["linux-x86_64"]
    assert result.image_id and result.image_id.startswith("sha256:")
    for artifact in result.artifacts:
        assert artifact.stat().st_uid == os.getuid()
    log = result.log_path.read_text()
    assert "==> [1/" in log and "-DSELECTIVE_REGISTRATION" in log


def test_selective_x86_objects_keep_only_the_selected_kernels(builds):
    plain_nm = run_in_toolchain(["nm", "-C", str(TOOLS_IMAGE_DIR / builds.plain.artifacts[0].name)],
                                builds.plain.artifacts[0].parent)
    selective = builds.selective["linux-x86_64"].artifacts[0]
    selective_nm = run_in_toolchain(["nm", "-C", str(TOOLS_IMAGE_DIR / selective.name)], selective.parent)
    selected = _selected_classes(builds.header)
    assert _compute_symbols(selective_nm) == selected
    assert _compute_symbols(plain_nm) > selected  # the plain build has the others


# -- cross targets: archives for the board, checked here ------------------------------------------
@pytest.mark.cross
@pytest.mark.parametrize("target", sorted(CROSS_TARGETS))
def test_cross_archive_is_for_the_target_and_keeps_only_selected_kernels(builds, target):
    readelf, _, _, machine = CROSS_TARGETS[target]
    archive = builds.selective[target].artifacts[0]
    assert archive.name.endswith(".a")
    where = archive.parent
    headers = run_in_toolchain([readelf, "-h", str(TOOLS_IMAGE_DIR / archive.name)], where)
    assert re.search(rf"Machine:\s+{machine}\b", headers), headers
    nm = run_in_toolchain(["nm", "-C", str(TOOLS_IMAGE_DIR / archive.name)], where)
    selected = _selected_classes(builds.header)
    assert selected and _compute_symbols(nm) == selected
    assert not any("ExampleSquareOp" in line for line in nm.splitlines() if "::Compute(" in line)


@pytest.mark.cross
def test_pi_archive_uses_vfpv4_and_neon_with_fma(builds):
    archive = builds.selective["pi-armv7"].artifacts[0]
    attributes = run_in_toolchain(
        ["arm-linux-gnueabihf-readelf", "-A", str(TOOLS_IMAGE_DIR / archive.name)], archive.parent
    )
    members = attributes.count("File Attributes")
    assert members == 2  # example_kernels.o and example_ops.o
    assert attributes.count("Tag_FP_arch: VFPv4") == members
    assert attributes.count("Tag_Advanced_SIMD_arch: NEONv1 with Fused-MAC") == members
    assert attributes.count("Tag_ABI_VFP_args: VFP registers") == members  # hard-float


@pytest.mark.cross
@pytest.mark.parametrize("target", sorted(CROSS_TARGETS))
def test_the_functors_cross_compiled_compute_what_tensorflow_computes(tmp_path, builds, tf_outputs, target):
    """The example's arithmetic, built with the target's compiler and flags, run under qemu-user."""
    _, qemu, sysroot, _ = CROSS_TARGETS[target]
    plan = ops_library_plan(target, tmp_path, header=None)
    compiler, cflags = plan_compiler(plan)
    (tmp_path / "functor_check.cc").write_bytes(FUNCTOR_CHECK.read_bytes())
    argv = ["2", "-1", "3", "0", "3", ",".join(map(str, X)), ",".join(map(str, N))]
    output = run_in_toolchain(
        [compiler, *cflags, "-I", str(SRC), str(TOOLS_IMAGE_DIR / "functor_check.cc"),
         "-o", str(TOOLS_IMAGE_DIR / "functor_check")],
        tmp_path,
    )
    assert (tmp_path / "functor_check").exists(), output
    ran = run_in_toolchain([qemu, "-L", sysroot, str(TOOLS_IMAGE_DIR / "functor_check"), *argv], tmp_path)
    lines = dict(line.split(" ", 1) for line in ran.strip().splitlines())
    assert [float(v) for v in lines["clipped"].split()] == tf_outputs["clipped"]["values"]
    assert int(lines["positives"]) == tf_outputs["positives"]["values"]
    assert [int(v) for v in lines["n_scaled"].split()] == tf_outputs["n_scaled"]["values"]


def plan_compiler(plan) -> tuple[str, list[str]]:
    """The compiler and target flags of an op-library plan's first compile step."""
    compile_step = next(step for step in plan.steps if step.name.startswith("compile "))
    argv = list(compile_step.argv)
    target_flags = [flag for flag in argv if flag.startswith(("-march", "-mfpu", "-mfloat-abi", "-mcpu"))]
    return argv[0], ["-O2", *target_flags]


# -- TensorFlow-shaped trees: the Bazel and Makefile flavours ---------------------------------------
@dataclass(frozen=True)
class TreeBuild:
    header: Path
    result: ExecutionResult
    plan: object


@pytest.fixture(scope="module")
def tree_builds(tmp_path_factory):
    """Builds of app A on two fresh TF 1.x test trees, one per flavour, with their own caches."""
    import uuid

    from tfbuild.docker_engine import docker_client
    from toolchain_fixtures import bazel_toolchain

    linux_toolchain()
    bazel_toolchain()
    root = tmp_path_factory.mktemp("real-trees")
    prefix = f"tfbuild-test-{uuid.uuid4().hex[:8]}"
    header = app_header("app_a", root / "header-a")
    builds = {}
    try:
        for flavour in ("bazel", "makefile"):
            tree = prepare_tf1_tree(root / f"tree-{flavour}", root / "android")
            plan = tree_plan("linux-x86_64", flavour, tree, "app_a", header, root / f"out-{flavour}", cache_prefix=prefix)
            builds[flavour] = TreeBuild(header, execute_plan(plan), plan)
        yield builds
    finally:
        client = docker_client()
        for volume in client.volumes.list(filters={"name": prefix}):
            volume.remove(force=True)


def _expected(header: Path) -> tuple[set[str], set[str]]:
    """Kernel classes (spaces dropped) and ops the header selects."""
    contents = parse_header(header)
    return {"".join(k.split()) for k in contents.kernel_classes}, set(contents.ops)


@pytest.mark.bazel
def test_bazel_in_the_container_builds_the_tree_selectively(tree_builds):
    build = tree_builds["bazel"]
    assert build.plan.image.build_args["BAZEL_VERSION"] == TREE_BAZEL_VERSION
    bazel_step = next(step for step in build.plan.steps if step.argv[0] == "bazel")
    assert "--copt=-DSELECTIVE_REGISTRATION" in bazel_step.argv
    log = build.result.log_path.read_text()
    assert "Build completed successfully" in log
    kernels, ops = registered_kernels(build.result.artifacts[0])
    classes, selected_ops = _expected(build.header)
    assert {cls for _, cls in kernels} == classes
    assert ("Relu", "ReluOp<CPUDevice,float>") in kernels
    assert not any(op in ("Softmax", "Mul", "Sub", "Conv2D") for op, _ in kernels)
    assert ops == selected_ops


@pytest.mark.bazel
def test_bazel_parsed_the_workspace_with_tfbuilds_android_block(tree_builds):
    tree = tree_builds["bazel"].plan.mounts[0].source
    workspace = (tree / "WORKSPACE").read_text()
    assert "android_sdk_repository(" in workspace and 'path = "/opt/android-sdk"' in workspace
    assert tree_builds["bazel"].result.artifacts[0].stat().st_size > 0


def test_the_makefile_flavour_builds_the_tree_selectively_with_ccache(tree_builds):
    build = tree_builds["makefile"]
    log = build.result.log_path.read_text()
    assert "download dependencies: skipped" in log  # downloads/ was pre-filled
    assert "ccache g" in log and "-DSELECTIVE_REGISTRATION" in log
    names = {artifact.name for artifact in build.result.artifacts}
    assert {"libtensorflow-core.a", "benchmark"} <= names
    benchmark = next(a for a in build.result.artifacts if a.name == "benchmark")
    kernels, ops = registered_kernels(benchmark)
    classes, selected_ops = _expected(build.header)
    assert {cls for _, cls in kernels} == classes
    assert ops == selected_ops
