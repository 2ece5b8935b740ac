"""Running a :class:`~tfbuild.build.plan.BuildPlan`: the only module that executes one.

The plan already says everything (image, mounts, commands, generated files, artifacts); this
module writes the generated files, makes sure the toolchain image exists, runs every step in
ONE container (so state such as a configured tree or a warm Bazel server carries from step to
step) or, for ``--local`` plans (``plan.image is None``), as plain processes on this machine,
and copies the artifacts out. Every output line goes to a log file beside the artifacts; the
terminal shows only "step i/n" and the latest line. A failing step becomes a
:class:`StepFailed` naming the step, its exit code, the log, and the last lines it printed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol, TextIO

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from tfbuild.build.plan import Artifact, BuildPlan, Step
from tfbuild.errors import BuildError, ToolchainError
from tfbuild.fileio import atomic_write_text
from tfbuild.toolchain.container import BuildContainer, CommandTimeout, ContainerConfig
from tfbuild.toolchain.images import ensure_image

TAIL_LINES = 20
LineFn = Callable[[str], None]


@dataclass(frozen=True)
class ExecutionResult:
    """What a finished build left behind."""

    artifacts: tuple[Path, ...]  # in plan.output_dir, in the plan's artifact order
    image_id: str | None  # None for --local builds
    log_path: Path


class StepFailed(BuildError):
    """A build step exited non-zero. Keeps the details for callers that show more than one line."""

    def __init__(self, step: Step, index: int, total: int, exit_code: int, log_path: Path, tail: tuple[str, ...]):
        last = next((line for line in reversed(tail) if line.strip()), "no output")
        super().__init__(
            f"build step {index}/{total} '{step.name}' failed with exit code {exit_code}: {last.strip()[:300]}",
            hint=f"full log: {log_path}",
        )
        self.step = step
        self.exit_code = exit_code
        self.log_path = log_path
        self.tail = tail


def execute_plan(plan: BuildPlan, *, console: Console | None = None, timeout: float | None = None) -> ExecutionResult:
    """Run ``plan`` and return its artifacts (copied into ``plan.output_dir``).

    ``console``: where to show progress (none when not given); ``timeout``: seconds for the
    whole build, after which the running step is killed and :class:`CommandTimeout` raised.
    """
    plan.output_dir.mkdir(parents=True, exist_ok=True)
    for generated in plan.generated_files:
        atomic_write_text(generated.path, generated.content)
    log_path = plan.output_dir / f"{_safe_name(plan.target)}.build.log"
    deadline = _Deadline(timeout)
    with ExitStack() as stack:
        log = stack.enter_context(_BuildLog(log_path))
        progress = stack.enter_context(_StepProgress(console, len(plan.steps), plan.target))
        image_id = None
        if plan.image is None:
            runner: _Runner = _LocalRunner(plan.env)
        else:
            progress.note(f"toolchain image {plan.image.tag}")

            def image_log(line: str) -> None:
                log.write(line)
                progress.last(line)

            image = ensure_image(plan.image, log=image_log)
            image_id = image.image_id
            config = ContainerConfig(
                image=plan.image.tag, mounts=plan.mounts, env=dict(plan.env), name_hint=plan.target
            )
            runner = _ContainerRunner(stack.enter_context(BuildContainer(config)))
        _run_steps(plan.steps, runner, log, progress, deadline)
        artifacts = tuple(_collect(artifact, runner, plan.output_dir) for artifact in plan.artifacts)
    return ExecutionResult(artifacts=artifacts, image_id=image_id, log_path=log_path)


def _run_steps(
    steps: tuple[Step, ...], runner: _Runner, log: _BuildLog, progress: _StepProgress, deadline: _Deadline
) -> None:
    total = len(steps)
    for index, step in enumerate(steps, start=1):
        progress.start(index, step.name)
        if step.skip_if_exists is not None and runner.exists(step.skip_if_exists):
            log.write(f"==> [{index}/{total}] {step.name}: skipped, {step.skip_if_exists} exists")
            continue
        log.write(f"==> [{index}/{total}] {step.name}: {' '.join(step.argv)}  (in {step.workdir})")
        tail: list[str] = []

        def on_line(line: str) -> None:
            log.write(line)
            progress.last(line)
            tail.append(line)
            del tail[:-TAIL_LINES]

        code = runner.run(step, on_line, deadline.remaining())
        if code != 0:
            log.write(f"==> [{index}/{total}] {step.name}: exit code {code}")
            raise StepFailed(step, index, total, code, log.path, tuple(tail))


def _collect(artifact: Artifact, runner: _Runner, output_dir: Path) -> Path:
    if not runner.exists(artifact.path):
        raise BuildError(
            f"{artifact.path}: the build finished but left no {artifact.kind} '{artifact.name}'",
            hint="the plan's artifact path and its build steps disagree; see the build log",
        )
    return runner.copy_out(artifact.path, output_dir / artifact.name)


class _Runner(Protocol):
    def exists(self, path: PurePosixPath) -> bool: ...
    def run(self, step: Step, on_line: LineFn, timeout: float | None) -> int: ...
    def copy_out(self, path: PurePosixPath, destination: Path) -> Path: ...


class _ContainerRunner:
    def __init__(self, box: BuildContainer) -> None:
        self._box = box

    def exists(self, path: PurePosixPath) -> bool:
        return self._box.exists(path)

    def run(self, step: Step, on_line: LineFn, timeout: float | None) -> int:
        return self._box.run(step.argv, workdir=step.workdir, env=step.env, on_line=on_line, timeout=timeout)

    def copy_out(self, path: PurePosixPath, destination: Path) -> Path:
        return self._box.copy_out(path, destination)


class _LocalRunner:
    """``--local``: the same steps as processes here; plan paths are host paths."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)

    def exists(self, path: PurePosixPath) -> bool:
        return Path(path).exists()

    def run(self, step: Step, on_line: LineFn, timeout: float | None) -> int:
        env = {**os.environ, **self._env, **step.env}
        try:
            process = subprocess.Popen(
                list(step.argv), cwd=Path(step.workdir), env=env, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            )
        except FileNotFoundError:
            raise ToolchainError(
                f"{step.argv[0]}: not found on this machine (step '{step.name}')",
                hint="install it, or build in the toolchain container (drop --local)",
            ) from None
        except NotADirectoryError:
            raise BuildError(f"{step.workdir}: working directory of step '{step.name}' is missing") from None
        fired = threading.Event()

        def kill() -> None:
            fired.set()
            _kill_group(process)

        timer = threading.Timer(timeout, kill) if timeout is not None else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            assert process.stdout is not None
            for raw in process.stdout:
                on_line(raw.decode("utf-8", "replace").rstrip("\r\n"))
            code = process.wait()
        finally:
            if timer is not None:
                timer.cancel()
            if process.poll() is None:  # exception or Ctrl-C while reading
                _kill_group(process)
        if fired.is_set():
            raise CommandTimeout(
                f"step '{step.name}' ran past the build's time limit and was killed",
                hint="raise the timeout, or look at the build log for the step that hangs",
            )
        return code

    def copy_out(self, path: PurePosixPath, destination: Path) -> Path:
        source = Path(path)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.resolve() == destination.resolve():
            return destination
        with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".tfbuild-copy-") as scratch:
            staged = Path(scratch) / destination.name
            if source.is_dir():
                shutil.copytree(source, staged, symlinks=True)
                if destination.is_dir():
                    shutil.rmtree(destination)
            else:
                shutil.copy2(source, staged)
            os.replace(staged, destination)
        return destination


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


