"""Nothing of the user's lost to signals or reverts: a stop signal from CI, a read-only tree, an output
directory inside the tree, a file tfbuild wrote that the user edited since, a user's commit on
tfbuild's work branch, a ``WORKSPACE`` that links out of the tree, and a tree missing inputs
its Makefile compiles.

Real CLI runs on generated TensorFlow-shaped git trees (``tests/treegen.py``): in-process
through :func:`tfbuild.cli.main`, or as a separate process where a signal is sent to it (to its
pid alone, as a CI cancel does), with real git and a real ``make``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import treegen
from conftest import missing_part
from tree_snapshots import git, snapshot, write_min_model

from tfbuild.cli import main
from tfbuild.tree.work_branch import WORK_BRANCH

REPO_ROOT = Path(__file__).resolve().parent.parent
HEADER_IN_TREE = treegen.OPS_TO_REGISTER_H
SIGNAL_CODES = {"SIGTERM": 143, "SIGHUP": 129, "SIGINT": 130}


@pytest.fixture
def min_model(tmp_path: Path) -> Path:
    return write_min_model(tmp_path)


def tfbuild_env(**more: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TF_CPP_MIN_LOG_LEVEL": "3", **more}


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


def commit_all(tree: Path, message: str) -> None:
    git(tree, "add", "-A")
    git(tree, "-c", "user.name=u", "-c", "user.email=u@u", "-c", "commit.gpgsign=false", "commit", "-qm", message)


def git_that_signals(tmp_path: Path, command: str, signame: str) -> str:
    """A PATH whose ``git`` sends ``signame`` to its parent (tfbuild, by its pid alone) when it
    runs ``command`` (``checkout``, ``commit``), then runs the real git: a stop that lands
    exactly there."""
    bin_dir = tmp_path / f"git-{command}-{signame}"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    real = shutil.which("git")
    wrapper.write_text(
        "#!/bin/sh\n"
        f'for arg in "$@"; do if [ "$arg" = {command} ]; then kill -{signame.removeprefix("SIG")} $PPID; '
        "sleep 0.3; break; fi; done\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def default_stop_signals() -> None:
    """A child's SIGTERM and SIGHUP as the kernel's defaults: a test runner started under
    ``nohup`` (or a CI harness that ignores them) would otherwise pass the ignoring on, and
    tfbuild keeps ignored signals ignored, as it should."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


# -- signals: SIGTERM and SIGHUP as Ctrl-C ----------------------------------------------------------


@pytest.mark.parametrize(("command", "signame"), [
    ("checkout", "SIGTERM"), ("add", "SIGTERM"), ("commit", "SIGTERM"), ("checkout", "SIGHUP"),
])
def test_a_stop_signal_during_the_edits_commit_leaves_a_tree_the_revert_restores(
    tf1_tree: Path, min_model: Path, tmp_path: Path, command: str, signame: str
) -> None:
    """Before: SIGTERM between ``git checkout -b`` and ``git commit`` left the work branch
    checked out with no commit and a ``.tf_op_files.txt.*.tmp``, which ``--revert`` refused,
    and exit 143 with nothing printed. Now the commit completes (the stop waits for it), the
    run says so and names the revert, and exits with the signal's code."""
    before = snapshot(tf1_tree)
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "edit", "makefile", str(min_model), "--source", str(tf1_tree)],
        capture_output=True, text=True, timeout=300, preexec_fn=default_stop_signals,
        env=tfbuild_env(PATH=git_that_signals(tmp_path, command, signame)),
    )
    assert done.returncode == SIGNAL_CODES[signame], done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"interrupted by {signame}",
        f"the tree has tfbuild's edits on {WORK_BRANCH}; undo them with: tfbuild edit --revert --source {tf1_tree}",
    ], done.stderr
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    assert git(tf1_tree, "status", "--porcelain", "--untracked-files=all") == ""  # no stray .tmp
    assert "tfbuild: compile the kernels" in git(tf1_tree, "log", "-1", "--format=%s")
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert snapshot(tf1_tree) == before


