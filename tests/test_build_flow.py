"""``tfbuild build`` end to end: models -> header -> plan -> execution -> manifest.

The op-library flavour needs no TensorFlow tree, so it runs here for real: on this machine
(--local) and in the linux toolchain container (a Pi cross build). TensorFlow is the oracle: the
library it loads registers the ops the model uses and not the one it does not.

The real builds run the CLI in a subprocess, as a user would: analysing an op library's models
loads that library into TensorFlow, whose op registry is per process, so two builds of the same
ops in one process would see each other's registrations.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from android_dirs import make_ndk
from treegen import make_tf1_tree

from tfbuild.errors import ToolchainError
from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
from tfbuild.pipeline.run import run_build
from tfbuild.resources import examples_dir

EXAMPLE = examples_dir() / "custom_ops"
SOURCES = tuple(str(path) for path in sorted(EXAMPLE.glob("*.cc")))
MODEL = str(EXAMPLE / "model.pbtxt")
USED_OP, UNUSED_OP = "ExampleScale", "ExampleSquare"  # the model uses the first, not the second

PROBE = """
import sys
import tensorflow as tf
from tensorflow.python.framework import op_def_registry
tf.load_op_library(sys.argv[1])
print(op_def_registry.get(sys.argv[2]) is not None, op_def_registry.get(sys.argv[3]) is not None)
"""


def tfbuild(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True)


def tfbuild_to_file(path: Path, *argv: str) -> tuple[int, str, str]:
    """Run tfbuild with stdout going to ``path``, as a CI job's log does; return its exit code,
    what the file held the last time it was read while tfbuild still ran, and its stderr."""
    import time

    seen = ""
    errors = path.with_suffix(".stderr")
    with path.open("w") as stdout, errors.open("w") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "tfbuild", *argv], stdout=stdout, stderr=stderr)
        while process.poll() is None:
            text = path.read_text()
            if process.poll() is None:
                seen = text
            time.sleep(0.2)
    return process.returncode, seen, errors.read_text()


def op_args(*more: str) -> list[str]:
    args = ["--model", MODEL, "--jobs", "2", *more]
    for source in SOURCES:
        args += ["--op-source", source]
    return args


def options(tmp_path: Path, **cli):
    return resolve_build_options(
        Flags.named(jobs=2, output_dir=str(tmp_path / "out"), **cli), environ={}, cwd=tmp_path
    )


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_ios_build_is_refused_before_anything_runs(tmp_path):
    tree = make_tf1_tree(tmp_path / "tf1")
    build = options(tmp_path, target="ios-arm64", source=str(tree), models=[str(tmp_path / "model.pb")])
    with pytest.raises(ToolchainError, match="needs macOS") as caught:
        run_build(build)
    assert "--dry-run" in caught.value.hint
    assert not (tmp_path / "out").exists()


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_dry_run_prints_the_plan_and_builds_nothing(tmp_path, docker_stand_in):
    """The container plan, against the stand-in engine (every image there)."""
    ndk = make_ndk(tmp_path / "ndk", revision="21.4.7075529")
    out = tmp_path / "out"
    done = tfbuild("build", "--target", "android-arm64", "--ndk", str(ndk), "--dry-run", "--out", str(out), *op_args())
    assert done.returncode == 0, done.stderr[-2000:]
    text = done.stdout
    # First the plan this machine runs before the analysis: the op library's plain build for it.
    assert text.startswith("Before the analysis, on this machine: the op library's plain build")
    host = out / ".analysis" / "libtfbuild_ops_host.so"
    for source in SOURCES:
        name = Path(source).name
        assert f". compile {name}\n       in {Path.cwd()}: g++ -c {source} -o {out}/.analysis/objs/" in text
    assert f"mv -f {out}/.analysis/.libtfbuild_ops_host.so.partial {host}" in text
    assert "\nBuild plan: android-arm64 (ops-library)\n" in text
    assert "/opt/android-ndk/toolchains/llvm/prebuilt/linux-x86_64/bin/aarch64-linux-android21-clang++" in text
    assert f"/opt/android-ndk <- {ndk} (read-only)" in text
    assert not (out / "header").exists() and not (out / "manifest.json").exists()
    assert not list(out.glob("libtfbuild_ops*"))


@pytest.mark.tensorflow
def test_dry_run_json_has_typed_notes_and_the_plan_run_before_the_analysis(tmp_path):
    out = tmp_path / "out"
    done = tfbuild("build", "--target", "linux-x86_64", "--local", "--dry-run", "--json", "--out", str(out), *op_args())
    assert done.returncode == 0, done.stderr[-2000:]
    document = json.loads(done.stdout)
    assert document["notes"] and all(set(note) == {"kind", "text"} for note in document["notes"])
    header = next(note for note in document["notes"] if note["kind"] == "header")
    assert header["text"].startswith("registers ") and "header: registers " in done.stderr
    before = document["before_analysis"]
    assert [step["name"] for step in before["steps"]] == [
        *(f"compile {Path(source).name}" for source in SOURCES), "link libtfbuild_ops_host.so", "publish"]
    assert not out.exists()


@pytest.mark.tensorflow
def test_makefile_dry_run_lists_the_protobuf_rename_step(tmp_path):
    tree = make_tf1_tree(tmp_path / "tf1")
    model = tmp_path / "ops.json"
    model.write_text(json.dumps(OPS_LIST))
    build = options(tmp_path, target="linux-x86_64", source=str(tree), models=[str(model)], local=True,
                    dry_run=True, protobuf_rename=True)
    result = run_build(build)
    assert [step.name for step in result.plan.steps[:2]] == ["download dependencies", "rename protobuf to google::protobuf3"]
    assert (f"    2. rename protobuf to google::protobuf3\n       in {tree}: tfbuild protobuf rename --source {tree}\n"
            in result.text)
    assert "protobuf rename:" not in result.text  # once only a note; now a step of the plan
    assert not (tree / "tensorflow/contrib/makefile/downloads").exists()


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_local_op_library_build_keeps_what_the_model_uses(tmp_path):
    out = tmp_path / "out"
    done = tfbuild("build", "--target", "linux-x86_64", "--local", "--out", str(out), "--json", *op_args())
    assert done.returncode == 0, done.stderr[-2000:]
    library = out / "libtfbuild_ops.so"
    header = out / "header" / "ops_to_register.h"
    document = json.loads(done.stdout)  # --json: stdout is the document alone
    assert document["manifest_path"] == str(out / "manifest.json")
    assert document["manifest"] == json.loads((out / "manifest.json").read_text())
    # Not a terminal: the build's steps and their output stream on stderr, each line with its step.
    assert re.search(r"^==> \[1/\d+\] ", done.stderr, flags=re.MULTILINE)
    assert re.search(r"^<== \[1/\d+\] .*: done in \d+\.\ds$", done.stderr, flags=re.MULTILINE)
    assert re.search(r"^==> analyze the models\n<== analyze the models: done in \d+\.\ds$", done.stderr, flags=re.MULTILINE)
    assert USED_OP in header.read_text() and UNUSED_OP not in header.read_text()

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["target"] == "linux-x86_64" and manifest["flavour"] == "ops-library"
    assert manifest["toolchain"] is None  # --local
    assert manifest["artifacts"][0]["sha256"] == sha(library) and manifest["artifacts"][0]["size"] == library.stat().st_size
    assert manifest["header"]["sha256"] == sha(header)
    assert manifest["models"][0]["sha256"] == sha(Path(MODEL))
    import tensorflow as tf

    assert manifest["tensorflow"]["version"] == tf.__version__

    probe = subprocess.run(
        [sys.executable, "-c", PROBE, str(library), USED_OP, UNUSED_OP], capture_output=True, text=True
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.split()[-2:] == ["True", "False"]


def elf_machines(archive: Path, workdir: Path) -> set[int]:
    """e_machine of every object in an ar archive (40 = ARM), read from the ELF headers."""
    subprocess.run(["ar", "x", str(archive)], cwd=workdir, check=True)
    machines = set()
    for member in workdir.glob("*.o"):
        data = member.read_bytes()
        assert data[:4] == b"\x7fELF"
        machines.add(int.from_bytes(data[18:20], "little"))
    return machines


@pytest.mark.docker
@pytest.mark.tensorflow
@pytest.mark.compiler
def test_container_cross_build_for_the_pi(tmp_path):
    out = tmp_path / "out"
    done = tfbuild("build", "--target", "pi-armv7", "--out", str(out), *op_args())
    assert done.returncode == 0, done.stderr[-2000:]
    archive = out / "libtfbuild_ops.a"
    assert archive.stat().st_uid == os.getuid()  # the container ran as the calling user
    extracted = tmp_path / "members"
    extracted.mkdir()
    assert elf_machines(archive, extracted) == {40}  # EM_ARM
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["toolchain"]["image_tag"].startswith("tfbuild-toolchain:linux-")
    assert manifest["toolchain"]["image_id"].startswith("sha256:")
    assert manifest["artifacts"][0]["sha256"] == sha(archive)


OPS_LIST = [["Const", "ConstantOp"], ["Relu", "ReluOp<CPUDevice, float>"], ["Add", "BinaryOp<CPUDevice, functor::add<float>>"]]


@pytest.mark.tensorflow
@pytest.mark.compiler
@pytest.mark.parametrize("where", ["--local", pytest.param("--no-local", marks=pytest.mark.docker)])
def test_makefile_build_registers_only_the_selected_kernels(tmp_path, where):
    # The tree's protobuf and nsync scripts are stubs that leave empty archives where the real
    # ones install theirs, so the artifact list is collected as on a real tree.
    tree = make_tf1_tree(tmp_path / "tf1")
    model = tmp_path / "ops.json"
    model.write_text(json.dumps(OPS_LIST))
    out = tmp_path / "out"
    argv = ("build", "--target", "linux-x86_64", "--source", str(tree), "--model", str(model), where,
            "--out", str(out), "--jobs", "2", "--default-ops", "NoOp:NoOp")
    code, seen_while_running, err = tfbuild_to_file(tmp_path / "ci.log", *argv)
    assert code == 0, err[-3000:]
    # As a CI job sees it (stdout piped to a file): the steps and the compiler lines are in the
    # file while the build still runs, the Makefile step's object total before its first object.
    assert re.search(r"^==> \[\d+/\d+\] build TensorFlow", seen_while_running, re.M), seen_while_running[-2000:]
    assert re.search(r"^\[\d+/\d+\] \d+ objects to compile$", seen_while_running, re.M)
    assert re.search(r"^\[\d+/\d+\] .* -c \S+\.cc", seen_while_running, re.M)

    listing = subprocess.run([str(out / "benchmark")], capture_output=True, text=True, check=True).stdout
    kernels = {tuple(line.split("\t")[1:]) for line in listing.splitlines() if line.startswith("kernel\t")}
    cpu = {(op, cls) for op, device, cls in kernels if device == "CPU"}
    # AddV2 shares Add's class but is not in the app: register_kernel::Name drops it at run time.
    assert cpu == {("Const", "ConstantOp"), ("Relu", "ReluOp<CPUDevice, float>"), ("NoOp", "NoOp"),
                   ("Add", "BinaryOp<CPUDevice, functor::add<float>>")}
    manifest = json.loads((out / "manifest.json").read_text())
    assert {a["name"] for a in manifest["artifacts"]} == {"libtensorflow-core.a", "libprotobuf.a", "libnsync.a", "benchmark"}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True).stdout.strip()
    user = subprocess.run(["git", "rev-parse", "v1.13.0^{commit}"], cwd=tree, capture_output=True, text=True).stdout.strip()
    # The user's commit (the tree's tag), and tfbuild's work commit on top of it, checked out now.
    assert manifest["tensorflow"] == {**manifest["tensorflow"], "version": "1.13.0", "commit": user, "source": str(tree),
                                      "work_commit": head, "describe": "v1.13.0-0-g" + user[:7]}

    if where == "--no-local":  # compiled in the container, through the ccache volume
        assert "ccache gcc" in (out / "linux-x86_64.build.log").read_text()
        assert manifest["toolchain"]["image_tag"].startswith("tfbuild-toolchain:linux-")

    again = tfbuild(*argv)  # the first build left the tree's tracked files clean: a rebuild is allowed
    assert again.returncode == 0, again.stderr[-3000:]


def test_the_android_workspace_block_is_committed_on_the_work_branch(tmp_path):
    """A Bazel Android build's WORKSPACE block is an edit like the BUILD-file ones: committed on
    tfbuild's work branch, so the tree stays clean for the next build and reverts with them."""
    from android_dirs import make_sdk

    from tfbuild.pipeline.flavours import plan_build
    from tfbuild.pipeline.run import _commit_tree_changes, _tree_changes
    from tfbuild.tree.facts import read_tree_facts
    from tfbuild.tree.work_branch import WORK_BRANCH, checkout_state

    tree = make_tf1_tree(tmp_path / "tf1")
    build = options(
        tmp_path, target="android-arm64", flavour="bazel", source=str(tree),
        ndk=str(make_ndk(tmp_path / "ndk", revision="17.2.4988734")), sdk=str(make_sdk(tmp_path / "sdk")),
    )
    facts = read_tree_facts(tree)
    plan = plan_build(build, header_text="// header\n", tree=facts)
    _commit_tree_changes(_tree_changes(plan, facts, None))
    state = checkout_state(tree)
    assert state.branch == WORK_BRANCH and state.dirty_files == ()
    assert 'path = "/opt/android-sdk"' in (tree / "WORKSPACE").read_text()
    _commit_tree_changes(_tree_changes(plan_build(build, header_text="// header\n", tree=read_tree_facts(tree)), facts, None))
    log = subprocess.run(["git", "log", "--format=%s", WORK_BRANCH], cwd=tree, capture_output=True, text=True).stdout
    assert log.count("tfbuild: Android SDK/NDK repositories") == 1  # the second plan changed nothing


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_local_makefile_build_renames_protobuf_as_a_step_of_its_plan(tmp_path):
    """``--protobuf-rename`` on a real (stand-in) Makefile build: the rename runs as step 2,
    after the download script filled downloads/, and the build's notes say it was done."""
    tree = make_tf1_tree(tmp_path / "tf1")
    model = tmp_path / "ops.json"
    model.write_text(json.dumps(OPS_LIST))
    out = tmp_path / "out"
    done = tfbuild("build", "--target", "linux-x86_64", "--source", str(tree), "--model", str(model), "--local",
                   "--out", str(out), "--jobs", "2", "--default-ops", "NoOp:NoOp", "--protobuf-rename", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"^==> \[2/\d+\] rename protobuf to google::protobuf3$", done.stderr, re.M)
    assert re.search(r"^\[2/\d+\] move tensorflow/contrib/makefile/downloads/protobuf/src/google/protobuf -> ",
                     done.stderr, re.M)
    downloads = tree / "tensorflow/contrib/makefile/downloads/protobuf/src/google"
    assert (downloads / "protobuf3").is_dir() and not (downloads / "protobuf").exists()
    notes = json.loads(done.stdout)["notes"]
    changed = next(note["text"] for note in notes if note["kind"] == "source-tree")
    assert "renamed protobuf to google::protobuf3" in changed