class _Deadline:
    def __init__(self, seconds: float | None) -> None:
        self._end = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        return None if self._end is None else max(0.001, self._end - time.monotonic())


class _BuildLog:
    """The build's full output, written as it arrives (a log is a stream, not a result file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: TextIO | None = None

    def __enter__(self) -> _BuildLog:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "w", encoding="utf-8", buffering=1)
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._handle is not None
        self._handle.close()

    def write(self, line: str) -> None:
        assert self._handle is not None
        self._handle.write(line + "\n")


class _StepProgress:
    """``[i/n] step name`` and the latest output line on the console, if there is one."""

    def __init__(self, console: Console | None, total: int, target: str) -> None:
        self._progress = (
            Progress(
                SpinnerColumn(),
                TextColumn("[bold]{task.description}"),
                TimeElapsedColumn(),
                TextColumn("[dim]{task.fields[last]}"),
                console=console,
                transient=True,
            )
            if console is not None
            else None
        )
        self._console = console
        self._total = total
        self._target = target
        self._task = None

    def __enter__(self) -> _StepProgress:
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task(self._target, total=self._total, last="")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def start(self, index: int, name: str) -> None:
        if self._progress is not None:
            self._progress.update(
                self._task, completed=index - 1, description=f"{self._target} [{index}/{self._total}] {name}", last=""
            )

    def note(self, text: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=f"{self._target}: {text}")

    def last(self, line: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, last=line.strip()[:100])


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "build"