def test_a_stop_signal_during_the_revert_lets_it_finish_and_says_so(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """SIGTERM while the revert checks the user's branch out: the branch's deletion goes with
    it (never a checkout back with the work branch left, nor the reverse), and the line after
    "interrupted" says where the tree is."""
    before = snapshot(tf1_tree)
    assert main(["edit", "makefile", str(min_model), "--source", str(tf1_tree)]) == 0
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "edit", "--revert", "--source", str(tf1_tree)],
        capture_output=True, text=True, timeout=300, preexec_fn=default_stop_signals,
        env=tfbuild_env(PATH=git_that_signals(tmp_path, "checkout", "SIGTERM")),
    )
    assert done.returncode == 143, done.stderr[-3000:]
    assert done.stderr.strip().splitlines() == [
        "interrupted by SIGTERM", f"the tree {tf1_tree} has none of tfbuild's edits",
    ], done.stderr
    assert snapshot(tf1_tree) == before


def test_a_hangup_ignored_when_tfbuild_starts_stays_ignored(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """``nohup tfbuild ...``: SIGHUP was ignored when tfbuild started, and a hangup does not stop it."""
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "edit", "makefile", str(min_model), "--source", str(tf1_tree)],
        capture_output=True, text=True, timeout=300,
        env=tfbuild_env(PATH=git_that_signals(tmp_path, "commit", "SIGHUP")),
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "committed " in done.stdout and git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH


def _make_of(tree: Path) -> int | None:
    """The pid of the running ``make -j2`` of the tree's contrib Makefile, if there is one."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if argv[0].endswith(b"make") and b"-j2" in argv and b"tensorflow/contrib/makefile/Makefile" in argv \
                and cwd == str(tree):
            return int(entry.name)
    return None


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies waiting to be reaped do not count)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@pytest.mark.compiler
def test_a_sigterm_to_tfbuild_alone_stops_the_builds_make_before_the_lock_is_released(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """A CI cancel: SIGTERM to tfbuild's pid alone while a real ``make -j2`` compiles in the tree.
    Before: tfbuild died at once (exit 143, nothing printed), its lock released, and make kept
    compiling in the tree. Now make's process group is stopped first, then one line, the notes
    naming what the tree holds and the revert, and exit 143."""
    before = snapshot(tf1_tree)
    build = subprocess.Popen(
        [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--flavour", "makefile",
         "--source", str(tf1_tree), "--model", str(min_model), "--out", str(tmp_path / "out"), "--jobs", "2",
         "--local", "--default-ops", "NoOp:NoOp"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=tfbuild_env(),
        preexec_fn=default_stop_signals,  # noqa: PLW1509 (resets two signals only; no lock taken)
    )
    try:
        deadline = time.monotonic() + 600
        make = None
        while make is None and build.poll() is None:
            assert time.monotonic() < deadline, "make never started"
            make = _make_of(tf1_tree)
            time.sleep(0.05)
        assert make is not None, build.communicate()[1][-3000:]
        build.send_signal(signal.SIGTERM)
        _, err = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
    assert build.returncode == 143, err[-3000:]
    assert not _group_alive(make)  # stopped before tfbuild exited, and so before its lock was released
    lines = [line for line in err.splitlines() if line.strip()]
    start = lines.index("interrupted by SIGTERM")
    assert lines[start + 1] == f"the build stopped after changing the source tree {tf1_tree}:"
    assert lines[-1] == f"undo it with: tfbuild edit --revert --source {tf1_tree}"
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    after = snapshot(tf1_tree)
    assert {path: after["files"][path] for path in before["files"]} == before["files"]
    assert (after["branch"], after["head"], after["branches"]) == (before["branch"], before["head"], before["branches"])


# -- a read-only tree: refused before anything changes ---------------------------------------------


def _read_only_argv(directory: Path, argv: list[str]) -> list[str]:
    """``argv`` run with ``directory`` read-only: by its mode for a user, by a read-only bind
    mount in a mount namespace of its own for root (whom no mode bit stops)."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        return argv
    if shutil.which("unshare") is None:
        missing_part("root, and no unshare(1) to mount a directory read-only (apt-get install util-linux)")
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
    if probe.returncode != 0:
        missing_part(f"root, and unshare --mount is not allowed here: {probe.stderr.decode()[-200:]}")
    quoted = " ".join(f"'{arg}'" for arg in argv)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            f"mount --bind '{directory}' '{directory}' && mount -o remount,bind,ro '{directory}' && exec {quoted}"]


