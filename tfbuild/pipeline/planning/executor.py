"""Running a :class:`~tfbuild.pipeline.planning.plan.BuildPlan`: the only module that executes one.

The plan already says everything (image, mounts, commands, generated files, artifacts); this
module writes the generated files, makes sure the toolchain image exists, runs every step in
ONE container (so state such as a configured tree or a warm Bazel server carries from step to
step) or, for ``--local`` plans (``plan.image is None``), as plain processes on this machine,
and copies the artifacts out. A step tfbuild does itself (the protobuf rename: its
:attr:`~tfbuild.pipeline.planning.plan.Step.host_action`) runs in this process, on this machine, between
the others. Steps run in order; neighbouring steps marked ``parallel`` (one compile per source)
run together, up to ``jobs`` at once. Every output line goes to a log file
beside the artifacts (and to the step's own log, if it has one); the terminal shows only
"step i/n" and the latest line. A failing step becomes a :class:`StepFailed` naming the step,
its exit code, the log, and the last lines it printed; like every :class:`BuildError` it exits
tfbuild with code 7 whatever the step's own code was (that is quoted in the message, and kept
as ``step_exit_code``), so a step's 127 never reads as one of tfbuild's own exit codes. A tool
missing on this machine for a ``--local`` step is a :class:`ToolchainError` before it runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Protocol, TextIO

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from tfbuild.errors import BuildError, CommandTimeout, ToolchainError
from tfbuild.fileio import atomic_write_text
from tfbuild.kill_timer import KillTimer
from tfbuild.log import Logger
from tfbuild.pipeline.planning.plan import Artifact, BuildPlan, ImageSpec, Step
from tfbuild.stop_signals import deferred
from tfbuild.toolchain.debian_packages import install_hint

if TYPE_CHECKING:
    from tfbuild.toolchain.container import BuildContainer

TAIL_LINES = 20
DRY_RUN_SECONDS = 120.0
"""How long a step's dry run (:attr:`Step.dry_run`) may take before the step starts without a total."""
LineFn = Callable[[str], None]


_ERROR_LINE = re.compile(r"(?:^|[\s:])(?:fatal )?error: |undefined reference to |\bundefined symbol: ")
"""A compiler's or linker's error line (``x.cc:3:1: error:``, ``ld.lld: error: undefined symbol:``,
``ld: x.o: undefined reference to``), not make's ``*** Waiting for unfinished jobs`` or its
``Error 1``: the first one says why a step failed, the last line rarely does."""
THREAD_ATEXIT_HINT = (
    "__cxa_thread_atexit_impl is in bionic only from API level 23: this NDK's libc++abi.a references it "
    "strongly (a real NDK r14+ references it weakly), so use a real NDK or an API level of 23 or later"
)


def first_error_line(line: str) -> bool:
    """Whether ``line`` is a compiler's or linker's error (see :data:`_ERROR_LINE`)."""
    return _ERROR_LINE.search(line) is not None and not line.lstrip().startswith(("make", "make["))


@dataclass(frozen=True)
class ExecutionResult:
    """What a finished build left behind."""

    artifacts: tuple[Path, ...]  # in plan.output_dir, in the plan's artifact order
    image_id: str | None  # None for --local builds
    log_path: Path


class StepFailed(BuildError):
    """A build step exited non-zero. Keeps the details for callers that show more than one line.

    Its ``exit_code`` is :class:`BuildError`'s (tfbuild's own code for a failed build); the
    step's code is ``step_exit_code``."""

    def __init__(
        self, step: Step, index: int, total: int, step_exit_code: int, log_path: Path, tail: tuple[str, ...],
        first_error: str | None = None,
    ) -> None:
        last = next((line for line in reversed(tail) if line.strip()), "no output")
        quoted = (first_error or last).strip()[:300]
        hint = f"full log: {log_path}"
        if first_error is not None and "__cxa_thread_atexit_impl" in first_error:
            hint = f"{THREAD_ATEXIT_HINT}; {hint}"
        super().__init__(
            f"build step {index}/{total} '{step.name}' failed with {describe_exit(step_exit_code)}: {quoted}",
            hint=hint,
        )
        self.step = step
        self.step_exit_code = step_exit_code
        self.log_path = log_path
        self.tail = tail


