"""Compiling an app's custom-op sources into an op library, plain or selective.

An app with custom ops ships them as a library: a shared object loaded with
``tf.load_op_library`` on the host, or a static archive linked into a mobile binary. Under
SELECTIVE_REGISTRATION the same sources compile to a library that registers only the ops and
kernel classes ``ops_to_register.h`` selects, so the rest is never instantiated.

Planning is apart from execution: :func:`plan_ops_library` turns an :class:`OpsLibrarySpec` into
an :class:`OpsLibraryPlan` (every command as an argv tuple) without running anything, so the same
plan can run here (:func:`build_ops_library`) or, with a cross compiler's name and flags, as
:class:`~tfbuild.build.plan.Step` s inside a toolchain container
(:meth:`OpsLibraryPlan.build_steps`).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from tfbuild.build.plan import Step
from tfbuild.errors import BuildError, ConfigError, InputFileError, ToolchainError
from tfbuild.fileio import atomic_write_text, sha256_file

LibraryKind = Literal["shared", "static"]

SELECTIVE_HEADER_NAME = "ops_to_register.h"
"""TensorFlow's registration header includes the selection by this exact name."""

BASE_CFLAGS = ("-O2", "-fPIC")
"""-fPIC for static archives too, so their objects can also end up in a shared library."""

CXX_STANDARD_FLAG = "-std=c++17"

_STD_FLAG = re.compile(r"^--?std=")
_ERROR_LINE = re.compile(r":\d+(:\d+)?: (fatal )?error: ")
_MAX_ERROR_CHARS = 400


@dataclass(frozen=True)
class TensorFlowFlags:
    """Compiler and linker flags of an installed TensorFlow wheel (``tf.sysconfig``)."""

    compile_flags: tuple[str, ...]
    link_flags: tuple[str, ...]


@functools.lru_cache(maxsize=1)
def installed_tensorflow_flags() -> TensorFlowFlags:
    """The flags that compile and link against the TensorFlow installed in this environment.

    TensorFlow is imported here and only here: the query needs it, ``tfbuild --help`` must not.
    The answer cannot change while the process runs, so it is computed once.
    """
    try:
        import tensorflow as tf
    except ImportError as error:
        raise ToolchainError(
            f"TensorFlow is not importable ({error}); op libraries compile against its headers",
            hint="install the tensorflow wheel in the environment that runs tfbuild",
        ) from error
    return TensorFlowFlags(
        compile_flags=tuple(tf.sysconfig.get_compile_flags()),
        link_flags=tuple(tf.sysconfig.get_link_flags()),
    )


@dataclass(frozen=True)
class OpsLibrarySpec:
    """What to build: sources, output and toolchain, as plain values.

    ``kind`` "shared" links a ``.so`` with ``compiler`` and ``tf_link_flags``; "static" archives
    the objects with ``archiver`` (``ar rcs``) and links nothing. ``selective_header`` is the
    path of a generated ``ops_to_register.h``; with it the sources compile with
    ``-DSELECTIVE_REGISTRATION`` and see that header. ``tf_compile_flags``/``tf_link_flags`` are
    TensorFlow's own (see :meth:`for_installed_tensorflow`); a cross build passes its target's.
    Objects and compiler logs go to ``build_dir`` (default: ``<output>.objs`` beside the output).
    """

    sources: tuple[Path, ...]
    output: Path
    kind: LibraryKind = "shared"
    compiler: str = "g++"
    archiver: str = "ar"
    extra_cflags: tuple[str, ...] = ()
    extra_ldflags: tuple[str, ...] = ()
    include_dirs: tuple[Path, ...] = ()
    selective_header: Path | None = None
    tf_compile_flags: tuple[str, ...] = ()
    tf_link_flags: tuple[str, ...] = ()
    build_dir: Path | None = None

    @classmethod
    def for_installed_tensorflow(
        cls, sources: Sequence[Path], output: Path, **options: object
    ) -> OpsLibrarySpec:
        """A spec that compiles against the TensorFlow wheel installed here."""
        flags = installed_tensorflow_flags()
        return cls(
            sources=tuple(Path(source) for source in sources),
            output=Path(output),
            tf_compile_flags=flags.compile_flags,
            tf_link_flags=flags.link_flags,
            **options,  # type: ignore[arg-type]
        )


