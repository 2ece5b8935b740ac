"""Nothing of the user's in a source tree is replaced or lost by edits and locks: a user's own untracked
file where a build writes one, and two tfbuild runs on one tree at once.

Real CLI runs on generated TensorFlow-shaped git trees (``tests/treegen.py``): in-process through
:func:`tfbuild.cli.main`, and as separate processes where two of them meet at the tree's lock.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import treegen
from tree_snapshots import git, snapshot, write_min_model

from tfbuild.cli import main
from tfbuild.tree.work_branch import WORK_BRANCH

REPO_ROOT = Path(__file__).resolve().parent.parent
HEADER_IN_TREE = treegen.OPS_TO_REGISTER_H
USERS_HEADER = "// the user's own ops_to_register.h, not tfbuild's\n"


@pytest.fixture
def min_model(tmp_path: Path) -> Path:
    return write_min_model(tmp_path)


def fake_bazel(tmp_path: Path, script: str) -> dict[str, str]:
    """An environment whose ``bazel`` runs ``script``."""
    bin_dir = tmp_path / "fake-bazel"
    bin_dir.mkdir(exist_ok=True)
    bazel = bin_dir / "bazel"
    bazel.write_text(f"#!/bin/sh\n{script}\n")
    bazel.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "TF_CPP_MIN_LOG_LEVEL": "3",
            "PYTHONPATH": str(REPO_ROOT)}


def build_argv(tree: Path, model: Path, out: Path, *more: str) -> list[str]:
    return ["build", "--target", "linux-x86_64", "--flavour", "bazel", "--source", str(tree),
            "--model", str(model), "--out", str(out), "--jobs", "2", "--local", *more]


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


# -- the user's own ops_to_register.h ---------------------------------------------------------------


def test_a_users_untracked_header_in_the_tree_is_refused_before_anything_changes(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys
) -> None:
    """Before: the build replaced it (the prerequisite check called the tree clean) and
    ``edit --revert`` then deleted it as "written by tfbuild"."""
    (tf1_tree / ".tf_configure.bazelrc").write_text("# configured\n")  # untracked: skips configure.py
    (tf1_tree / HEADER_IN_TREE).write_text(USERS_HEADER)
    before = snapshot(tf1_tree)
    out = tmp_path / "out"
    argv = build_argv(tf1_tree, min_model, out)
    for args in (argv, [*argv, "--dry-run"]):  # the dry run's verdict is the build's
        done = subprocess.run([sys.executable, "-m", "tfbuild", *args], capture_output=True, text=True,
                              env=fake_bazel(tmp_path, "echo 'bazel must not run'; exit 3"), timeout=300)
        assert done.returncode == 4, done.stderr[-3000:]
        lines = error_lines(done.stderr)
        assert len(lines) == 1, done.stderr
        assert str(tf1_tree / HEADER_IN_TREE) in lines[0] and "tfbuild did not write" in lines[0]
        assert "bazel must not run" not in done.stdout + done.stderr
        assert snapshot(tf1_tree) == before
        assert not out.exists()
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0  # nothing to revert: nothing deleted
    assert (tf1_tree / HEADER_IN_TREE).read_text() == USERS_HEADER


def test_a_header_the_user_committed_is_changed_on_the_branch_and_restored_by_the_revert(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """The fix the refusal names: committed, the file is the tree's, and the revert restores it."""
    (tf1_tree / ".tf_configure.bazelrc").write_text("# configured\n")
    (tf1_tree / HEADER_IN_TREE).write_text(USERS_HEADER)
    git(tf1_tree, "add", "-f", HEADER_IN_TREE)
    git(tf1_tree, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "h")
    before = snapshot(tf1_tree)
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", *build_argv(tf1_tree, min_model, tmp_path / "out")],
        capture_output=True, text=True, env=fake_bazel(tmp_path, "exit 3"), timeout=300,
    )
    assert done.returncode == 7, done.stderr[-3000:]
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    assert (tf1_tree / HEADER_IN_TREE).read_text() != USERS_HEADER
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert snapshot(tf1_tree) == before