def _write_if_changed(path: Path, content: str) -> None:
    """Write a generated file unless it already holds ``content``: its mtime is what make and
    Bazel see, so an unchanged header must not make every kernel file look out of date."""
    try:
        if path.read_text(encoding="utf-8") == content:
            return
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write_text(path, content)


def describe_exit(code: int) -> str:
    """A step's exit status as a message quotes it: ``exit code 127 (command not found)``."""
    if code < 0:  # a local process ended by a signal
        return f"signal {_signal_name(-code)}"
    meaning = {126: "command not executable", 127: "command not found"}.get(code)
    if meaning is None and code > 128:
        meaning = f"128 + {_signal_name(code - 128)}: killed by a signal"
    return f"exit code {code} ({meaning})" if meaning else f"exit code {code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def execute_plan(
    plan: BuildPlan, *, console: Console | None = None, timeout: float | None = None, jobs: int | None = None,
    label: str | None = None,
) -> ExecutionResult:
    """Run ``plan`` and return its artifacts (copied into ``plan.output_dir``).

    ``console``: where to show progress (none when not given); ``timeout``: seconds for the
    whole build, after which the running step is killed and :class:`CommandTimeout` raised;
    ``jobs``: how many parallel steps run at once (default: one per core); ``label``: what the
    plan is when a command runs several (``verify``: ``[reference 1/1]``, then ``[target 1/2]``),
    so their step numbers do not read as one count that starts again.
    """
    plan.output_dir.mkdir(parents=True, exist_ok=True)
    for generated in plan.generated_files:
        _write_if_changed(generated.path, generated.content)
    log_path = plan.output_dir / f"{_safe_name(plan.target)}.build.log"
    with ExitStack() as stack:
        log = stack.enter_context(_BuildLog(log_path))
        progress = stack.enter_context(_StepProgress(console, len(plan.steps), plan.target, label=label))
        image_id = None
        runner: _Runner
        if plan.image is None:
            runner = _LocalRunner({**plan.env, **plan.secret_env})
        else:
            image_id, box = _start_container(plan, plan.image, stack, log, progress)
            runner = _ContainerRunner(box)
        steps = _StepRunner(runner, log, progress, _Deadline(timeout), total=len(plan.steps))
        steps.run_all(plan.steps, jobs=jobs or os.cpu_count() or 1)
        artifacts = tuple(_collect(artifact, runner, plan.output_dir) for artifact in plan.artifacts)
    return ExecutionResult(artifacts=artifacts, image_id=image_id, log_path=log_path)


def _start_container(
    plan: BuildPlan, image: ImageSpec, stack: ExitStack, log: _BuildLog, progress: _StepProgress
) -> tuple[str, BuildContainer]:
    """Make sure the toolchain image exists and start the build's one container in ``stack``."""
    # The docker SDK: only for plans that run in a container.
    from tfbuild.toolchain.container import BuildContainer, ContainerConfig
    from tfbuild.toolchain.images import ensure_image

    progress.note(f"toolchain image {image.tag}")

    def image_log(line: str) -> None:
        log.write(line)
        progress.last(line)

    image_id = ensure_image(image, log=image_log).image_id
    config = ContainerConfig(
        image=image.tag, mounts=plan.mounts, env={**plan.env, **plan.secret_env}, name_hint=plan.target,
        network=plan.network or "bridge",
    )
    return image_id, stack.enter_context(BuildContainer(config))


def _collect(artifact: Artifact, runner: _Runner, output_dir: Path) -> Path:
    if not runner.exists(artifact.path):
        raise BuildError(
            f"{artifact.path}: the build finished but left no {artifact.kind} '{artifact.name}'",
            hint="the plan's artifact path and its build steps disagree; see the build log",
        )
    return runner.copy_out(artifact.path, output_dir / artifact.name)


# -- steps -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Finished:
    """A step that ran (``code``) or was skipped (``code`` None), with its output."""

    index: int
    step: Step
    code: int | None
    output: _StepOutput | None


