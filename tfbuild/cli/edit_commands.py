"""``tfbuild edit``, ``tfbuild check`` and ``tfbuild protobuf rename``: preparing a source tree.

Each command turns its options into a request value and calls one library function
(:func:`tfbuild.tree.edits.run_edit` / ``run_revert``, :func:`tfbuild.tree.preflight.run_preflight`,
:mod:`tfbuild.tree.protobuf_rename`). Text that comes from files (paths, op and class names) is
printed as plain text, never as Rich markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tfbuild.cli import CommandGroup, app, params
from tfbuild.cli.option_flags import source_tree, takes_options
from tfbuild.cli.output import jsonable, plain, print_json, stdout_console
from tfbuild.errors import ConfigError
from tfbuild.flavour import TREE_FLAVOURS, Flavour
from tfbuild.pipeline.declarations.options import SOURCE, Flags

if TYPE_CHECKING:
    from rich.console import Console

protobuf_app = typer.Typer(cls=CommandGroup, help="Protobuf handling for the contrib Makefile build.",
                           no_args_is_help=True)
app.add_typer(protobuf_app, name="protobuf")

_SOURCE_HELP = "The TensorFlow checkout, a git repository."
_MODEL_HELP = "Model files, SavedModel directories or JSON ops lists."
_MODEL_ALIAS = typer.Option(None, "--model", "-m", hidden=True, help="Same as a MODEL argument (old spelling).")
_HEADER_HELP = "An ops_to_register.h (from `tfbuild header` or TensorFlow's own tool)."
_OP_LIBRARY_HELP = "Custom-op library (.so) to load before analysing models. Repeatable."


def _out() -> Console:
    return stdout_console()


def _flavour(value: str) -> Flavour:
    if value not in TREE_FLAVOURS:
        choices = " or ".join(flavour.value for flavour in TREE_FLAVOURS)
        raise ConfigError(f"unknown flavour {value!r}", hint=f"use {choices}")
    return Flavour(value)


@app.command("edit")
@takes_options((SOURCE, _SOURCE_HELP))
def edit(
    flavour: str | None = typer.Argument(
        None, metavar="FLAVOUR",
        help="makefile (tf_op_files.txt) or bazel (kernels/BUILD filegroups); not needed with --revert.",
    ),
    models: list[Path] | None = typer.Argument(None, metavar="MODEL", help=_MODEL_HELP, show_default=False),
    header: Path | None = typer.Option(None, "--header", metavar="PATH", help=_HEADER_HELP),
    model: list[Path] | None = _MODEL_ALIAS,
    op_library: list[Path] | None = typer.Option(None, "--op-library", metavar="PATH", help=_OP_LIBRARY_HELP),
    flags: Flags = Flags(),  # noqa: B008 (--source: takes_options makes it)
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the diff; change nothing."),
    revert: bool = typer.Option(
        False, "--revert",
        help="Undo what tfbuild (edit or build) changed: back to the original branch, the files it wrote removed.",
    ),
) -> None:
    """Make the tree compile the kernel files a header or models need (one commit on a work branch)."""
    from tfbuild.tree.edits import EditRequest, run_edit
    from tfbuild.tree.work_branch import revert_command
    source = source_tree(flags)

    out = _out()
    model = list(params.models(models, model))
    if flavour is not None:
        _flavour(flavour)
    if revert:
        if header or model or op_library or dry_run:
            raise ConfigError(
                "--revert takes no --header, --model, --op-library or --dry-run",
                hint=f"run: {revert_command(source)}",
            )
        _revert(source, out)
        return
    if flavour is None:
        raise ConfigError("edit needs a flavour", hint="run: tfbuild edit makefile|bazel MODEL (or --header H)")
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
        out.print(plain(f"note: {note}"))
    if not plan.changed:
        out.print(plain(f"no change: the {flavour} build files already list every needed file"))
        return
    out.print(plain(plan.diff()), end="")
    added = sum(len(edit.added) for edit in plan.edits)
    if outcome.commit is None:
        out.print(plain(f"dry run: {added} entr{'y' if added == 1 else 'ies'} would be added; nothing written"))
    else:
        out.print(plain(f"committed {outcome.commit.commit[:12]} on {outcome.commit.branch} "
                       f"({added} entr{'y' if added == 1 else 'ies'} added); undo with: {revert_command(source)}"))


def _revert(source: Path, out: Console) -> None:
    """``tfbuild edit --revert``: the tree back on its branch, and what that removed."""
    from tfbuild.tree.edits import run_revert
    from tfbuild.tree.work_branch import WORK_BRANCH

    result = run_revert(source)
    if not result.reverted:
        out.print(plain(f"nothing to revert: {source} has no {WORK_BRANCH} branch"))
        return
    out.print(plain(f"reverted {result.removed_commits} tfbuild commit(s): back on {result.restored} "
                   f"({(result.restored_commit or '')[:12]}), {WORK_BRANCH} deleted"))
    for path in result.removed_files:
        out.print(plain(f"removed {path} (written by tfbuild)"))


@app.command("check")
@takes_options((SOURCE, _SOURCE_HELP))
def check(
    models: list[Path] | None = typer.Argument(None, metavar="MODEL", help=_MODEL_HELP, show_default=False),
    flavour: str = typer.Option(..., "--flavour", metavar="makefile|bazel", help="The build to check."),
    model: list[Path] | None = _MODEL_ALIAS,
    header: Path | None = typer.Option(
        None, "--header", metavar="PATH", help=_HEADER_HELP + " Checked to list what the models need."
    ),
    op_library: list[Path] | None = typer.Option(None, "--op-library", metavar="PATH", help=_OP_LIBRARY_HELP),
    flags: Flags = Flags(),  # noqa: B008 (--source: takes_options makes it)
    as_json: bool = typer.Option(False, "--json", help="Print the preflight report as JSON (exit 5 all the same)."),
) -> None:
    """Preflight: fail (exit 5) if the built binary would lack an op or kernel the model needs."""
    from tfbuild.tree.preflight import PreflightRequest, require_pass, run_preflight
    source = source_tree(flags)

    report = run_preflight(
        PreflightRequest(
            source=source,
            flavour=_flavour(flavour),
            models=params.models(models, model),
            header=header,
            op_libraries=tuple(op_library or ()),
        )
    )
    if as_json:
        print_json({"ok": report.ok, **jsonable(report)})
    else:
        out = _out()
        for line in report.lines():
            out.print(plain(line))
    require_pass(report)


@protobuf_app.command("rename")
@takes_options((
    SOURCE, "The TensorFlow checkout, after download_dependencies.sh."
))
def protobuf_rename(
    flags: Flags = Flags(),  # noqa: B008 (--source: takes_options makes it)
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would change; change nothing."),
) -> None:
    """Move TensorFlow's protobuf to google::protobuf3 so it links next to an app's own protobuf."""
    from tfbuild.tree.protobuf_rename import apply_protobuf_rename, plan_protobuf_rename
    source = source_tree(flags)

    plan = plan_protobuf_rename(source)
    out = _out()
    for line in plan.summary_lines():
        out.print(plain(line))
    if plan.changed and not dry_run:
        from tfbuild.tree.work_branch import tree_lock

        with tree_lock(source, "rename protobuf in"):
            apply_protobuf_rename(plan)
        out.print(plain(f"renamed: {len(plan.rewrites)} file(s) rewritten"))
    elif plan.changed:
        out.print(plain("dry run: nothing written"))