@dataclass(frozen=True)
class CompileStep:
    """One source compiled to one object; the compiler's output is kept in ``log``."""

    source: Path
    object_file: Path
    log: Path
    argv: tuple[str, ...]


@dataclass(frozen=True)
class OpsLibraryPlan:
    """Every command of an op-library build, computed before anything runs.

    The link (or archive) command writes ``staging_output``; only a successful build renames it
    to ``output``, so a failed build never leaves a library that looks finished.
    """

    spec: OpsLibrarySpec
    compiler: str
    cflags: tuple[str, ...]
    build_dir: Path
    compile_steps: tuple[CompileStep, ...]
    link_argv: tuple[str, ...]
    staging_output: Path
    output: Path

    @property
    def kind(self) -> LibraryKind:
        return self.spec.kind

    @property
    def tools(self) -> tuple[str, ...]:
        """The programs the plan runs, to check before running any of them."""
        return (self.compiler,) if self.kind == "shared" else (self.compiler, self.spec.archiver)

    def build_steps(self, workdir: PurePosixPath) -> tuple[Step, ...]:
        """The plan as :class:`~tfbuild.build.plan.Step` s for a container build (paths as given
        in the spec, i.e. as the container sees them), ending with the rename into place."""
        steps = [Step("mkdir objects", ("mkdir", "-p", str(self.build_dir)), workdir)]
        steps += [
            Step(f"compile {step.source.name}", step.argv, workdir) for step in self.compile_steps
        ]
        verb = "link" if self.kind == "shared" else "archive"
        steps.append(Step(f"{verb} {self.output.name}", self.link_argv, workdir))
        steps.append(
            Step("publish", ("mv", "-f", str(self.staging_output), str(self.output)), workdir)
        )
        return tuple(steps)


@dataclass(frozen=True)
class OpsLibraryResult:
    """A built library: where it is, how big, and its digest."""

    path: Path
    size_bytes: int
    sha256: str
    plan: OpsLibraryPlan


def plan_ops_library(spec: OpsLibrarySpec) -> OpsLibraryPlan:
    """Compute the compile and link/archive commands for ``spec``; runs and touches nothing."""
    if not spec.sources:
        raise ConfigError(
            "an op library needs at least one source file", hint="pass the app's .cc files"
        )
    if spec.kind not in ("shared", "static"):
        raise ConfigError(f"unknown op library kind {spec.kind!r}", hint="use 'shared' or 'static'")
    build_dir = spec.build_dir or spec.output.with_name(spec.output.name + ".objs")
    cflags = _compile_flags(spec)
    compile_steps = tuple(
        _compile_step(spec.compiler, source, build_dir, cflags) for source in spec.sources
    )
    _check_unique_objects(compile_steps)
    staging = spec.output.with_name(f".{spec.output.name}.partial")
    objects = tuple(str(step.object_file) for step in compile_steps)
    if spec.kind == "shared":
        link_argv = (
            spec.compiler, "-shared", *objects, "-o", str(staging),
            *spec.tf_link_flags, *spec.extra_ldflags,
        )
    else:
        link_argv = (spec.archiver, "rcs", str(staging), *objects)
    return OpsLibraryPlan(
        spec=spec,
        compiler=spec.compiler,
        cflags=cflags,
        build_dir=build_dir,
        compile_steps=compile_steps,
        link_argv=link_argv,
        staging_output=staging,
        output=spec.output,
    )


def _compile_flags(spec: OpsLibrarySpec) -> tuple[str, ...]:
    """Flags in override order: ours, the app's includes, selection, TensorFlow's, the app's extras
    last (so an ``-Os`` in ``extra_cflags`` wins over our ``-O2``)."""
    flags = list(BASE_CFLAGS)
    if not any(_STD_FLAG.match(flag) for flag in (*spec.tf_compile_flags, *spec.extra_cflags)):
        flags.append(CXX_STANDARD_FLAG)
    for include_dir in spec.include_dirs:
        flags += ["-I", str(include_dir)]
    if spec.selective_header is not None:
        if spec.selective_header.name != SELECTIVE_HEADER_NAME:
            raise ConfigError(
                f"{spec.selective_header}: a selective build needs the header to be named "
                f"{SELECTIVE_HEADER_NAME}",
                hint="write the generated header under that name; TensorFlow includes it by name",
            )
        flags += ["-DSELECTIVE_REGISTRATION", "-I", str(spec.selective_header.parent)]
    return (*flags, *spec.tf_compile_flags, *spec.extra_cflags)


