"""``tfbuild compat``: a copy of a model that an older TensorFlow tree's runtime accepts.

The command turns its options into a :class:`~tfbuild.tree.compat.CompatRequest`, prints the
plan (:func:`~tfbuild.tree.compat.plan_compat`), and writes the copy
(:func:`~tfbuild.tree.compat.write_compat_copy`) or refuses with exit code 5 having named every
node it cannot fix. Names from the model are printed as plain text, never as Rich markup.
"""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.option_flags import source_tree, takes_options
from tfbuild.cli.output import plain, print_json, stdout_console
from tfbuild.errors import TfbuildError
from tfbuild.pipeline.declarations.options import SOURCE, Flags


@app.command("compat")
@takes_options((
    SOURCE, "The TensorFlow checkout whose runtime will run it."
))
def compat(
    model: Path = typer.Argument(
        ..., metavar="MODEL", help="A GraphDef (.pb binary or .pbtxt text), e.g. a frozen model."
    ),
    flags: Flags = Flags(),  # noqa: B008 (--source: takes_options makes it)
    output: Path = typer.Option(
        ..., "-o", "--output", metavar="PATH", help="Where to write the copy (same format as MODEL)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print what was checked, removed and written as JSON."),
) -> None:
    """Write a copy of MODEL without the attrs the tree's op definitions lack, where their values
    are the defaults (exit 5, nothing written, when something else stands in the way)."""
    from tfbuild.tree.compat import CompatRequest, plan_compat, require_fixable, write_compat_copy
    source = source_tree(flags)

    plan = plan_compat(CompatRequest(model=model, source=source, output=output))
    summary = {
        "model": model, "output": output, "tf_version": plan.tf_version, "op_defs": plan.op_defs_origin,
        "checked_nodes": plan.checked_nodes, "problems": plan.problems, "notes": plan.notes,
    }
    out = stdout_console(stderr=as_json)
    for line in plan.lines():
        out.print(plain(line))
    try:
        require_fixable(plan)
    except TfbuildError:
        if as_json:
            print_json({**summary, "written": False})
        raise
    written = write_compat_copy(plan)
    for line in written.lines:
        out.print(plain(line))
    if as_json:
        print_json({**summary, "written": True, "removed": written.removed, "nodes": written.nodes})