@pytest.mark.parametrize("read_only", [treegen.MAKEFILE_DIR, ".git"])
def test_an_edit_of_a_read_only_tree_is_refused_before_anything_changes(
    tf1_tree: Path, min_model: Path, read_only: str
) -> None:
    """Before: with tensorflow/contrib/makefile read-only, ``edit`` failed (exit 1) after checking
    out the work branch, its rollback failed writing in the same directory, and the user's
    branch was never checked out again. Now the directories it writes are checked first."""
    before = snapshot(tf1_tree)
    argv = [sys.executable, "-m", "tfbuild", "edit", "makefile", str(min_model), "--source", str(tf1_tree)]
    done = subprocess.run(_read_only_argv(tf1_tree / read_only, argv), capture_output=True, text=True,
                          env=tfbuild_env(), timeout=300)
    (tf1_tree / read_only).chmod(0o755)
    assert done.returncode == 4, done.stderr[-3000:]
    lines = error_lines(done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and len(lines) == 1, done.stderr
    assert f"{tf1_tree / read_only}: not writable" in lines[0] and "nothing was changed" in lines[0]
    assert snapshot(tf1_tree) == before


def test_the_edits_rollback_checks_the_users_branch_out_even_when_a_file_cannot_be_put_back(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """Should the commit fail after the write (here git's own commit, refused by a wrapper),
    the rollback puts the file back and checks out the user's branch again, each on its own."""
    before = snapshot(tf1_tree)
    bin_dir = tmp_path / "git-no-commit"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(
        "#!/bin/sh\nfor arg in \"$@\"; do if [ \"$arg\" = commit ]; then echo 'fatal: no commit today' >&2; "
        f"exit 128; fi; done\nexec {shutil.which('git')} \"$@\"\n"
    )
    (bin_dir / "git").chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "edit", "makefile", str(min_model), "--source", str(tf1_tree)],
        capture_output=True, text=True, timeout=300, env=tfbuild_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
    )
    assert done.returncode == 4, done.stderr[-3000:]
    assert "no commit today" in error_lines(done.stderr)[0]
    assert snapshot(tf1_tree) == before


# -- an output directory inside the source tree ----------------------------------------------------


@pytest.mark.parametrize("where", ["root", "gen-lib", "through-a-link"])
def test_an_output_directory_inside_the_tree_is_refused_by_the_dry_run_and_the_build(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys, where: str
) -> None:
    """Before: ``--out-dir TREE/tensorflow/contrib/makefile/gen/lib`` passed the dry run and the
    build's object-forgetting step deleted the user's file there; ``--out-dir TREE`` left ten
    artifacts in the checkout that stayed after the revert."""
    users = tf1_tree / "tensorflow/contrib/makefile/gen/lib/mine.txt"
    users.parent.mkdir(parents=True)
    users.write_text("the user's\n")
    (tmp_path / "link").symlink_to(tf1_tree)
    out = {"root": tf1_tree, "gen-lib": users.parent, "through-a-link": tmp_path / "link" / "out"}[where]
    before = snapshot(tf1_tree)
    argv = ["build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tf1_tree),
            "--model", str(min_model), "--out-dir", str(out), "--local"]
    for args in ([*argv, "--dry-run"], argv):
        code = main(args)
        captured = capsys.readouterr()
        assert code == 2, captured.err
        assert captured.out == "" and len(captured.err.strip().splitlines()) == 1, captured.err
        shown = tf1_tree / "out" if where == "through-a-link" else out  # as resolved
        assert f"error: {shown}: the output directory is inside the source tree {tf1_tree}" in captured.err
        assert snapshot(tf1_tree) == before


