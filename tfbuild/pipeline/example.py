"""The README's main job on the bundled example: custom ops in, a smaller selective library out.

``examples/custom_ops`` holds an op library (a few ops, some with float and int32 kernels) and a
model that uses only some of them. The job shows the whole idea on something that builds in a
minute: build the library plainly, find what the model needs with that library loaded (its
kernels must be registered to be found), write ``ops_to_register.h``, build it again selectively,
and compare the sizes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tfbuild.errors import ConfigError, InputFileError
from tfbuild.model.header import HEADER_NAME
from tfbuild.pipeline.declarations.options import DEFAULT_OUTPUT_ROOT
from tfbuild.pipeline.op_library.build import OpsLibraryResult, build_ops_library
from tfbuild.pipeline.op_library.compile_plan import OpsLibrarySpec, plan_ops_library
from tfbuild.resources import examples_dir

if TYPE_CHECKING:
    from rich.console import Console

    from tfbuild.model.analysis import OpRequirement

DEFAULT_OUT_DIR = Path(DEFAULT_OUTPUT_ROOT) / "example"
LIBRARY_NAME = "libexample_ops.so"


def example_sources_dir() -> Path:
    return examples_dir() / "custom_ops"


def example_model() -> Path:
    return example_sources_dir() / "model.pbtxt"


def example_sources() -> tuple[Path, ...]:
    sources = tuple(sorted(example_sources_dir().glob("*.cc")))
    if not sources:
        raise InputFileError(
            f"{example_sources_dir()}: no example op sources (*.cc) found",
            hint="reinstall tfbuild; the example ships with it",
        )
    return sources


@dataclass(frozen=True)
class ExampleOptions:
    out_dir: Path = DEFAULT_OUT_DIR
    jobs: int | None = None
    """Parallel compiles; None for one per core."""


@dataclass(frozen=True)
class ExamplePaths:
    """Where the example job writes, under one output directory."""

    out_dir: Path
    plain_library: Path
    selective_library: Path
    header: Path

    @classmethod
    def under(cls, out_dir: Path) -> ExamplePaths:
        out_dir = Path(out_dir)
        return cls(
            out_dir=out_dir,
            plain_library=out_dir / "plain" / LIBRARY_NAME,
            selective_library=out_dir / "selective" / LIBRARY_NAME,
            header=out_dir / "include" / HEADER_NAME,
        )


@dataclass(frozen=True)
class ExampleResult:
    """The op table (what the model needs, found with the plain library loaded) and both
    libraries; the header is at ``paths.header``."""

    model: Path
    paths: ExamplePaths
    ops: tuple[OpRequirement, ...]
    plain: OpsLibraryResult
    selective: OpsLibraryResult

    @property
    def reduction(self) -> float:
        """The fraction of the plain library's size the selective build saves."""
        return 1.0 - self.selective.size_bytes / self.plain.size_bytes


_WARNING_LINE = re.compile(r"\bwarning:")


def compile_summary(library: OpsLibraryResult) -> list[str]:
    """One line per compile of ``library`` (its source, the compiler's warnings counted, the log
    holding its output) and one for the library: what a person reads instead of the compiler's
    thousands of lines, most of them warnings from TensorFlow's own headers."""
    lines = []
    for step in library.plan.compile_steps:
        output = step.log.read_text(encoding="utf-8", errors="replace") if step.log.is_file() else ""
        warnings = sum(1 for line in output.splitlines() if _WARNING_LINE.search(line))
        counted = f"{warnings} warning line(s)" if warnings else "no warnings"
        lines.append(f"compiled {step.source.name}: {counted}; compiler output in {step.log}")
    lines.append(f"linked {library.path} ({library.size_bytes:,} bytes)")
    return lines


def run_example(
    options: ExampleOptions = ExampleOptions(),
    *,
    console: Console | None = None,
    report: Callable[[str], None] | None = None,
) -> ExampleResult:
    """Build the example library plainly, analyse the example model with it, write the header,
    build the library selectively, and return the op table and both libraries. Both builds run
    through the executor, showing their progress on ``console`` when given; ``report`` gets the
    :func:`compile_summary` lines of each library once it is built. A failed compile raises
    :class:`~tfbuild.errors.BuildError` quoting the compiler's first error and naming its log."""
    paths = ExamplePaths.under(options.out_dir)
    if paths.out_dir.exists() and not paths.out_dir.is_dir():
        raise ConfigError(
            f"{paths.out_dir}: output directory is a file", hint="pass a directory with --out"
        )
    sources = example_sources()

    from tfbuild.model.analysis import analyze_models
    from tfbuild.model.header import HeaderOptions, write_header

    plain_spec = OpsLibrarySpec.for_installed_tensorflow(sources, paths.plain_library)
    plain = build_ops_library(plan_ops_library(plain_spec), jobs=options.jobs, console=console)
    if report is not None:
        for line in compile_summary(plain):
            report(line)
    analysis = analyze_models([example_model()], op_libraries=[plain.path])
    if analysis.problems:
        # A kernel the analysis could not find would be missing from the selective library.
        problem = analysis.problems[0]
        raise InputFileError(
            f"{example_model()}: node {problem.node} ({problem.op}): {problem.message}",
            hint=f"the example library at {plain.path} must provide every op the model uses",
        )
    write_header(analysis, paths.header, HeaderOptions())
    selective_spec = OpsLibrarySpec.for_installed_tensorflow(
        sources, paths.selective_library, selective_header=paths.header
    )
    selective = build_ops_library(plan_ops_library(selective_spec), jobs=options.jobs, console=console)
    if report is not None:
        for line in compile_summary(selective):
            report(line)
    return ExampleResult(example_model(), paths, analysis.ops, plain, selective)