class _StepRunner:
    """Runs a plan's steps on one runner, writing the build log and showing progress."""

    def __init__(
        self, runner: _Runner, log: _BuildLog, progress: _StepProgress, deadline: _Deadline, *, total: int
    ) -> None:
        self._runner = runner
        self._log = log
        self._progress = progress
        self._deadline = deadline
        self._total = total

    def run_all(self, steps: tuple[Step, ...], *, jobs: int) -> None:
        for batch in _batches(steps):
            if len(batch) == 1:
                self._run_streaming(*batch[0])
            else:
                self._run_parallel(batch, jobs)

    def _run_streaming(self, index: int, step: Step) -> None:
        """One step, its output written to the build log as it comes."""
        if self._skip(step):
            self._log.write(self._skipped(index, step))
            self._progress.end(index, step.name, "skipped")
            return
        self._progress.start(index, step.name)
        self._log.write(self._header(index, step))
        if step.dry_run:
            self._count_objects(index, step)
        output = _StepOutput(index, step, self._progress, self._log)
        code = self._run(step, output.line)
        output.save()
        self._progress.end(index, step.name, "done" if code == 0 else f"failed (exit {code})")
        self._check(_Finished(index, step, code, output))

    def _run(self, step: Step, on_line: LineFn) -> int:
        """Run ``step`` on the runner, or a step tfbuild does itself (:attr:`Step.host_action`)
        here, in this process: its error is the build's."""
        if step.host_action is None:
            return self._runner.run(step, on_line, self._deadline.remaining())
        for line in step.host_action.run():
            on_line(line)
        return 0

    def _count_objects(self, index: int, step: Step) -> None:
        """Run the step's dry run and tell the progress how many objects the step will compile.
        A dry run that fails or counts nothing only leaves the total unknown: the step itself
        reports what is wrong."""
        count = 0

        def counted(line: str) -> None:
            nonlocal count
            count += bool(_COMPILE.search(line))

        argv = (step.argv[0], *step.dry_run, *step.argv[1:])
        dry = Step(f"{step.name} (dry run)", argv, step.workdir, env=step.env)
        remaining = self._deadline.remaining()
        timeout = DRY_RUN_SECONDS if remaining is None else min(remaining, DRY_RUN_SECONDS)
        try:
            code = self._runner.run(dry, counted, timeout)
        except CommandTimeout:
            return
        if code == 0 and count:
            self._log.write(f"    {count} objects to compile ({' '.join(argv[:1 + len(step.dry_run)])})")
            self._progress.expect(index, count)

    def _run_parallel(self, batch: list[tuple[int, Step]], jobs: int) -> None:
        """Steps that may run together: each one's output is written to the build log in one
        piece when it ends; all of them finish before the first failure (in plan order) is raised."""
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(batch)))) as pool:
            futures = [pool.submit(self._run_buffered, index, step) for index, step in batch]
            try:
                for future in as_completed(futures):
                    if future.exception() is None:
                        self._write(future.result())
            except BaseException:  # Ctrl-C: stop the steps still running, start no more
                pool.shutdown(wait=False, cancel_futures=True)
                self._runner.abort()
                raise
        for future in futures:
            self._check(future.result())

    def _run_buffered(self, index: int, step: Step) -> _Finished:
        if self._skip(step):
            self._progress.end(index, step.name, "skipped")
            return _Finished(index, step, None, None)
        self._progress.start(index, step.name)
        output = _StepOutput(index, step, self._progress, None)
        code = self._run(step, output.line)
        output.save()
        self._progress.end(index, step.name, "done" if code == 0 else f"failed (exit {code})")
        return _Finished(index, step, code, output)

    def _write(self, finished: _Finished) -> None:
        index, step, output = finished.index, finished.step, finished.output
        if output is None:
            self._log.write(self._skipped(index, step))
            return
        self._log.write(self._header(index, step))
        for line in output.lines or ():
            self._log.write(line)

    def _check(self, finished: _Finished) -> None:
        """Raise :class:`StepFailed` for a step that exited non-zero."""
        index, step, code, output = finished.index, finished.step, finished.code, finished.output
        if code is None or code == 0 or output is None:
            return
        self._log.write(f"==> [{index}/{self._total}] {step.name}: exit code {code}")
        raise StepFailed(step, index, self._total, code, self._log.path, tuple(output.tail), output.first_error)

    def _skip(self, step: Step) -> bool:
        return step.skip_if_exists is not None and self._runner.exists(step.skip_if_exists)

    def _skipped(self, index: int, step: Step) -> str:
        return f"==> [{index}/{self._total}] {step.name}: skipped, {step.skip_if_exists} exists"

    def _header(self, index: int, step: Step) -> str:
        """The step's first log line, and its notes (the fix-ups it carries) under it."""
        header = f"==> [{index}/{self._total}] {step.name}: {' '.join(step.argv)}  (in {step.workdir})"
        return "\n".join((header, *(f"    {note}" for note in step.notes)))