# -- the revert: files the user changed, modes, the user's commits --------------------------------


def _build_writing_the_header(tree: Path, model: Path, tmp_path: Path) -> None:
    """A Bazel build (stand-in bazel that fails) that commits its edits and writes ops_to_register.h."""
    (tree / ".tf_configure.bazelrc").write_text("# configured\n")  # untracked: skips configure.py
    bin_dir = tmp_path / "fake-bazel"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "bazel").write_text("#!/bin/sh\nexit 3\n")
    (bin_dir / "bazel").chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--flavour", "bazel", "--source",
         str(tree), "--model", str(model), "--out", str(tmp_path / "out"), "--local"],
        capture_output=True, text=True, timeout=300,
        env=tfbuild_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
    )
    assert done.returncode == 7, done.stderr[-3000:]
    assert (tree / HEADER_IN_TREE).is_file()


def test_the_revert_refuses_to_delete_a_header_the_user_edited_after_the_build(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys
) -> None:
    """Before: ``edit --revert`` removed it ("written by tfbuild"), the user's edit with it."""
    _build_writing_the_header(tf1_tree, min_model, tmp_path)
    header = tf1_tree / HEADER_IN_TREE
    edited = header.read_text() + "// the user's line\n"
    header.write_text(edited)
    branch = git(tf1_tree, "rev-parse", WORK_BRANCH)
    again = subprocess.run(  # nor does a second build replace it
        [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--flavour", "bazel", "--source",
         str(tf1_tree), "--model", str(min_model), "--out", str(tmp_path / "out"), "--local"],
        capture_output=True, text=True, timeout=300,
        env=tfbuild_env(PATH=f"{tmp_path / 'fake-bazel'}{os.pathsep}{os.environ['PATH']}"),
    )
    assert again.returncode == 4 and f"{header}: an untracked file tfbuild did not write" in again.stderr, again.stderr
    code = main(["edit", "--revert", "--source", str(tf1_tree)])
    err = capsys.readouterr().err
    assert code == 4, err
    assert len(err.strip().splitlines()) == 1 and f"error: {header}: tfbuild wrote this file, but it has changed" in err
    assert header.read_text() == edited
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    assert git(tf1_tree, "rev-parse", WORK_BRANCH) == branch
    # the way out the hint names: the file moved away, the revert goes through
    header.rename(tmp_path / "kept.h")
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert (tmp_path / "kept.h").read_text() == edited


def test_a_header_a_second_build_rewrote_is_still_tfbuilds(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys
) -> None:
    """Two builds with different headers: both contents are recorded, the revert removes it."""
    _build_writing_the_header(tf1_tree, min_model, tmp_path)
    first = (tf1_tree / HEADER_IN_TREE).read_text()
    (tmp_path / "more.json").write_text('[["Max", "ReductionOp<CPUDevice, float, int32, '
                                        'Eigen::internal::MaxReducer<float>>"], ["Const", "ConstantOp"]]')
    _build_writing_the_header(tf1_tree, tmp_path / "more.json", tmp_path)
    assert (tf1_tree / HEADER_IN_TREE).read_text() != first
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert not (tf1_tree / HEADER_IN_TREE).exists()


def test_the_revert_gives_back_a_users_file_modes(tf1_tree: Path, min_model: Path) -> None:
    """Before: a user's ``chmod 444`` on tf_op_files.txt came back as 644 (git keeps only the x bit)."""
    op_files = tf1_tree / treegen.OP_FILES_TXT
    op_files.chmod(0o444)
    assert main(["edit", "makefile", str(min_model), "--source", str(tf1_tree)]) == 0
    assert op_files.stat().st_mode & 0o777 == 0o444
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert op_files.stat().st_mode & 0o777 == 0o444


