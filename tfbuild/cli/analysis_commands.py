"""``tfbuild analyze`` and ``tfbuild header``: what a model needs, and the header that keeps it.

Both commands parse their options and call :func:`tfbuild.model.analysis.analyze_models` (and
:func:`tfbuild.model.header.write_header`); the library modules import TensorFlow inside their
functions, so they are imported here inside the command bodies too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tfbuild.cli import app, stderr
from tfbuild.errors import PreflightError

if TYPE_CHECKING:
    from tfbuild.model.analysis import Analysis

_MODELS_HELP = (
    "Model files or SavedModel directories: GraphDef (.pb/.pbtxt), SavedModel, MetaGraphDef "
    "(.meta), TFLite with Select-TF ops, or a JSON ops list. The format is read from the content."
)
_OP_LIBRARY_HELP = (
    "Custom-op library (.so) to load first, so the app's own kernels are found. Repeatable."
)
_STRICT_HELP = "Fail (exit 5) when a node has no CPU kernel, instead of only reporting it."


@app.command("analyze")
def analyze(
    models: list[Path] = typer.Argument(..., help=_MODELS_HELP, show_default=False),
    op_library: list[Path] | None = typer.Option(None, "--op-library", help=_OP_LIBRARY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print a machine-readable JSON document."),
    strict: bool = typer.Option(False, "--strict", help=_STRICT_HELP),
) -> None:
    """List the ops and kernel classes the models need, and the nodes no kernel covers."""
    from tfbuild.model.analysis import analyze_models

    analysis = analyze_models(models, op_library or ())
    if as_json:
        typer.echo(json.dumps(analysis.to_dict(), indent=2))
    else:
        _print_tables(analysis, Console(highlight=False))
    _fail_if_strict(analysis, strict)


@app.command("header")
def header(
    models: list[Path] = typer.Argument(..., help=_MODELS_HELP, show_default=False),
    output: Path = typer.Option(..., "-o", "--output", help="Where to write ops_to_register.h."),
    default_ops: str = typer.Option(
        "NoOp:NoOp,_Recv:RecvOp,_Send:SendOp",
        "--default-ops",
        help="Op:KernelClass pairs always kept (comma-separated); '' for none; 'all' keeps everything.",
    ),
    granularity: str = typer.Option(
        "kernel",
        "--granularity",
        help="'kernel': exact kernel classes (TF's behaviour). 'op': every kernel of each needed "
        "op, for trees whose kernel class names differ from the installed TensorFlow's.",
    ),
    op_library: list[Path] | None = typer.Option(None, "--op-library", help=_OP_LIBRARY_HELP),
    strict: bool = typer.Option(False, "--strict", help=_STRICT_HELP),
    source: Path | None = typer.Option(
        None,
        "--source",
        help="A TensorFlow source tree: take the kernel class names from it (its kernel index) "
        "instead of the installed TensorFlow's; class names differ between TF versions.",
    ),
) -> None:
    """Write ops_to_register.h for TensorFlow's SELECTIVE_REGISTRATION."""
    from tfbuild.model.analysis import analyze_models
    from tfbuild.model.header import HeaderOptions, header_contents, write_header

    options = HeaderOptions(default_ops=default_ops, granularity=granularity)
    analysis = analyze_models(models, op_library or ())
    if source is not None:
        from tfbuild.tree.retarget import retarget_notes, retarget_to_tree

        analysis, retargeted = retarget_to_tree(analysis, source)
        for note in retarget_notes(retargeted):
            stderr.print(Text(f"note: {note}"))
    _fail_if_strict(analysis, strict)
    written = write_header(analysis, output, options)
    for problem in analysis.problems:
        stderr.print(Text(f"warning: {problem.model}: {problem.op} {problem.node}: {problem.message}"))
    typer.echo(f"wrote {written} (registers {header_contents(analysis, options).summary()})")


def _fail_if_strict(analysis: Analysis, strict: bool) -> None:
    if strict and analysis.problems:
        first = analysis.problems[0]
        raise PreflightError(
            f"{len(analysis.problems)} node(s) have no CPU kernel, first: {first.model}: "
            f"{first.op} {first.node}: {first.message}",
            hint="load the custom-op library with --op-library, or fix the model",
        )


def _print_tables(analysis: Analysis, console: Console) -> None:
    """Model names and kernel classes come from files: rendered as Text, never as markup."""
    models = Table(title="Models", title_justify="left")
    for column in ("path", "format", "sha256"):
        models.add_column(column, overflow="fold")
    for model in analysis.models:
        models.add_row(Text(str(model.path)), model.format, model.sha256[:16])
    console.print(models)

    ops = Table(title=f"Ops ({analysis.tensorflow_version} kernel names)", title_justify="left")
    for column in ("op", "kernel classes", "dtypes", "nodes", "models"):
        ops.add_column(column, justify="right" if column == "nodes" else "left", overflow="fold")
    for requirement in analysis.ops:
        kernels = "\n".join(requirement.kernel_classes) or "(none)"
        ops.add_row(
            Text(requirement.op),
            Text(kernels),
            Text(", ".join(requirement.dtypes)),
            str(requirement.node_count),
            Text("\n".join(requirement.models)),
        )
    console.print(ops)

    if analysis.problems:
        problems = Table(title="Problems: nodes without a CPU kernel", title_justify="left")
        for column in ("op", "node", "model", "problem"):
            problems.add_column(column, overflow="fold")
        for problem in analysis.problems:
            problems.add_row(*(Text(v) for v in (problem.op, problem.node, problem.model, problem.message)))
        console.print(problems)
    else:
        console.print("No problems: every node has a CPU kernel.")
