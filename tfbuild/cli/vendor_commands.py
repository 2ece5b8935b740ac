"""``tfbuild vendor``: a tree's external repositories laid out from local git mirrors, for a Bazel
build with no network (:mod:`tfbuild.tree.vendor`; ``tfbuild build --vendor-dir`` reads it)."""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.option_flags import require_source, resolve, takes_options
from tfbuild.cli.output import plain, print_json, stdout_console
from tfbuild.pipeline.declarations.options import MIRROR_MAPPINGS, MIRRORS, SOURCE, Flags

_REPOSITORY_HELP = "Lay out only this repository (repeat; default: every one the workspace declares)."
_OUT_HELP = "Where to lay them out (the --vendor-dir of 'tfbuild build')."


@app.command("vendor")
@takes_options((SOURCE, "TensorFlow tree whose workspace declares the repositories."), MIRRORS, MIRROR_MAPPINGS)
def vendor(
    repository: list[str] = typer.Option([], "--repository", metavar="NAME", help=_REPOSITORY_HELP),
    out: Path = typer.Option(Path("tfbuild-vendor"), "--out-dir", "-o", metavar="DIR", help=_OUT_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="List each repository and where it would come from."),
    as_json: bool = typer.Option(False, "--json", help="Print the repositories as JSON."),
    flags: Flags = Flags(),  # noqa: B008 (--source, --mirrors, --mirror: takes_options makes them)
) -> None:
    """Lay out what a Bazel build of the tree fetches, from local git mirrors: GitHub archives
    remade byte for byte into a repository cache, the rest as overridden repositories; repositories
    without a mirror are named in one line. A mirror lacking a pinned commit is an error."""
    from tfbuild.tree.vendor import lay_out, plan_sources

    values = resolve(flags, require_target=False).values
    root = require_source(values[SOURCE])
    sources = plan_sources(root, mirrors=values[MIRRORS], mappings=values[MIRROR_MAPPINGS], only=tuple(repository))
    if not dry_run:
        _, sources = lay_out(root, sources, out)
    missing = [source.repository.name for source in sources if source.how == "missing"]
    if as_json:
        print_json({"dry_run": dry_run, "out": out, "repositories": [
            {"name": s.repository.name, "how": s.how, "mirror": s.mirror, "ref": s.ref, "commit": s.commit,
             "note": s.note, "declared_at": s.repository.declared_at} for s in sources]})
        return
    console = stdout_console()
    for source in sources:
        console.print(plain(source.line()))
    counts = {how: sum(source.how == how for source in sources) for how in ("cache", "override")}
    verb = "would lay out" if dry_run else f"laid out in {out}:"
    console.print(plain(f"{verb} {counts['cache']} in the repository cache, {counts['override']} overridden"))
    if missing:
        console.print(plain(f"missing ({len(missing)}, no mirror): {', '.join(missing)}"))
