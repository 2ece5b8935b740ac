"""Git problems and tree files tfbuild cannot read: a stale ``.git/index.lock``, git
missing from ``PATH``, an origin whose protocol runs a command, a clone that fails, a
``kernels/BUILD`` or ``WORKSPACE`` that is not UTF-8. Each is one line and exit 4 or 6, never
exit 70, and nothing of the tree changed.

Real trees (tests/treegen.py), real git, the console script in its own process where ``PATH``
matters.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfbuild.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
RINT_MODEL = """\
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Rint" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
"""
"""A model whose op's kernel file the TF 1.x tree's Makefile lists not: ``edit makefile`` commits."""


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tfbuild", *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=300, check=False)


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("note:")]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "internal error" not in lines[0], err
    return lines[0]


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(tree), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def rint(tmp_path: Path) -> Path:
    path = tmp_path / "rint.pbtxt"
    path.write_text(RINT_MODEL)
    return path


def test_a_stale_index_lock_is_named_and_nothing_changes(tf1_tree: Path, rint: Path, capsys) -> None:
    lock = tf1_tree / ".git" / "index.lock"
    lock.touch()
    before = git(tf1_tree, "rev-parse", "HEAD")
    code = main(["edit", "makefile", str(rint), "--source", str(tf1_tree)])
    err = capsys.readouterr().err
    assert code == 4, err
    line = one_error_line(err)
    assert str(lock) in line and "nothing was changed" in line and f"rm {lock}" in line, line
    assert lock.exists()  # not git's to delete, nor tfbuild's: it may be another git's
    lock.unlink()
    assert git(tf1_tree, "branch", "--show-current").strip() == "master"
    assert git(tf1_tree, "rev-parse", "HEAD") == before
    assert git(tf1_tree, "status", "--porcelain") == ""
    assert main(["edit", "makefile", str(rint), "--source", str(tf1_tree)]) == 0  # the lock gone, it works


@pytest.mark.parametrize("command", [["edit", "makefile", "{model}", "--source", "{tree}"],
                                     ["source", "--source", "{tree}"],
                                     ["kernels", "Rint", "--source", "{tree}"]],
                         ids=["edit", "source", "kernels"])
def test_git_missing_from_path_is_a_toolchain_error(tf1_tree: Path, rint: Path, tmp_path: Path,
                                                     command: list[str]) -> None:
    args = [word.format(model=rint, tree=tf1_tree) for word in command]
    done = run_cli(*args, cwd=tmp_path, env={"PATH": str(tmp_path / "no-tools-here")})
    assert done.returncode == 6, done.stderr
    line = one_error_line(done.stderr)
    assert "git: not found on PATH" in line, line
    assert git(tf1_tree, "status", "--porcelain") == ""


def test_an_origin_whose_protocol_runs_a_command_is_refused_before_anything_runs(tmp_path: Path, capsys) -> None:
    marker = tmp_path / "ran"
    origin = f"ext::sh -c touch% {marker}"
    code = main(["source", origin, "--workdir", str(tmp_path / "clone")])
    err = capsys.readouterr().err
    assert code == 4, err
    line = one_error_line(err)
    assert origin in line and "nothing ran" in line, line
    assert not marker.exists()


@pytest.mark.parametrize("origin", ["{tmp}/nowhere", "file://{tmp}/nowhere"], ids=["path", "file-url"])
def test_a_failed_clone_gives_gits_reason(tmp_path: Path, capsys, origin: str) -> None:
    origin = origin.format(tmp=tmp_path)
    code = main(["source", origin, "--workdir", str(tmp_path / "clone")])
    err = capsys.readouterr().err
    assert code == 4, err
    line = one_error_line(err)
    assert "fatal: " in line and ("does not exist" in line or "not appear to be a git repository" in line), line


def test_an_empty_origin_says_it_has_no_branch(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    code = main(["source", str(empty), "--workdir", str(tmp_path / "clone")])
    err = capsys.readouterr().err
    assert code == 4, err
    line = one_error_line(err)
    assert "no default branch" in line and "None" not in line, line


def test_a_kernels_build_that_is_not_utf8_is_a_tree_error(tf1_tree: Path, rint: Path, capsys) -> None:
    build = tf1_tree / "tensorflow/core/kernels/BUILD"
    build.write_bytes(build.read_bytes() + b"# caf\xe9\n")
    git(tf1_tree, "commit", "-qam", "latin-1")
    for command in (["edit", "bazel", str(rint), "--source", str(tf1_tree), "--dry-run"],
                    ["build", "--dry-run", "--model", str(rint), "--source", str(tf1_tree), "--target", "linux-x86_64",
                     "--flavour", "bazel", "--local"]):
        code = main(command)
        err = capsys.readouterr().err
        assert code == 4, err
        line = one_error_line(err)
        assert "tensorflow/core/kernels/BUILD:" in line and "not UTF-8" in line, line


def test_a_workspace_that_is_not_utf8_is_a_tree_error(tf1_tree: Path, tmp_path: Path, capsys) -> None:
    from android_dirs import make_ndk, make_sdk

    workspace = tf1_tree / "WORKSPACE"
    workspace.write_bytes(workspace.read_bytes() + b"# caf\xe9\n")
    before = workspace.read_bytes()
    code = main(["workspace", "--sdk", str(make_sdk(tmp_path / "sdk")), "--ndk", str(make_ndk(tmp_path / "ndk")),
                 "--source", str(tf1_tree)])
    err = capsys.readouterr().err
    assert code == 4, err
    line = one_error_line(err)
    assert str(workspace) in line and "not UTF-8" in line, line
    assert workspace.read_bytes() == before