def _batches(steps: tuple[Step, ...]) -> list[list[tuple[int, Step]]]:
    """The steps (numbered from 1) in runs: each parallel run together, every other step alone."""
    batches: list[list[tuple[int, Step]]] = []
    for index, step in enumerate(steps, start=1):
        if step.parallel and batches and batches[-1][-1][1].parallel:
            batches[-1].append((index, step))
        else:
            batches.append([(index, step)])
    return batches


class _StepOutput:
    """One step's output: shown as the latest line, its last lines kept for the error message,
    and written to the build log as it comes (``log``) or kept whole for later (``log`` None),
    as it is when the step keeps its own log."""

    def __init__(self, index: int, step: Step, progress: _StepProgress, log: _BuildLog | None) -> None:
        self._index = index
        self._step = step
        self._progress = progress
        self._log = log
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.lines: list[str] | None = [] if log is None or step.log is not None else None
        self.first_error: str | None = None
        """The step's first compiler or linker error line, quoted when the step fails."""

    def line(self, line: str) -> None:
        if self.first_error is None and first_error_line(line):
            self.first_error = line
        if self._log is not None:
            self._log.write(line)
        if self.lines is not None:
            self.lines.append(line)
        self._progress.line(self._index, line)
        self.tail.append(line)

    def save(self) -> None:
        """Write the step's own log, if it keeps one."""
        if self._step.log is not None and self.lines is not None:
            atomic_write_text(self._step.log, "".join(f"{line}\n" for line in self.lines))


# -- runners ---------------------------------------------------------------------------------------
class _Runner(Protocol):
    def exists(self, path: PurePosixPath) -> bool: ...
    def run(self, step: Step, on_line: LineFn, timeout: float | None) -> int: ...
    def copy_out(self, path: PurePosixPath, destination: Path) -> Path: ...
    def abort(self) -> None:
        """Kill what runs now and refuse to run more (called from another thread)."""


class _ContainerRunner:
    def __init__(self, box: BuildContainer) -> None:
        self._box = box

    def exists(self, path: PurePosixPath) -> bool:
        return self._box.exists(path)

    def run(self, step: Step, on_line: LineFn, timeout: float | None) -> int:
        return self._box.run(step.argv, workdir=step.workdir, env=step.env, on_line=on_line, timeout=timeout)

    def copy_out(self, path: PurePosixPath, destination: Path) -> Path:
        return self._box.copy_out(path, destination)

    def abort(self) -> None:
        self._box.kill()


