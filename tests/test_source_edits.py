"""Source edits on generated TensorFlow-shaped git checkouts: plan, apply, idempotence, revert."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import treegen

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.tree.edits import EditRequest, compiled_files, run_edit, run_revert
from tfbuild.tree.work_branch import WORK_BRANCH

MIN_CLASS = "ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"
MIN_FILE = f"{treegen.KERNELS_DIR}/reduction_ops_min.cc"


@pytest.fixture
def min_model(tmp_path):
    """A JSON ops list (TF's ops_list format) needing Min, which no build list compiles yet."""
    path = tmp_path / "min_ops.json"
    path.write_text(json.dumps([["Min", MIN_CLASS], ["Const", "ConstantOp"]]))
    return path


@pytest.fixture
def no_git_identity(monkeypatch, tmp_path):
    """Like a CI runner: no user.name/user.email anywhere."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def worktree_digest(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_makefile_edit_adds_the_kernel_file_and_commits_on_the_work_branch(tf1_tree, min_model, no_git_identity):
    before = (tf1_tree / treegen.OP_FILES_TXT).read_text()
    outcome = run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))
    assert outcome.plan.edits[0].added == (MIN_FILE,)
    assert outcome.plan.diff().count("\n+tensorflow/") == 1
    after = (tf1_tree / treegen.OP_FILES_TXT).read_text()
    assert after == before + MIN_FILE + "\n"  # the test tree's list is unsorted: appended
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    assert git(tf1_tree, "log", "-1", "--format=%an <%ae>|%cn") == "tfbuild <tfbuild@localhost>|tfbuild"
    assert "Tfbuild-Base-Branch: master" in git(tf1_tree, "log", "-1", "--format=%B")
    assert git(tf1_tree, "status", "--porcelain") == ""
    assert MIN_FILE in compiled_files(tf1_tree, "makefile")


def test_second_edit_changes_nothing_and_makes_no_commit(tf1_tree, min_model, no_git_identity):
    request = EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,))
    first = run_edit(request)
    head = git(tf1_tree, "rev-parse", "HEAD")
    second = run_edit(request)
    assert first.commit is not None
    assert not second.plan.changed and second.commit is None
    assert git(tf1_tree, "rev-parse", "HEAD") == head


def test_revert_restores_the_original_branch_and_a_byte_identical_tree(tf1_tree, min_model, no_git_identity):
    original = worktree_digest(tf1_tree)
    original_head = git(tf1_tree, "rev-parse", "HEAD")
    run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))
    run_edit(EditRequest(source=tf1_tree, flavour="bazel", models=(min_model,)))
    assert worktree_digest(tf1_tree) != original

    result = run_revert(tf1_tree)
    assert result.reverted and result.removed_commits == 2 and result.restored == "master"
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == "master"
    assert git(tf1_tree, "rev-parse", "HEAD") == original_head
    assert WORK_BRANCH not in git(tf1_tree, "branch", "--list")
    assert worktree_digest(tf1_tree) == original
    assert not run_revert(tf1_tree).reverted  # reverting twice is harmless


def test_revert_from_a_detached_head_goes_back_to_that_commit(tf1_tree, min_model, no_git_identity):
    git(tf1_tree, "checkout", "-q", "v1.12.0")
    start = git(tf1_tree, "rev-parse", "HEAD")
    run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))
    result = run_revert(tf1_tree)
    assert result.restored == start
    assert git(tf1_tree, "rev-parse", "HEAD") == start


def test_bazel_edit_of_android_filegroups_stays_parsable_and_is_compiled(tf1_tree, min_model, no_git_identity):
    outcome = run_edit(EditRequest(source=tf1_tree, flavour="bazel", models=(min_model,)))
    assert outcome.plan.edits[0].path == treegen.KERNELS_BUILD
    assert "reduction_ops_min.cc" in outcome.plan.edits[0].added
    text = (tf1_tree / treegen.KERNELS_BUILD).read_text()
    ast.parse(text)
    assert MIN_FILE in compiled_files(tf1_tree, "bazel")
    diff = outcome.plan.diff().splitlines()
    assert [line for line in diff if line.startswith("-") and not line.startswith("---")] == []


def test_bazel_edit_of_portable_filegroups(tf2_tree, min_model, no_git_identity):
    outcome = run_edit(EditRequest(source=tf2_tree, flavour="bazel", models=(min_model,)))
    assert "portable_extended_ops" in (tf2_tree / treegen.KERNELS_BUILD).read_text()
    assert MIN_FILE in compiled_files(tf2_tree, "bazel")
    assert outcome.commit is not None


def test_dry_run_shows_the_diff_and_writes_nothing_even_on_a_dirty_tree(tf1_tree, min_model):
    (tf1_tree / treegen.KERNELS_DIR / "relu_op.cc").write_text("// local change\n")
    before = worktree_digest(tf1_tree)
    outcome = run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,), dry_run=True))
    assert f"+{MIN_FILE}" in outcome.plan.diff() and outcome.commit is None
    assert worktree_digest(tf1_tree) == before
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == "master"


def test_a_dirty_tree_is_refused_with_a_hint(tf1_tree, min_model):
    (tf1_tree / treegen.OP_FILES_TXT).write_text("tensorflow/core/kernels/relu_op.cc\n")
    with pytest.raises(SourceTreeError) as caught:
        run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))
    assert "tf_op_files.txt" in caught.value.message and "commit or stash" in caught.value.hint


def test_makefile_flavour_on_a_tree_without_the_makefile_is_refused(tf2_tree, min_model):
    with pytest.raises(SourceTreeError, match="tf_op_files.txt"):
        run_edit(EditRequest(source=tf2_tree, flavour="makefile", models=(min_model,)))


def test_a_directory_that_is_not_a_git_checkout_is_refused(tf1_tree, min_model):
    shutil.rmtree(tf1_tree / ".git")
    with pytest.raises(SourceTreeError, match="not a git checkout"):
        run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))


def test_a_stale_work_branch_that_is_not_checked_out_is_refused(tf1_tree, min_model, no_git_identity):
    git(tf1_tree, "branch", WORK_BRANCH)
    with pytest.raises(SourceTreeError) as caught:
        run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))
    assert "git branch -D" in caught.value.hint


def test_missing_op_definition_file_is_added_too(tf1_tree, min_model, no_git_identity):
    lines = (tf1_tree / treegen.OP_FILES_TXT).read_text().splitlines(keepends=True)
    (tf1_tree / treegen.OP_FILES_TXT).write_text("".join(line for line in lines if "ops/math_ops.cc" not in line))
    git(tf1_tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "drop math ops")
    outcome = run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,), dry_run=True))
    assert set(outcome.plan.edits[0].added) == {MIN_FILE, "tensorflow/core/ops/math_ops.cc"}


def test_header_input_selects_the_files_of_its_classes(tf1_tree, tmp_path):
    from tfbuild.model.analysis import Analysis, OpRequirement
    from tfbuild.model.header import write_header

    header = write_header(
        Analysis(models=(), ops=(OpRequirement("Min", (MIN_CLASS,), ("float",), 1, ("m",)),), problems=()),
        tmp_path / "ops_to_register.h",
    )
    outcome = run_edit(EditRequest(source=tf1_tree, flavour="bazel", header=header, dry_run=True))
    assert outcome.plan.edits[0].added == ("reduction_ops_min.cc",)


def test_exactly_one_of_header_or_models(tf1_tree, min_model, tmp_path):
    with pytest.raises(ConfigError):
        run_edit(EditRequest(source=tf1_tree, flavour="makefile", dry_run=True))
    with pytest.raises(ConfigError):
        run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,), header=tmp_path / "h", dry_run=True))
    with pytest.raises(ConfigError, match="flavour"):
        run_edit(EditRequest(source=tf1_tree, flavour="cmake", models=(min_model,)))


def test_a_commit_git_refuses_is_one_error_and_changes_nothing(tf1_tree, min_model, no_git_identity):
    """A checkout with a missing object (a partial mirror, a broken clone) cannot take a commit;
    tfbuild says so in git's words, as a source-tree error, and leaves the tree as it was."""
    # Beside the edited list, so git must check the object when it writes that directory's tree.
    blob = git(tf1_tree, "rev-parse", "HEAD:tensorflow/contrib/makefile/Makefile")
    git_dir = Path(git(tf1_tree, "rev-parse", "--absolute-git-dir"))
    (git_dir / "objects" / blob[:2] / blob[2:]).unlink()
    before = worktree_digest(tf1_tree)
    head = git(tf1_tree, "rev-parse", "HEAD")
    with pytest.raises(SourceTreeError, match=f"git could not commit tfbuild's edits, so nothing was changed: .*{blob}"):
        run_edit(EditRequest(source=tf1_tree, flavour="makefile", models=(min_model,)))
    assert worktree_digest(tf1_tree) == before
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == "master"
    assert git(tf1_tree, "rev-parse", "HEAD") == head
    assert WORK_BRANCH not in git(tf1_tree, "branch", "--list")
