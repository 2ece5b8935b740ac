"""``tfbuild analyze`` and ``tfbuild header``: what a model needs, and the header that keeps it.

Both commands parse their options and call :func:`tfbuild.model.analysis.analyze_models` (and
:func:`tfbuild.model.header.write_header`). Neither imports TensorFlow once tfbuild has cached
its protos and kernel registry (:mod:`tfbuild.model.kernel_registry`); the library modules are
still imported inside the command bodies, so ``tfbuild --help`` does not pay for them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tfbuild.cli import app, stderr
from tfbuild.cli.option_flags import resolve, takes_options
from tfbuild.cli.output import emit_json, print_table, stdout_console
from tfbuild.errors import PreflightError
from tfbuild.fileio import refuse_input_as_output
from tfbuild.pipeline.declarations.options import DEFAULT_OPS, GRANULARITY, SOURCE, Flags

if TYPE_CHECKING:
    from rich.console import Console

    from tfbuild.model.analysis import Analysis
    from tfbuild.model.header import HeaderOptions

_MODELS_HELP = (
    "Model files or SavedModel directories: GraphDef (.pb/.pbtxt), SavedModel, MetaGraphDef "
    "(.meta), TFLite with Select-TF ops, or a JSON ops list. The format is read from the content."
)
_OP_LIBRARY_HELP = (
    "Custom-op library (.so) to load first, so the app's own kernels are found. Repeatable."
)
_CONFIG_HELP = (
    "tfbuild.toml whose [header] table and [build] source to read (default: ./tfbuild.toml, or $TFBUILD_CONFIG)."
)
_OUTPUT_NODE_HELP = (
    "Count only what this node's value depends on, as strip_unused_nodes does, so training leftovers "
    "drop out (repeat for several outputs; default: every node)."
)
_STRICT_HELP = "Fail (exit 5) when a node has no CPU kernel, instead of only reporting it."
_TAG_HELP = (
    "SavedModel inputs: read the MetaGraph with exactly these tags (repeat for several, e.g. --tag serve). "
    "Default: the only MetaGraph, or the one holding --signature."
)
_SIGNATURE_HELP = (
    "SavedModel inputs: count only what this signature runs (e.g. serving_default), so checkpoint "
    "save/restore ops drop out. Default: every node and function of the model."
)


@app.command("analyze")
def analyze(
    models: list[Path] = typer.Argument(..., metavar="MODEL", help=_MODELS_HELP, show_default=False),
    op_library: list[Path] | None = typer.Option(None, "--op-library", metavar="PATH", help=_OP_LIBRARY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print a machine-readable JSON document."),
    strict: bool = typer.Option(False, "--strict", help=_STRICT_HELP),
    tag: list[str] | None = typer.Option(None, "--tag", metavar="TAG", help=_TAG_HELP),
    signature: str | None = typer.Option(None, "--signature", metavar="NAME", help=_SIGNATURE_HELP),
    output_node: list[str] | None = typer.Option(None, "--output-node", metavar="NAME", help=_OUTPUT_NODE_HELP),
) -> None:
    """List the ops and kernel classes the models need, and the nodes no kernel covers."""
    from tfbuild.model.analysis import analyze_models
    from tfbuild.model.scope import ModelScope

    scope = ModelScope(tuple(tag or ()), signature, tuple(output_node or ()))
    analysis = analyze_models(models, op_library or (), scope)
    if as_json:
        emit_json(json.dumps(analysis.to_dict(), indent=2))
    else:
        _print_tables(analysis, stdout_console())
    _fail_if_strict(analysis, strict)


@app.command("header")
@takes_options(
    (DEFAULT_OPS, "Op:KernelClass pairs always kept (comma-separated); '' for none; 'all' keeps everything."),
    (GRANULARITY, "'kernel': exact kernel classes (TF's behaviour). 'op': every kernel of each needed op, for "
                  "trees whose kernel class names differ from the installed TensorFlow's."),
    (SOURCE, "A TensorFlow source tree: take the kernel class names from it (its kernel index) instead of the "
             "installed TensorFlow's; class names differ between TF versions (default: the installed TensorFlow's)."),
)
def header(
    models: list[Path] = typer.Argument(..., metavar="MODEL", help=_MODELS_HELP, show_default=False),
    output: Path = typer.Option(..., "-o", "--output", metavar="PATH", help="Where to write ops_to_register.h."),
    flags: Flags = Flags(),  # noqa: B008 (the flags of the declarations above: takes_options fills it)
    op_library: list[Path] | None = typer.Option(None, "--op-library", metavar="PATH", help=_OP_LIBRARY_HELP),
    strict: bool = typer.Option(False, "--strict", help=_STRICT_HELP),
    tag: list[str] | None = typer.Option(None, "--tag", metavar="TAG", help=_TAG_HELP),
    signature: str | None = typer.Option(None, "--signature", metavar="NAME", help=_SIGNATURE_HELP),
    output_node: list[str] | None = typer.Option(None, "--output-node", metavar="NAME", help=_OUTPUT_NODE_HELP),
    config: Path | None = typer.Option(
        None, "--config", metavar="PATH", help=_CONFIG_HELP
    ),
    as_json: bool = typer.Option(False, "--json", help="Print a summary of what was written as JSON."),
) -> None:
    """Write ops_to_register.h for TensorFlow's SELECTIVE_REGISTRATION."""
    from tfbuild.model.analysis import analyze_models
    from tfbuild.model.header import write_header
    from tfbuild.model.scope import ModelScope

    refuse_input_as_output(
        output, models, why="the header goes elsewhere", hint="give another path, e.g. ops_to_register.h"
    )
    resolved = resolve(flags, config, require_target=False).options
    options, source = resolved.header, resolved.source
    scope = ModelScope(tuple(tag or ()), signature, tuple(output_node or ()))
    analysis = analyze_models(models, op_library or (), scope)
    if source is not None:
        from tfbuild.tree.retarget import retarget_notes, retarget_to_tree

        analysis, retargeted = retarget_to_tree(analysis, source)
        for note in retarget_notes(retargeted):
            stderr.print(f"note: {note}", markup=False, highlight=False)
    _fail_if_strict(analysis, strict)
    written = write_header(analysis, output, options)
    for problem in analysis.problems:
        stderr.print(f"warning: {problem.model}: {problem.op} {problem.node}: {problem.message}",
                     markup=False, highlight=False)
    for note in analysis.notes():
        stderr.print(f"note: {note}", markup=False, highlight=False)
    _print_written_header(written, analysis, options, as_json=as_json)