def test_the_revert_never_drops_a_commit_the_user_made_on_the_work_branch(
    tf1_tree: Path, min_model: Path, capsys
) -> None:
    """Before: the revert refused with a hint to delete the branch by hand, which would drop the
    user's commit. Now it names the commit and the safe way: keep it on a branch of one's own,
    after which the revert goes ahead and the commit stays on that branch."""
    assert main(["edit", "makefile", str(min_model), "--source", str(tf1_tree)]) == 0
    (tf1_tree / "NOTES.md").write_text("the user's work\n")
    commit_all(tf1_tree, "my work")
    mine = git(tf1_tree, "rev-parse", "HEAD")
    capsys.readouterr()
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 4
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"holds commit {mine[:12]} ('my work') that tfbuild did not make" in err
    assert f"git -C {tf1_tree} branch NAME {WORK_BRANCH}" in err and "do not delete the branch by hand" in err
    assert git(tf1_tree, "rev-parse", WORK_BRANCH) == mine
    git(tf1_tree, "branch", "my-work", WORK_BRANCH)
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert "reverted 1 tfbuild commit(s)" in capsys.readouterr().out  # the user's is not counted
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == "master"
    assert git(tf1_tree, "rev-parse", "my-work") == mine
    assert WORK_BRANCH not in git(tf1_tree, "branch", "--format=%(refname:short)")


