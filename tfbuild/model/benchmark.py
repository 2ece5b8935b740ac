"""The command line of TensorFlow's benchmark program for a model, its inputs and outputs filled
from what ``summarize_graph`` tells of the graph, as that tool ends its summary ("To use with
tensorflow/tools/benchmark:benchmark_model try these arguments"): the mobile guides time a model
that way before and after preparing it.

The program reads a GraphDef, binary or text (``ReadBinaryProto``, then ``ReadTextProto``), and
nothing else. A memmapped package's command therefore names the frozen graph the package was made
from (:data:`FROZEN_GRAPH`, for the user to replace) and says so; a SavedModel, a MetaGraph, a
TFLite model or an ops list has no command.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from tfbuild.model.formats import ModelFormat
from tfbuild.model.graph_summary import GraphSummary

PROGRAM = "benchmark_model"
"""The program as Bazel builds it (``//tensorflow/tools/benchmark:benchmark_model``); a Makefile
build's output directory has it as ``benchmark``."""
FROZEN_GRAPH = "FROZEN_GRAPH.pb"
"""Stands for the frozen GraphDef a memmapped package was made from."""
READ_BY_THE_PROGRAM = frozenset({ModelFormat.GRAPHDEF, ModelFormat.GRAPHDEF_TEXT})


@dataclass(frozen=True)
class BenchmarkCommand:
    argv: tuple[str, ...]
    note: str | None = None
    """What the command does not say: that :data:`FROZEN_GRAPH` stands for another file."""

    @property
    def text(self) -> str:
        """The command as a POSIX shell takes it (names quoted where they need it)."""
        return shlex.join(self.argv)


def benchmark_command(
    model: Path | str, model_format: ModelFormat | str, summary: GraphSummary, *, program: str = PROGRAM
) -> BenchmarkCommand | None:
    """The benchmark program's command for ``model`` (a model of ``model_format`` whose graph
    ``summary`` summarizes), or None when the program cannot read that kind of model."""
    kind = ModelFormat(model_format)
    if kind is ModelFormat.MEMMAPPED:
        note = (f"{FROZEN_GRAPH}: the frozen GraphDef {Path(model).name} was made from; the benchmark program "
                "reads no memmapped packages")
        argv, opened = _runnable(summary.benchmark_arguments(FROZEN_GRAPH), summary)
        return BenchmarkCommand((program, *argv), "; ".join(filter(None, (note, opened))))
    if kind not in READ_BY_THE_PROGRAM:
        return None
    argv, opened = _runnable(summary.benchmark_arguments(str(model)), summary)
    return BenchmarkCommand((program, *argv), opened)


OPEN_BATCH = 1
OPEN_DIM = 16
"""The sizes an open dimension is given, as ``tfbuild verify`` gives them: 1 for the first of a
shape of rank 2 or more (a batch), else 16."""


def _runnable(arguments: tuple[str, ...], summary: GraphSummary) -> tuple[tuple[str, ...], str | None]:
    """``arguments`` with every open dimension (``-1``, which the program cannot allocate) made
    :data:`OPEN_BATCH` or :data:`OPEN_DIM`, and a note saying which inputs were opened and which
    have no known rank (left empty: the program reads that as a scalar)."""
    inputs = (*summary.inputs, *summary.variables)
    shapes, opened, unknown = [], [], []
    for item in inputs:
        if item.shape is None:
            unknown.append(item.name)
            shapes.append("")
            continue
        sizes = [size if size >= 0 else (OPEN_BATCH if index == 0 and len(item.shape) > 1 else OPEN_DIM)
                 for index, size in enumerate(item.shape)]
        if any(size < 0 for size in item.shape):
            opened.append(item.name)
        shapes.append(",".join(str(size) for size in sizes))
    argv = tuple(f"--input_layer_shape={':'.join(shapes)}" if argument.startswith("--input_layer_shape=")
                 else argument for argument in arguments)
    said = []
    if opened:
        said.append(f"open dimensions of {', '.join(opened)} made {OPEN_BATCH} (a batch) or {OPEN_DIM}: "
                    "put the sizes the app feeds")
    if unknown:
        said.append(f"{', '.join(unknown)}: no known rank, shown as a scalar: put its shape")
    return argv, "; ".join(said) or None
