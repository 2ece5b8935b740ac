"""Executing build plans: locally (fast, real processes) and in a container (docker)."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path, PurePosixPath

import pytest
from rich.console import Console
from toolchain_fixtures import require_base_image

from tfbuild.errors import BuildError, ToolchainError
from tfbuild.pipeline.planning.executor import StepFailed, execute_plan
from tfbuild.pipeline.planning.plan import Artifact, BuildPlan, GeneratedFile, ImageSpec, Mount, Step
from tfbuild.toolchain.container import CommandTimeout
from tfbuild.toolchain.engine import docker_client


def _plan(tmp_path: Path, steps, *, artifacts=(), generated=(), image=None, mounts=()) -> BuildPlan:
    return BuildPlan(
        target="test-target",
        flavour="makefile",
        image=image,
        mounts=tuple(mounts),
        steps=tuple(steps),
        generated_files=tuple(generated),
        artifacts=tuple(artifacts),
        output_dir=tmp_path / "out",
        env={"PLAN_VAR": "from-plan"},
    )


def _sh(name: str, script: str, workdir: Path | PurePosixPath, **kwargs) -> Step:
    return Step(name, ("sh", "-c", script), PurePosixPath(str(workdir)), **kwargs)


# -- local (--local): real processes on this machine ---------------------------------------------
def test_local_plan_writes_files_runs_steps_and_collects_artifacts(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    header = tmp_path / "gen" / "ops_to_register.h"
    plan = _plan(
        tmp_path,
        [
            _sh("configure", 'cat "$1" > selected.txt; echo "$PLAN_VAR $STEP_VAR" > env.txt', work,
                env={"STEP_VAR": "from-step"}),
            _sh("already done", "exit 9", work, skip_if_exists=PurePosixPath(str(work))),
            _sh("build", "mkdir -p lib && echo built > lib/libx.a", work),
        ],
        generated=[GeneratedFile(header, "#define X 1\n")],
        artifacts=[Artifact(PurePosixPath(str(work / "lib/libx.a")), "libx.a", "static-lib"),
                   Artifact(PurePosixPath(str(work / "lib")), "lib", "directory")],
    )
    console_text = io.StringIO()
    result = execute_plan(plan, console=Console(file=console_text, force_terminal=False))
    assert header.read_text() == "#define X 1\n"
    assert (work / "env.txt").read_text() == "from-plan from-step\n"
    assert result.image_id is None
    assert result.artifacts == (tmp_path / "out" / "libx.a", tmp_path / "out" / "lib")
    assert (tmp_path / "out" / "libx.a").read_text() == "built\n"
    assert (tmp_path / "out" / "lib" / "libx.a").exists()
    log = result.log_path.read_text()
    assert "==> [2/3] already done: skipped" in log and "==> [3/3] build" in log


def test_a_failing_step_names_itself_its_exit_code_and_the_log(tmp_path):
    plan = _plan(
        tmp_path,
        [_sh("ok", "echo fine", tmp_path),
         _sh("compile", "for i in 1 2 3; do echo line $i; done; echo 'error: no such file' >&2; exit 4", tmp_path),
         _sh("never", "touch never-ran", tmp_path)],
    )
    with pytest.raises(StepFailed) as caught:
        execute_plan(plan)
    error = caught.value
    assert isinstance(error, BuildError) and error.exit_code == BuildError.exit_code and error.step_exit_code == 4
    assert "step 2/3 'compile'" in error.message and "exit code 4" in error.message
    assert "error: no such file" in error.message
    assert str(error.log_path) in error.hint and error.log_path.exists()
    assert error.tail[-2:] == ("line 3", "error: no such file")
    assert not (tmp_path / "never-ran").exists()


def test_a_missing_tool_and_a_missing_artifact_are_clear_errors(tmp_path):
    missing_tool = _plan(tmp_path, [Step("cc", ("tfbuild-no-such-compiler",), PurePosixPath(str(tmp_path)))])
    with pytest.raises(ToolchainError, match="tfbuild-no-such-compiler"):
        execute_plan(missing_tool)
    no_output = _plan(
        tmp_path, [_sh("build", "true", tmp_path)],
        artifacts=[Artifact(PurePosixPath(str(tmp_path / "nothing.a")), "nothing.a", "static-lib")],
    )
    with pytest.raises(BuildError, match="left no static-lib 'nothing.a'"):
        execute_plan(no_output)


def test_the_timeout_kills_a_local_step_and_its_children(tmp_path):
    plan = _plan(tmp_path, [_sh("hang", "sleep 60 & sleep 60; wait", tmp_path)])
    started = time.monotonic()
    with pytest.raises(CommandTimeout, match="'hang'"):
        execute_plan(plan, timeout=1.5)
    assert time.monotonic() - started < 20


# -- in a container ---------------------------------------------------------------------------------
@pytest.mark.docker
def test_a_container_plan_runs_in_one_container_and_cleans_up(tmp_path):
    base = require_base_image()
    # A toolchain is more than this test needs: the base image (which exists) runs sh.
    spec = ImageSpec(dockerfile="linux.Dockerfile", build_args={}, tag=base)
    src = tmp_path / "src"
    src.mkdir()
    plan = _plan(
        tmp_path,
        [_sh("state", "echo kept > /tmp/state", PurePosixPath("/src")),
         _sh("same container", 'cat /tmp/state > /src/seen; echo "$PLAN_VAR" >> /src/seen', PurePosixPath("/src")),
         _sh("fails", "echo last words; exit 3", PurePosixPath("/src"))],
        image=spec,
        mounts=[Mount(PurePosixPath("/src"), source=src)],
    )
    client = docker_client()
    before = {c.name for c in client.containers.list(all=True)}
    with pytest.raises(StepFailed, match="'fails' failed with exit code 3: last words"):
        execute_plan(plan)
    assert (src / "seen").read_text() == "kept\nfrom-plan\n"
    after = {c.name for c in client.containers.list(all=True)}
    assert not {name for name in after - before if name.startswith("tfbuild-test-target")}


# -- a failed step is tfbuild's exit code 7, quoting the step's own --------------------------------
@pytest.mark.parametrize("argv, quoted", [
    (("false",), "exit code 1"),
    (("sh", "-c", "tfbuild-no-such-tool --version"), "exit code 127 (command not found)"),
    (("sh", "-c", "sh -c 'kill -TERM $$'"), "exit code 143 (128 + SIGTERM: killed by a signal)"),
])
def test_a_failed_local_step_is_a_build_error_quoting_its_own_code(tmp_path, argv, quoted):
    plan = _plan(tmp_path, [Step("the step", argv, PurePosixPath(str(tmp_path)))])
    with pytest.raises(StepFailed) as caught:
        execute_plan(plan)
    assert caught.value.exit_code == BuildError.exit_code == 7
    assert f"build step 1/1 'the step' failed with {quoted}" in caught.value.message


def test_a_local_process_killed_by_a_signal_says_so(tmp_path):
    plan = _plan(tmp_path, [Step("python", ("python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"),
                                 PurePosixPath(str(tmp_path)))])
    with pytest.raises(StepFailed, match="failed with signal SIGKILL") as caught:
        execute_plan(plan)
    assert caught.value.exit_code == 7 and caught.value.step_exit_code == -9


def test_the_cli_exits_7_when_a_build_step_fails_with_127(tmp_path, monkeypatch, capsys):
    """The whole path a user sees: a real local step that exits 127 (a tool the shell cannot
    find) ends tfbuild with 7, its documented code for a failed build, not with 127."""
    import tfbuild.pipeline.run
    from tfbuild.cli import main

    def run_build(options, *, console=None):
        execute_plan(_plan(tmp_path, [_sh("compile", "tfbuild-no-such-compiler -c x.cc", tmp_path)]))

    monkeypatch.setattr(tfbuild.pipeline.run, "run_build", run_build)
    model = tmp_path / "ops.json"
    model.write_text('[["Const", "ConstantOp"]]')
    code = main(["build", "--target", "linux-x86_64", "--model", str(model), "--local", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 7, err
    assert "exit code 127 (command not found)" in err and "tfbuild-no-such-compiler" in err


def test_a_tool_missing_here_is_a_toolchain_error_before_the_step_runs(tmp_path):
    plan = _plan(tmp_path, [Step("cc", ("tfbuild-no-such-compiler", "-c", "x.cc"), PurePosixPath(str(tmp_path)))])
    with pytest.raises(ToolchainError, match="not found on this machine") as caught:
        execute_plan(plan)
    assert caught.value.exit_code == 6


# -- what the user sees: a CI log streams, a terminal shows a live line ----------------------------
@pytest.mark.parametrize("github", [False, True])
def test_redirected_output_streams_each_line_with_its_step_and_each_steps_time(tmp_path, monkeypatch, github):
    """Not a terminal (a CI log): every output line as it comes, prefixed with its step; each
    step's start and end with its duration; on GitHub Actions, each step in a ::group:: fold."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true" if github else "false")
    work = tmp_path / "work"
    work.mkdir()
    plan = _plan(tmp_path, [
        _sh("compile", "echo 'g++ -O2 -c tensorflow/core/kernels/a.cc -o a.o'; sleep 0.2; echo second", work),
        _sh("already there", "exit 9", work, skip_if_exists=PurePosixPath(str(work))),
        _sh("link", "echo linked", work),
    ])
    text = io.StringIO()
    execute_plan(plan, console=Console(file=text, force_terminal=False, width=300))
    lines = text.getvalue().splitlines()
    opened = "::group::[1/3] compile" if github else "==> [1/3] compile"
    first_line = "[1/3] g++ -O2 -c tensorflow/core/kernels/a.cc -o a.o"
    assert lines[:3] == [opened, first_line, "[1/3] second"]
    assert re.fullmatch(r"<== \[1/3\] compile: done in 0\.[2-9]s|<== \[1/3\] compile: done in \d+\.\ds", lines[3])
    assert "<== [2/3] already there: skipped" in lines
    assert "[3/3] linked" in lines
    assert (lines.count("::endgroup::") == 2) is github  # the skipped step opened no fold
    assert (tmp_path / "out" / "test-target.build.log").read_text().splitlines().count("second") == 1