def test_a_build_on_top_of_the_users_commit_keeps_tfbuilds_base(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """An edit, a commit of the user's, then a build: the build's commit records the base of the
    first edit (not the user's commit), so the revert still finds where to go back to."""
    assert main(["edit", "makefile", str(min_model), "--source", str(tf1_tree)]) == 0
    (tf1_tree / "NOTES.md").write_text("the user's work\n")
    commit_all(tf1_tree, "my work")
    _build_writing_the_header(tf1_tree, min_model, tmp_path)
    git(tf1_tree, "branch", "my-work", "HEAD~1")
    assert "Tfbuild-Base-Branch: master" in git(tf1_tree, "log", "-1", "--format=%B", WORK_BRANCH)
    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == "master"
    assert not (tf1_tree / HEADER_IN_TREE).exists()


# -- tfbuild workspace and a WORKSPACE that links out of the tree --------------------------------------


def test_workspace_never_writes_through_a_committed_link_out_of_the_tree(
    tf1_tree: Path, tmp_path: Path, capsys
) -> None:
    from android_dirs import make_ndk, make_sdk

    outside = tmp_path / "elsewhere" / "WORKSPACE"
    outside.parent.mkdir()
    outside.write_text((tf1_tree / "WORKSPACE").read_text())
    (tf1_tree / "WORKSPACE").unlink()
    (tf1_tree / "WORKSPACE").symlink_to(outside)
    commit_all(tf1_tree, "WORKSPACE from elsewhere")
    before, kept = snapshot(tf1_tree), outside.read_bytes()
    sdk, ndk = make_sdk(tmp_path / "sdk"), make_ndk(tmp_path / "ndk")
    code = main(["workspace", "--sdk", str(sdk), "--ndk", str(ndk), "--source", str(tf1_tree)])
    captured = capsys.readouterr()
    assert code == 4, captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert f"error: {tf1_tree / 'WORKSPACE'}: a symbolic link to {outside}, outside the tree" in captured.err
    assert outside.read_bytes() == kept and snapshot(tf1_tree) == before


# -- the Makefile's inputs, named before the first step ---------------------------------------------


def test_every_missing_input_of_the_makefile_is_named_before_the_first_step(
    tf1_tree: Path, min_model: Path, tmp_path: Path, capsys
) -> None:
    """Before: a real build of a tree missing a proto directory its Makefile lists failed after
    80 minutes at make's "No rule to make target .../gen/proto/tensorflow/contrib/boosted_trees/
    proto/...". Now the dry run and the build stop first (exit 4), naming every missing input
    in one line: a proto directory (its protos counted), a kernel source, a list file."""
    makefile_dir = tf1_tree / treegen.MAKEFILE_DIR
    protos = makefile_dir / "tf_proto_files.txt"
    protos.write_text(protos.read_text() + "tensorflow/contrib/boosted_trees/proto/learner.proto\n"
                      "tensorflow/contrib/boosted_trees/proto/tree_config.proto\n")
    (tf1_tree / "tensorflow/core/kernels/no_op.cc").unlink()
    # r1.9 and 1.15 list two kernels as ".c": the Makefile maps them to the object its ".cc" makes
    op_files = makefile_dir / "tf_op_files.txt"
    op_files.write_text(op_files.read_text() + "tensorflow/core/kernels/bias_op.c\n")
    makefile = makefile_dir / "Makefile"
    makefile.write_text(makefile.read_text().replace(
        "PROTO_SRCS := $(shell cat $(MAKEFILE_DIR)/tf_proto_files.txt)",
        "PROTO_SRCS := $(shell cat $(MAKEFILE_DIR)/tf_proto_files.txt)\n"
        "PBT_CC_SRCS := $(shell cat $(MAKEFILE_DIR)/tf_pb_text_files.txt)",
    ))
    commit_all(tf1_tree, "a partial tree")
    before = snapshot(tf1_tree)
    argv = ["build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tf1_tree),
            "--model", str(min_model), "--out-dir", str(tmp_path / "out"), "--local"]
    for args in ([*argv, "--dry-run"], argv):
        code = main(args)
        captured = capsys.readouterr()
        assert code == 4, captured.err
        lines = error_lines(captured.err)
        assert len(captured.err.strip().splitlines()) == 1 and len(lines) == 1, captured.err
        assert lines[0].startswith(f"error: {makefile_dir}: 4 input(s) the contrib Makefile compiles are missing")
        assert "tensorflow/core/kernels/no_op.cc (listed in tf_op_files.txt)" in lines[0]
        assert "tensorflow/contrib/boosted_trees/proto/ (2 inputs listed in tf_proto_files.txt)" in lines[0]
        assert f"{treegen.MAKEFILE_DIR}/tf_pb_text_files.txt (listed in the Makefile)" in lines[0]
        assert snapshot(tf1_tree) == before
        assert not (tmp_path / "out").exists()


def test_a_generated_protobuf_source_is_checked_by_its_proto() -> None:
    from tfbuild.tree.makefile_inputs import input_of, lists_read

    assert input_of("tensorflow/core/example/example.pb_text.cc") == "tensorflow/core/example/example.proto"
    assert input_of("tensorflow/core/framework/types.pb.h") == "tensorflow/core/framework/types.proto"
    assert input_of("tensorflow/core/kernels/no_op.cc") == "tensorflow/core/kernels/no_op.cc"
    assert lists_read("A := $(shell cat $(MAKEFILE_DIR)/a.txt)\n# B := $(shell cat $(MAKEFILE_DIR)/b.txt)\n"
                      "C += $(shell cat tensorflow/contrib/makefile/c.txt)\n") == ("a.txt", "c.txt")


def test_the_build_and_its_dry_run_refuse_a_read_only_makefile_directory(
    tf1_tree: Path, min_model: Path, tmp_path: Path
) -> None:
    """The build checks the same before its commit: the dry run names it among the
    prerequisites and exits 4 as the build does, nothing changed."""
    before = snapshot(tf1_tree)
    argv = [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--flavour", "makefile",
            "--source", str(tf1_tree), "--model", str(min_model), "--out-dir", str(tmp_path / "out"), "--local",
            "--default-ops", "NoOp:NoOp"]
    directory = tf1_tree / treegen.MAKEFILE_DIR
    for args in ([*argv, "--dry-run"], argv):
        done = subprocess.run(_read_only_argv(directory, args), capture_output=True, text=True, env=tfbuild_env(),
                              timeout=300)
        assert done.returncode == 4, done.stderr[-3000:]
        lines = error_lines(done.stderr)
        assert len(lines) == 1 and f"{directory}: not writable" in lines[0], done.stderr
        assert snapshot(tf1_tree) == before
        assert not (tmp_path / "out" / "libtensorflow-core.a").exists()
    directory.chmod(0o755)
