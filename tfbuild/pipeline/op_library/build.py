"""Running an :class:`~tfbuild.pipeline.op_library.compile_plan.OpsLibraryPlan` on this machine.

The plan is made by :mod:`tfbuild.pipeline.op_library.compile_plan`; this module only runs it, through the
executor, and turns a failed compile or link into the one line a user needs (the failing source
and its first compiler error).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tfbuild.errors import BuildError, InputFileError, ToolchainError
from tfbuild.fileio import sha256_file
from tfbuild.pipeline.op_library.compile_plan import OpsLibraryPlan
from tfbuild.pipeline.planning.executor import StepFailed, execute_plan

if TYPE_CHECKING:
    from rich.console import Console

_ERROR_LINE = re.compile(r":\d+(:\d+)?: (fatal )?error: ")
_MAX_ERROR_CHARS = 400


@dataclass(frozen=True)
class OpsLibraryResult:
    """A built library: where it is, how big, and its digest."""

    path: Path
    size_bytes: int
    sha256: str
    plan: OpsLibraryPlan



def build_ops_library(
    plan: OpsLibraryPlan,
    *,
    jobs: int | None = None,
    console: Console | None = None,
    timeout: float | None = None,
) -> OpsLibraryResult:
    """Run ``plan`` on this machine through the executor: compile the sources (up to ``jobs`` at
    once), link or archive them, and move the library into place. ``console`` shows progress;
    past ``timeout`` seconds the build is killed (:class:`~tfbuild.errors.CommandTimeout`).

    Raises :class:`ToolchainError` when a tool is missing, :class:`InputFileError` for a missing
    source and :class:`BuildError` naming the failing source and its first compiler error.
    """
    _check_tools(plan.tools)
    for step in plan.compile_steps:
        if not step.source.is_file():
            raise InputFileError(f"{step.source}: op source file not found", hint="check the path")
    for step in plan.compile_steps:
        step.object_file.unlink(missing_ok=True)  # a failed compile must not leave an old object
    plan.output.parent.mkdir(parents=True, exist_ok=True)
    try:
        execute_plan(plan.host_plan(Path.cwd()), console=console, timeout=timeout, jobs=jobs)
    except StepFailed as failed:
        explained = _explain(plan, failed)
        if explained is None:
            raise
        raise explained from failed
    finally:
        plan.staging_output.unlink(missing_ok=True)
    return OpsLibraryResult(
        path=plan.output,
        size_bytes=plan.output.stat().st_size,
        sha256=sha256_file(plan.output),
        plan=plan,
    )


def _check_tools(tools: tuple[str, ...]) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            raise ToolchainError(
                f"{tool}: compiler tool not found on PATH",
                hint="install it (Debian: apt-get install g++ binutils) or name another compiler",
            )


def _explain(plan: OpsLibraryPlan, failed: StepFailed) -> BuildError | None:
    """A failed compile as its source and first compiler error, a failed link or archive as the
    library and the tool's reason; None for the other steps."""
    log = failed.step.log
    if log is None:
        return None
    output = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else "\n".join(failed.tail)
    for step in plan.compile_steps:
        if step.log == log:
            # The message names the source already; its path need not be repeated in full.
            error = first_error_line(output).replace(f"{step.source}:", f"{step.source.name}:", 1)
            return BuildError(
                f"{step.source}: compiling failed: {error}",
                hint=f"full compiler output in {step.log}",
            )
    if log == plan.link_log:
        what = "linking" if plan.kind == "shared" else "archiving"
        return BuildError(
            f"{plan.output}: {what} failed: {first_error_line(output)}",
            hint=f"command: {' '.join(plan.link_argv)}",
        )
    return None


def first_error_line(compiler_output: str) -> str:
    """The line a user needs first from a compiler's output: its first ``error:`` line, else its
    last non-empty line (linkers and archivers end with the reason)."""
    lines = [line.strip() for line in compiler_output.splitlines() if line.strip()]
    line = next((line for line in lines if _ERROR_LINE.search(line)), None)
    if line is None:
        fallback = lines[-1] if lines else "no output"
        line = next((line for line in lines if "error" in line.lower()), fallback)
    return line if len(line) <= _MAX_ERROR_CHARS else line[: _MAX_ERROR_CHARS - 3] + "..."