# -- two runs on one tree ---------------------------------------------------------------------------


def _wait_for(predicate, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_second_run_on_a_tree_stops_at_once_while_a_build_holds_it(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """Two real processes: a build whose ``bazel`` waits, and then an edit, a revert and a second
    build of the same tree. Before: ``internal error`` (exit 70, "a branch named
    'tfbuild/selective-edits' already exists", or git's index.lock)."""
    (tf1_tree / ".tf_configure.bazelrc").write_text("# configured\n")
    started = tmp_path / "bazel-started"
    env = fake_bazel(tmp_path, f"touch {started}; sleep 120")
    first = subprocess.Popen(
        [sys.executable, "-m", "tfbuild", *build_argv(tf1_tree, min_model, tmp_path / "out1")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509 (no threads here)
    )
    try:
        _wait_for(lambda: started.exists() or first.poll() is not None)
        assert first.poll() is None, first.communicate()[1][-3000:]
        lock = tf1_tree / ".git" / "tfbuild.lock"
        assert f"pid {first.pid}: build from" in lock.read_text()
        branch_before = git(tf1_tree, "rev-parse", WORK_BRANCH)
        for args in (
            ["edit", "makefile", "--model", str(min_model), "--source", str(tf1_tree)],
            ["edit", "--revert", "--source", str(tf1_tree)],
            build_argv(tf1_tree, min_model, tmp_path / "out2"),
        ):
            t0 = time.monotonic()
            second = subprocess.run([sys.executable, "-m", "tfbuild", *args], capture_output=True, text=True,
                                    env=env, timeout=120)
            assert second.returncode == 4, second.stderr[-3000:]
            lines = error_lines(second.stderr)
            assert len(lines) == 1, second.stderr
            assert "another tfbuild is changing this tree" in lines[0] and f"pid {first.pid}" in lines[0]
            assert time.monotonic() - t0 < 60
            assert git(tf1_tree, "rev-parse", WORK_BRANCH) == branch_before
        assert not (tmp_path / "out2").exists()
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)
    # the lock is free again: the revert the interrupted build names runs
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert WORK_BRANCH not in git(tf1_tree, "branch", "--format=%(refname:short)")


def test_two_edits_started_together_never_end_in_an_internal_error(tf1_tree: Path, min_model: Path) -> None:
    """Two ``tfbuild edit`` processes started at the same moment: one commits, the other stops
    with the lock's message (or, if the first finished already, finds nothing left to change)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    argv = [sys.executable, "-m", "tfbuild", "edit", "makefile", "--model", str(min_model), "--source", str(tf1_tree)]
    for _ in range(3):
        runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                for _ in range(2)]
        results = [(run.wait(timeout=300), run.communicate()) for run in runs]
        codes = sorted(code for code, _ in results)
        for code, (_, err) in results:
            assert code in (0, 4), err
            assert "internal error" not in err
            if code == 4:
                assert "another tfbuild is changing this tree" in err or "changed since the edit" in err, err
        assert codes[0] == 0, results
        assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0


# -- a failed step quotes its first error -----------------------------------------------------------


def test_a_failed_step_quotes_the_first_compiler_error_not_makes_last_line(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """The step (``bazel``, standing in) runs a real ``make -j2`` whose real compiler fails while
    another job runs: make's last line is "Waiting for unfinished jobs", the error quoted is the
    compiler's."""
    (tf1_tree / ".tf_configure.bazelrc").write_text("# configured\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "bad.c").write_text("int main(void) { return missing_variable; }\n")
    (project / "Makefile").write_text("all: bad.o slow\nbad.o: bad.c\n\tcc -c bad.c -o bad.o\nslow:\n\tsleep 2\n")
    env = fake_bazel(tmp_path, f"make --no-print-directory -C {project} -j2 2>&1; exit 2")
    done = subprocess.run([sys.executable, "-m", "tfbuild", *build_argv(tf1_tree, min_model, tmp_path / "out")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 7, done.stderr[-3000:]
    log = (tmp_path / "out" / "linux-x86_64.build.log").read_text()
    assert "Waiting for unfinished jobs" in log.strip().splitlines()[-2]  # make's last line, then tfbuild's
    lines = error_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert "bad.c:1:" in lines[0] and "error:" in lines[0] and "missing_variable" in lines[0], lines[0]
    assert "Waiting for unfinished jobs" not in lines[0]
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0


def test_an_undefined_cxa_thread_atexit_impl_says_why(tf1_tree: Path, min_model: Path, tmp_path: Path) -> None:
    """A link that fails on ``__cxa_thread_atexit_impl`` (an Android JNI link with an NDK whose
    libc++abi.a references it strongly, below API 23) names the linker's line and says why."""
    (tf1_tree / ".tf_configure.bazelrc").write_text("# configured\n")
    script = ("echo 'ld.lld: error: undefined symbol: __cxa_thread_atexit_impl'; "
              "echo '>>> referenced by cxa_thread_atexit.cpp'; "
              "echo 'clang++: error: linker command failed with exit code 1'; exit 1")
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", *build_argv(tf1_tree, min_model, tmp_path / "out")],
        capture_output=True, text=True, env=fake_bazel(tmp_path, script), timeout=300,
    )
    assert done.returncode == 7, done.stderr[-3000:]
    lines = error_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert "ld.lld: error: undefined symbol: __cxa_thread_atexit_impl" in lines[0]
    assert "API level 23" in lines[0] and "weakly" in lines[0]
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0


# -- the dry run's exit code is the build's ----------------------------------------------------------


@pytest.mark.parametrize("case", ["no-docker-engine", "out-under-a-file", "out-is-a-file"])
def test_the_dry_run_exits_with_the_code_the_build_would(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys, monkeypatch, docker_stand_in, case: str
) -> None:
    """README: the dry run "exits with the same code" as the build. Before: without Docker the
    dry run exited 0 and the build 6; with --out under a file, 0 and 2. The --out cases run
    against the stand-in engine (every image there), so --out is the one thing wrong."""
    out = tmp_path / "out"
    expected = 2
    if case == "no-docker-engine":
        monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'no-docker.sock'}")
        expected = 6
    elif case == "out-under-a-file":
        (tmp_path / "afile").write_text("x\n")
        out = tmp_path / "afile" / "out"
    else:
        out.write_text("x\n")
    before = snapshot(tf1_tree)
    argv = ["build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tf1_tree),
            "--model", str(min_model), "--out", str(out)]
    dry = main([*argv, "--dry-run"])
    captured = capsys.readouterr()
    assert dry == expected, captured.err
    assert f"(exit {expected})" in captured.out  # the plan is printed all the same
    assert len(error_lines(captured.err)) == 1, captured.err
    assert main(argv) == expected
    assert len(error_lines(capsys.readouterr().err)) == 1
    assert snapshot(tf1_tree) == before


def test_an_edit_of_a_tracked_symlink_never_writes_outside_the_tree(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys
) -> None:
    """``-o`` writes through a link; tfbuild's commits in a tree do not: git tracks the link, the
    commit records its change, and the revert restores it (the file it named is never touched)."""
    outside = tmp_path / "outside_tf_op_files.txt"
    listing = tf1_tree / treegen.OP_FILES_TXT
    outside.write_bytes(listing.read_bytes())
    listing.unlink()
    listing.symlink_to(outside)
    git(tf1_tree, "add", "-A")
    git(tf1_tree, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "link")
    before, outside_before = snapshot(tf1_tree), outside.read_bytes()
    assert main(["edit", "makefile", "--model", str(min_model), "--source", str(tf1_tree)]) == 0, capsys.readouterr()
    assert not listing.is_symlink() and listing.read_bytes() != outside_before
    assert outside.read_bytes() == outside_before
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert listing.is_symlink() and snapshot(tf1_tree) == before