class _LocalRunner:
    """``--local``: the same steps as processes here; plan paths are host paths."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._aborted = False

    def exists(self, path: PurePosixPath) -> bool:
        return Path(path).exists()

    def run(self, step: Step, on_line: LineFn, timeout: float | None) -> int:
        process = self._start(step)
        try:
            with KillTimer(timeout, lambda: _kill_group(process)) as timer:
                assert process.stdout is not None
                for raw in process.stdout:
                    on_line(raw.decode("utf-8", "replace").rstrip("\r\n"))
                code = process.wait()
        finally:
            if process.poll() is None:  # exception or Ctrl-C while reading
                _kill_group(process)
            with self._lock:
                self._running.discard(process)
        if timer.fired:
            raise CommandTimeout(
                f"step '{step.name}' ran past the build's time limit and was killed",
                hint="raise the timeout, or look at the build log for the step that hangs",
            )
        return code

    def _start(self, step: Step) -> subprocess.Popen[bytes]:
        env = {**os.environ, **self._env, **step.env}
        with self._lock:
            if self._aborted:
                raise BuildError(f"step '{step.name}' was not started: the build was stopped")
            try:
                process = subprocess.Popen(
                    list(step.argv), cwd=Path(step.workdir), env=env, stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                )
            except FileNotFoundError:
                raise ToolchainError(
                    f"{step.argv[0]}: not found on this machine (step '{step.name}')",
                    hint=install_hint(step.argv[0]),
                ) from None
            except NotADirectoryError:
                raise BuildError(f"{step.workdir}: working directory of step '{step.name}' is missing") from None
            self._running.add(process)
        return process

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            running = list(self._running)
        for process in running:
            _kill_group(process)

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


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the step's process group (make and every compiler it started: the step runs in a
    session of its own) and wait for its leader; a second stop signal waits for this."""
    with deferred():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# -- time, log, progress ---------------------------------------------------------------------------
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
    """What the user sees of a running plan, on ``console`` (none: nothing), through the one
    :class:`~tfbuild.log.Logger`.

    On a terminal, a live line: the target, ``[i/n]`` and the current step, the time elapsed, the
    objects compiled so far (compiler command lines seen) and the latest output line; each step
    that ends leaves its end line above it. Elsewhere (a CI log) the output streams: the step's
    start, each output line prefixed with ``[i/n]``, its end with the duration, in a
    ``::group::`` fold on GitHub Actions. The full output always goes to the build log as well.
    """

    def __init__(self, console: Console | None, total: int, target: str, *, github: bool | None = None,
                 label: str | None = None) -> None:
        self._log = Logger(console, github=github)
        self._total = total
        self._label = f"{label} " if label else ""
        self._target = target
        self._lock = threading.Lock()
        self._started: dict[int, tuple[str, float]] = {}
        self._objects = 0
        self._expected: int | None = None
        self._live: tuple[Progress, TaskID] | None = None
        if console is not None and console.is_terminal:
            progress = Progress(
                SpinnerColumn(),
                TextColumn("[bold]{task.description}"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[objects]}"),
                TextColumn("[dim]{task.fields[last]}"),
                console=console,
                transient=True,
            )
            self._live = (progress, progress.add_task(target, total=total, last="", objects=""))

    def __enter__(self) -> _StepProgress:
        if self._live is not None:
            self._live[0].start()
        return self

    def __exit__(self, exc_type: object, *exc_info: object) -> None:
        for index in sorted(self._started):  # a step cut short by a failure elsewhere, or Ctrl-C
            self.end(index, self._started[index][0], "stopped" if exc_type is not None else "done")
        if self._live is not None:
            self._live[0].stop()

    def _position(self, index: int) -> str:
        return f"[{self._label}{index}/{self._total}]"

    def _name(self, index: int, name: str) -> str:
        return f"{self._position(index)} {name}"

    def start(self, index: int, name: str) -> None:
        with self._lock:
            self._started[index] = (name, time.monotonic())
            if self._live is not None:
                progress, task = self._live
                progress.update(task, completed=index - 1, description=f"{self._target} {self._name(index, name)}",
                                last="")
        self._log.start(self._name(index, name))

    def line(self, index: int, line: str) -> None:
        with self._lock:
            if _COMPILE.search(line):
                self._objects += 1
            if self._live is not None:
                progress, task = self._live
                progress.update(task, last=line.strip()[:100], objects=self._objects_text())
        self._log.line(self._position(index) if index else "", line)

    def expect(self, index: int, count: int) -> None:
        """Step ``index`` will compile ``count`` objects (its dry run said so)."""
        with self._lock:
            self._expected = self._objects + count
            if self._live is not None:
                progress, task = self._live
                progress.update(task, objects=self._objects_text())
        self._log.line(self._position(index), f"{count} objects to compile")

    def _objects_text(self) -> str:
        if self._expected is not None:
            return f"{min(self._objects, self._expected)}/{self._expected} objects"
        return f"{self._objects} objects" if self._objects else ""

    def end(self, index: int, name: str, outcome: str) -> None:
        """Step ``index`` finished: ``done``, ``failed (exit N)``, ``skipped``, ``stopped``."""
        with self._lock:
            started = self._started.pop(index, None)
        seconds = time.monotonic() - started[1] if started is not None else None
        self._log.end(self._name(index, name), outcome, seconds)

    def note(self, text: str) -> None:
        if self._live is not None:
            progress, task = self._live
            progress.update(task, description=f"{self._target}: {text}")
        else:
            self._log.line("==>", text)

    def last(self, line: str) -> None:
        """A line outside any step (the toolchain image being built)."""
        self.line(0, line)


_COMPILE = re.compile(r"(?:^|\s)-c\s+\S+\.(?:cc|cpp|c)\b")
"""A compiler command line in a build's output: one object being compiled."""


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "build"