def test_quiet_keeps_only_the_steps_and_a_failure_says_so(tmp_path, monkeypatch):
    from tfbuild import log as verbosity

    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    monkeypatch.setattr(verbosity, "_setting", {"level": verbosity.QUIET})
    work = tmp_path / "work"
    work.mkdir()
    plan = _plan(tmp_path, [_sh("noisy", "echo chatter; exit 3", work)])
    text = io.StringIO()
    with pytest.raises(StepFailed):
        execute_plan(plan, console=Console(file=text, force_terminal=False, width=300))
    lines = text.getvalue().splitlines()
    assert lines[0] == "==> [1/1] noisy" and re.fullmatch(r"<== \[1/1\] noisy: failed \(exit 3\) in \d+\.\ds", lines[1])
    assert "chatter" not in text.getvalue()
    assert "chatter" in (tmp_path / "out" / "test-target.build.log").read_text()


def test_a_labelled_plan_numbers_its_steps_under_its_label(tmp_path, monkeypatch):
    """verify runs the reference's plan, then the target's: each numbers its own steps, and the
    label says whose they are, so "[1/1]" then "[1/2]" no longer reads as one count restarting."""
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    work = tmp_path / "work"
    work.mkdir()
    text = io.StringIO()
    console = Console(file=text, force_terminal=False, width=300)
    execute_plan(_plan(tmp_path, [_sh("model", "echo ran", work)]), console=console, label="reference")
    execute_plan(_plan(tmp_path, [_sh("compile", "true", work), _sh("model", "echo ran", work)]), console=console,
                 label="target")
    starts = [line for line in text.getvalue().splitlines() if line.startswith("==> ")]
    assert starts == ["==> [reference 1/1] model", "==> [target 1/2] compile", "==> [target 2/2] model"]
    assert "[target 2/2] ran" in text.getvalue()


