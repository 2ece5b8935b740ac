"""What a build says about the commit it was built from is the user's commit.

The generated TF 1.x tree's contrib Makefile writes ``tensorflow/core/util/version_info.cc`` with
the tree's ``tensorflow/tools/git/gen_git_source.sh`` on every make run, as TF 1.x's does
(``tf_git_version()`` returns ``git describe --long --tags``). A real ``--local`` build compiles
it into ``libtensorflow-core.a``: the string there names the user's commit, not tfbuild's work
commit on ``tfbuild/selective-edits``, and still does (and still resolves) after ``tfbuild edit
--revert`` has deleted the work commit. The manifest records both commits; ``tfbuild source``
reports the user's commit while a build holds the tree, and says so.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tfbuild_testing import local_makefile_build

from tfbuild.cli import main
from tfbuild.tree.git_version import DESCRIBE_GIT_DIR, VERSION_INFO
from tfbuild.tree.work_branch import LOCK_NAME, WORK_BRANCH, commit_files

MODEL_OPS = [["Const", "ConstantOp"], ["Relu", "ReluOp<CPUDevice, float>"]]


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model_ops.json"
    path.write_text(json.dumps(MODEL_OPS))
    return path




def test_the_dry_run_says_which_commit_the_library_will_name(tf1_tree, model, tmp_path, capsys):
    user = git(tf1_tree, "rev-parse", "HEAD")
    described = git(tf1_tree, "describe", "--long", "--tags", user)
    assert main(local_makefile_build(tf1_tree, model, tmp_path / "out", "--dry-run")) == 0
    text = capsys.readouterr().out
    assert (f"note: version: the library's tf_git_version() names {described}, your commit {user[:12]}") in text
    assert f"GIT_DIR={DESCRIBE_GIT_DIR} make -f tensorflow/contrib/makefile/Makefile" in text
    assert f"{DESCRIBE_GIT_DIR}/HEAD" in text  # written by the build, untracked, removed by the revert


@pytest.mark.compiler
def test_the_library_names_the_users_commit_after_the_build_and_after_the_revert(tf1_tree, model, tmp_path,
                                                                                 capsys):
    user = git(tf1_tree, "rev-parse", "HEAD")
    described = git(tf1_tree, "describe", "--long", "--tags", user)  # v1.13.0-0-g<user>
    out = tmp_path / "out"
    assert main(local_makefile_build(tf1_tree, model, out)) == 0, capsys.readouterr().err[-3000:]
    work = git(tf1_tree, "rev-parse", "HEAD")
    assert work != user and git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    work_described = git(tf1_tree, "describe", "--long", "--tags", work)
    # version_info.cc as compiled, and the string in the library.
    version_info = (tf1_tree / VERSION_INFO).read_text()
    assert f'tf_git_version() {{return "{described}";}}' in version_info
    library = (out / "libtensorflow-core.a").read_bytes()
    assert described.encode() in library and work_described.encode() not in library
    manifest = json.loads((out / "manifest.json").read_text())["tensorflow"]
    assert (manifest["commit"], manifest["work_commit"], manifest["describe"]) == (user, work, described)

    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0, capsys.readouterr().err
    assert git(tf1_tree, "rev-parse", "HEAD") == user
    assert git(tf1_tree, "for-each-ref", "--contains", work) == ""  # no branch or tag holds the work commit
    assert not (tf1_tree / DESCRIBE_GIT_DIR).exists()  # tfbuild's git directory went with the revert
    # The name the library carries still resolves, to the commit the user checks out again.
    assert described.encode() in (out / "libtensorflow-core.a").read_bytes()
    assert git(tf1_tree, "rev-parse", described.rsplit("-g", 1)[1]) == user
    assert git(tf1_tree, "describe", "--long", "--tags") == described


def test_source_reports_the_users_commit_while_a_build_holds_the_tree(tf1_tree, capsys):
    user = git(tf1_tree, "rev-parse", "HEAD")
    work = commit_files(tf1_tree, {}, "tfbuild: a build's edits").commit
    lock = Path(git(tf1_tree, "rev-parse", "--git-common-dir"))
    lock = (lock if lock.is_absolute() else tf1_tree / lock) / LOCK_NAME
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\n"
         "os.ftruncate(fd, 0); os.pwrite(fd, f'pid {os.getpid()}: build from'.encode(), 0)\n"
         "print('held', flush=True)\n"
         "time.sleep(60)\n", str(lock)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert main(["source", "--source", str(tf1_tree)]) == 0
        text = capsys.readouterr().out
        row = next(line for line in text.splitlines() if line.strip().startswith("Commit "))
        assert f"Commit             {user}; tfbuild's work commit {work[:12]} is checked out on {WORK_BRANCH}" in row
        assert f"a build holds the tree now (pid {holder.pid}: build from)" in row
        assert main(["source", "--source", str(tf1_tree), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert (report["commit"], report["work_commit"]) == (user, work)
        assert report["held_by"] == f"pid {holder.pid}: build from"
    finally:
        holder.kill()
        holder.wait()
    assert main(["source", "--source", str(tf1_tree), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["held_by"] is None