def _print_written_header(written: Path, analysis: Analysis, options: HeaderOptions, *, as_json: bool) -> None:
    """What ``tfbuild header`` wrote: one line, or (``--json``) its selection and counts."""
    from tfbuild.model.header import header_contents

    contents = header_contents(analysis, options)
    if not as_json:
        typer.echo(f"wrote {written} (registers {contents.summary()})")
        return
    emit_json(json.dumps({
        "header": str(written), "summary": contents.summary(), "default_ops": options.default_ops,
        "granularity": options.granularity, "registers_everything": contents.registers_everything,
        "ops": sorted(contents.ops), "kernel_classes": list(contents.kernel_classes),
        "problems": len(analysis.problems), "notes": list(analysis.notes()),
    }, indent=2))


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
    from rich.table import Table
    from rich.text import Text

    models = Table(title="Models", title_justify="left")
    for column in ("path", "format", "sha256"):
        models.add_column(column, overflow="fold")
    for model in analysis.models:
        scope = f" ({model.scope})" if model.scope else ""
        models.add_row(Text(str(model.path)), Text(model.format + scope), model.sha256[:16])
    print_table(console, models)
    _print_summaries(analysis, console)
    for note in analysis.notes():
        console.print(Text(f"Note: {note}"))
    if analysis.ops:
        _print_ops(analysis, console)
    _print_problems(analysis, console)


def _print_summaries(analysis: Analysis, console: Console) -> None:
    """What TensorFlow's summarize_graph tells of each graph: the guides' first step, the names
    ``tfbuild verify --input-shape/--output-tensor`` takes, and the benchmark program's command
    line with them, as the tool prints it."""
    from rich.text import Text

    for model in analysis.models:
        for summary in model.summaries:
            inputs = ", ".join(f"{i.name} ({i.dtype.removeprefix('DT_').lower()}, {i.shape_text or '?'})"
                               for i in summary.inputs) or "none"
            outputs = ", ".join(f"{o.name} ({o.op})" for o in summary.outputs) or "none"
            weights = ", ".join(
                f"{kind.removeprefix('DT_').lower()} {size:,} B" for kind, size in summary.const_bytes.items()
            )
            ops = ", ".join(f"{count} {op}" for op, count in summary.op_counts[:12])
            more = f", and {len(summary.op_counts) - 12} more" if len(summary.op_counts) > 12 else ""
            console.print(Text(f"{model.path}: inputs {inputs}; outputs {outputs}"))
            console.print(Text(f"  {summary.const_parameters:,} const parameters ({weights or 'none'}), "
                               f"{summary.control_edges} control edges; ops: {ops}{more}"))
            benchmark = model.benchmark(summary)
            if benchmark is not None:
                note = f" ({benchmark.note})" if benchmark.note else ""
                console.print(Text(f"  benchmark: {benchmark.text}{note}"))


def _print_ops(analysis: Analysis, console: Console) -> None:
    from rich.table import Table
    from rich.text import Text

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
    print_table(console, ops)


def _print_problems(analysis: Analysis, console: Console) -> None:
    from rich.table import Table
    from rich.text import Text

    if analysis.problems:
        problems = Table(title="Problems: nodes without a CPU kernel", title_justify="left")
        for column in ("op", "node", "model", "problem"):
            problems.add_column(column, overflow="fold")
        for problem in analysis.problems:
            problems.add_row(*(Text(v) for v in (problem.op, problem.node, problem.model, problem.message)))
        print_table(console, problems)
    else:
        console.print("No problems: every node has a CPU kernel.")
