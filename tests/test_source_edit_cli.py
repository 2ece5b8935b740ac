"""The user's session, through the real CLI: preflight fails, edit, preflight passes, revert."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import treegen

MIN_CLASS = "ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"


def tfbuild(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env_args = [sys.executable, "-m", "tfbuild", *map(str, args)]
    return subprocess.run(env_args, capture_output=True, text=True, cwd=cwd)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def files_of(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("flavour", ["makefile", "bazel"])
def test_check_fails_edit_fixes_it_twice_is_a_no_op_and_revert_restores(tmp_path, flavour, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")  # as on CI: no git identity
    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path / "cache"))  # kernel-index cache
    tree = treegen.make_tf1_tree(tmp_path / "tensorflow")
    model = tmp_path / "model_ops.json"
    model.write_text(json.dumps([["Min", MIN_CLASS], ["Const", "ConstantOp"]]))
    original = files_of(tree)
    common = ["--model", model, "--source", tree]

    failing = tfbuild("check", "--flavour", flavour, *common)
    assert failing.returncode == 5, failing.stderr
    assert "No OpKernel was registered to support Op 'Min' with these attrs" in failing.stdout
    error_lines = failing.stderr.strip().splitlines()
    assert len(error_lines) == 1 and error_lines[0].startswith("error:")
    assert f"run: tfbuild edit {flavour} --model {model}" in error_lines[0]

    dry = tfbuild("edit", flavour, *common, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "reduction_ops_min.cc" in dry.stdout and "dry run" in dry.stdout
    assert files_of(tree) == original

    edited = tfbuild("edit", flavour, *common)
    assert edited.returncode == 0, edited.stderr
    assert "committed" in edited.stdout
    head = git(tree, "rev-parse", "HEAD")

    passing = tfbuild("check", "--flavour", flavour, *common)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "0 gap(s)" in passing.stdout

    again = tfbuild("edit", flavour, *common)
    assert again.returncode == 0 and "no change" in again.stdout
    assert git(tree, "rev-parse", "HEAD") == head

    reverted = tfbuild("edit", flavour, "--revert", "--source", tree)
    assert reverted.returncode == 0, reverted.stderr
    assert files_of(tree) == original
    assert git(tree, "rev-parse", "--abbrev-ref", "HEAD") == "master"


def test_editing_a_dirty_tree_exits_4_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path / "cache"))
    tree = treegen.make_tf1_tree(tmp_path / "tensorflow", tags=False)
    (tree / treegen.OP_FILES_TXT).write_text("tensorflow/core/kernels/relu_op.cc\n")
    model = tmp_path / "model_ops.json"
    model.write_text(json.dumps([["Min", MIN_CLASS]]))
    result = tfbuild("edit", "makefile", "--model", model, "--source", tree)
    assert result.returncode == 4
    assert len(result.stderr.strip().splitlines()) == 1 and "uncommitted changes" in result.stderr


def test_protobuf_rename_dry_run_through_the_cli(tmp_path):
    from test_protobuf_rename import make_tree  # the Makefile-tree fixture of the rename tests

    tree = make_tree(tmp_path / "tree")
    before = files_of(tree)
    result = tfbuild("protobuf", "rename", "--source", tree, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "move tensorflow/contrib/makefile/downloads/protobuf/src/google/protobuf" in result.stdout
    assert files_of(tree) == before
    done = tfbuild("protobuf", "rename", "--source", tree)
    assert done.returncode == 0 and "renamed" in done.stdout
    assert "nothing to do" in tfbuild("protobuf", "rename", "--source", tree).stdout
