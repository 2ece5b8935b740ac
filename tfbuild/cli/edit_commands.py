"""``tfbuild edit``, ``tfbuild check`` and ``tfbuild protobuf rename``: preparing a source tree.

Each command turns its options into a request value and calls one library function
(:func:`tfbuild.tree.edits.run_edit` / ``run_revert``, :func:`tfbuild.tree.preflight.run_preflight`,
:mod:`tfbuild.tree.protobuf_rename`). Text that comes from files (paths, op and class names) is
printed as plain text, never as Rich markup.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from tfbuild.cli import app
from tfbuild.cli.output import jsonable, print_json
from tfbuild.errors import ConfigError
from tfbuild.flavour import TREE_FLAVOURS, Flavour

protobuf_app = typer.Typer(help="Protobuf handling for the contrib Makefile build.", no_args_is_help=True)
app.add_typer(protobuf_app, name="protobuf")

_SOURCE_HELP = "The TensorFlow checkout (a git repository)."
_MODEL_HELP = "A model file, SavedModel directory or JSON ops list. Repeatable."
_HEADER_HELP = "An ops_to_register.h (from `tfbuild header` or TensorFlow's own tool)."
_OP_LIBRARY_HELP = "Custom-op library (.so) to load before analysing models. Repeatable."


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _flavour(value: str) -> Flavour:
    if value not in TREE_FLAVOURS:
        choices = " or ".join(flavour.value for flavour in TREE_FLAVOURS)
        raise ConfigError(f"unknown flavour {value!r}", hint=f"use {choices}")
    return Flavour(value)


@app.command("edit")
def edit(
    flavour: str | None = typer.Argument(
        None, help="makefile (tf_op_files.txt) or bazel (kernels/BUILD filegroups); not needed with --revert."
    ),
    header: Path | None = typer.Option(None, "--header", help=_HEADER_HELP),
    model: list[Path] | None = typer.Option(None, "--model", help=_MODEL_HELP),
    op_library: list[Path] | None = typer.Option(None, "--op-library", help=_OP_LIBRARY_HELP),
    source: Path = typer.Option(Path("."), "--source", help=_SOURCE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the diff; change nothing."),
    revert: bool = typer.Option(
        False, "--revert",
        help="Undo what tfbuild (edit or build) changed: back to the original branch, the files it wrote removed.",
    ),
) -> None:
    """Make the tree compile the kernel files a header or models need (one commit on a work branch)."""
    from tfbuild.tree.edits import EditRequest, revert_command, run_edit, run_revert
    from tfbuild.tree.work_branch import WORK_BRANCH

    out = _out()
    if flavour is not None:
        _flavour(flavour)
    if revert:
        if header or model or op_library or dry_run:
            raise ConfigError(
                "--revert takes no --header, --model, --op-library or --dry-run",
                hint=f"run: {revert_command(source)}",
            )
        result = run_revert(source)
        if result.reverted:
            out.print(Text(f"reverted {result.removed_commits} tfbuild commit(s): back on {result.restored} "
                           f"({(result.restored_commit or '')[:12]}), {WORK_BRANCH} deleted"))
            for path in result.removed_files:
                out.print(Text(f"removed {path} (written by tfbuild)"))
        else:
            out.print(Text(f"nothing to revert: {source} has no {WORK_BRANCH} branch"))
        return
    if flavour is None:
        raise ConfigError("edit needs a flavour", hint="run: tfbuild edit makefile|bazel --model M (or --header H)")
    request = EditRequest(
        source=source,
        flavour=flavour,
        header=header,
        models=tuple(model or ()),
        op_libraries=tuple(op_library or ()),
        dry_run=dry_run,
    )
    outcome = run_edit(request)
    plan = outcome.plan
    for note in plan.notes:
        out.print(Text(f"note: {note}"))
    if not plan.changed:
        out.print(Text(f"no change: the {flavour} build files already list every needed file"))
        return
    out.print(Text(plan.diff()), end="")
    added = sum(len(edit.added) for edit in plan.edits)
    if outcome.commit is None:
        out.print(Text(f"dry run: {added} entr{'y' if added == 1 else 'ies'} would be added; nothing written"))
    else:
        out.print(Text(f"committed {outcome.commit.commit[:12]} on {outcome.commit.branch} "
                       f"({added} entr{'y' if added == 1 else 'ies'} added); undo with: {revert_command(source)}"))


@app.command("check")
def check(
    flavour: str = typer.Option(..., "--flavour", help="makefile or bazel: the build to check."),
    model: list[Path] | None = typer.Option(None, "--model", help=_MODEL_HELP),
    header: Path | None = typer.Option(
        None, "--header", help=_HEADER_HELP + " Checked to list what the models need."
    ),
    op_library: list[Path] | None = typer.Option(None, "--op-library", help=_OP_LIBRARY_HELP),
    source: Path = typer.Option(Path("."), "--source", help=_SOURCE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the preflight report as JSON (exit 5 all the same)."),
) -> None:
    """Preflight: fail (exit 5) if the built binary would lack an op or kernel the model needs."""
    from tfbuild.tree.preflight import PreflightRequest, require_pass, run_preflight

    report = run_preflight(
        PreflightRequest(
            source=source,
            flavour=_flavour(flavour),
            models=tuple(model or ()),
            header=header,
            op_libraries=tuple(op_library or ()),
        )
    )
    if as_json:
        print_json({"ok": report.ok, **jsonable(report)})
    else:
        out = _out()
        for line in report.lines():
            out.print(Text(line))
    require_pass(report)


@protobuf_app.command("rename")
def protobuf_rename(
    source: Path = typer.Option(
        Path("."), "--source", help="The TensorFlow checkout, after download_dependencies.sh."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would change; change nothing."),
) -> None:
    """Move TensorFlow's protobuf to google::protobuf3 so it links next to an app's own protobuf."""
    from tfbuild.tree.protobuf_rename import apply_protobuf_rename, plan_protobuf_rename

    plan = plan_protobuf_rename(source)
    out = _out()
    for line in plan.summary_lines():
        out.print(Text(line))
    if plan.changed and not dry_run:
        from tfbuild.tree.work_branch import tree_lock

        with tree_lock(source, "rename protobuf in"):
            apply_protobuf_rename(plan)
        out.print(Text(f"renamed: {len(plan.rewrites)} file(s) rewritten"))
    elif plan.changed:
        out.print(Text("dry run: nothing written"))