# A Makefile shaped like the contrib Makefile's object rules: one compiler line per object.
THREE_OBJECTS_MAKEFILE = """\
OBJS := a.o b.o c.o
all: $(OBJS)
%.o: %.c
\tsleep 0.3; cc -c $< -o $@
"""


def _make_step(work: Path) -> Step:
    (work / "Makefile").write_text(THREE_OBJECTS_MAKEFILE)
    for name in "abc":
        (work / f"{name}.c").write_text(f"int {name}(void) {{ return 1; }}\n")
    return Step("build", ("make", "-f", "Makefile"), PurePosixPath(str(work)), dry_run=("-n",))


def test_a_dry_run_gives_the_step_its_object_total_in_the_ci_log(tmp_path, monkeypatch):
    """Real make: its -n run counts the compiler lines first, so the log says how many objects
    the step will compile before the first one, and the objects are then built for real."""
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    work = tmp_path / "work"
    work.mkdir()
    text = io.StringIO()
    execute_plan(_plan(tmp_path, [_make_step(work)]), console=Console(file=text, force_terminal=False, width=300))
    lines = text.getvalue().splitlines()
    assert lines[:2] == ["==> [1/1] build", "[1/1] 3 objects to compile"]
    assert sum(" -c " in line for line in lines) == 3
    assert all((work / f"{name}.o").exists() for name in "abc")
    log = (tmp_path / "out" / "test-target.build.log").read_text()
    assert "3 objects to compile (make -n)" in log


def test_a_terminal_shows_objects_compiled_out_of_the_total(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    step = _make_step(work)
    time.sleep(0.05)
    (work / "a.o").write_text("")  # newer than a.c, so built already: make -n counts only what is left
    text = io.StringIO()
    execute_plan(_plan(tmp_path, [step]), console=Console(file=text, force_terminal=True, width=200))
    assert "2/2 objects" in text.getvalue()
    assert re.search(r"[01]/2 objects", text.getvalue())  # counted up while the step ran


def test_a_failing_dry_run_leaves_the_total_unknown_and_the_step_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    work = tmp_path / "work"
    work.mkdir()
    step = _sh("build", "echo 'cc -c a.c -o a.o'", work, dry_run=("-c", "exit 2"))
    text = io.StringIO()
    execute_plan(_plan(tmp_path, [step]), console=Console(file=text, force_terminal=False, width=300))
    assert "objects to compile" not in text.getvalue()
    assert "[1/1] cc -c a.c -o a.o" in text.getvalue()