def _compile_step(
    compiler: str, source: Path, build_dir: Path, cflags: tuple[str, ...]
) -> CompileStep:
    object_file = build_dir / f"{source.stem}.o"
    return CompileStep(
        source=source,
        object_file=object_file,
        log=object_file.with_suffix(".log"),
        argv=(compiler, "-c", str(source), "-o", str(object_file), *cflags),
    )


def _check_unique_objects(steps: tuple[CompileStep, ...]) -> None:
    seen: dict[Path, Path] = {}
    for step in steps:
        if step.object_file in seen:
            raise ConfigError(
                f"{seen[step.object_file]} and {step.source} would both compile to "
                f"{step.object_file.name}",
                hint="give op source files distinct names",
            )
        seen[step.object_file] = step.source


def build_ops_library(plan: OpsLibraryPlan, *, jobs: int | None = None) -> OpsLibraryResult:
    """Run ``plan`` on this machine: compile the sources (up to ``jobs`` at once), link or
    archive them, and move the library into place.

    Raises :class:`ToolchainError` when a tool is missing, :class:`InputFileError` for a missing
    source and :class:`BuildError` naming the failing source and its first compiler error.
    """
    _check_tools(plan.tools)
    for step in plan.compile_steps:
        if not step.source.is_file():
            raise InputFileError(f"{step.source}: op source file not found", hint="check the path")
    plan.build_dir.mkdir(parents=True, exist_ok=True)
    plan.output.parent.mkdir(parents=True, exist_ok=True)
    workers = max(1, min(jobs or os.cpu_count() or 1, len(plan.compile_steps)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        failures = [f for f in pool.map(_run_compile_step, plan.compile_steps) if f is not None]
    if failures:
        raise failures[0]
    try:
        _run_link(plan)
        os.replace(plan.staging_output, plan.output)
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


def _run(argv: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv), capture_output=True, text=True, errors="replace", check=False
        )
    except FileNotFoundError as error:  # removed between the check and the run
        raise ToolchainError(f"{argv[0]}: compiler tool not found", hint="install it") from error


def _run_compile_step(step: CompileStep) -> BuildError | None:
    """Compile one source; the failure comes back as a value so parallel steps all finish."""
    step.object_file.unlink(missing_ok=True)
    completed = _run(step.argv)
    atomic_write_text(step.log, completed.stdout + completed.stderr)
    if completed.returncode == 0:
        return None
    # The message names the source already; its path need not be repeated in full.
    error = first_error_line(completed.stderr).replace(f"{step.source}:", f"{step.source.name}:", 1)
    return BuildError(
        f"{step.source}: compiling failed: {error}",
        hint=f"full compiler output in {step.log}",
    )


def _run_link(plan: OpsLibraryPlan) -> None:
    completed = _run(plan.link_argv)
    if completed.returncode != 0:
        what = "linking" if plan.kind == "shared" else "archiving"
        raise BuildError(
            f"{plan.output}: {what} failed: {first_error_line(completed.stderr)}",
            hint=f"command: {' '.join(plan.link_argv)}",
        )


def first_error_line(compiler_output: str) -> str:
    """The line a user needs first from a compiler's output: its first ``error:`` line, else its
    last non-empty line (linkers and archivers end with the reason)."""
    lines = [line.strip() for line in compiler_output.splitlines() if line.strip()]
    line = next((line for line in lines if _ERROR_LINE.search(line)), None)
    if line is None:
        fallback = lines[-1] if lines else "no output"
        line = next((line for line in lines if "error" in line.lower()), fallback)
    return line if len(line) <= _MAX_ERROR_CHARS else line[: _MAX_ERROR_CHARS - 3] + "..."
