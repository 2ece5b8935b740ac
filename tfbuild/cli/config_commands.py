"""``tfbuild config show``: every build option as ``tfbuild build`` would resolve it here, and
where each value came from (a flag, a ``TFBUILD_*`` or Android variable, ``tfbuild.toml``, or
the default), so a CI log can say why a build used what it used.

It takes every flag the build takes (the same declarations make both) and resolves them, the
environment and the file through the same resolver
(:func:`~tfbuild.pipeline.declarations.options.resolve_with_origins`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from tfbuild.cli import CommandGroup, app
from tfbuild.cli.option_flags import resolve, takes_options
from tfbuild.cli.output import emit_json, jsonable, print_table, stdout_console
from tfbuild.pipeline.declarations.options import CONFIG_FILE_NAME, ENV_CONFIG, OPTIONS, Flags, app_matrix

config_app = typer.Typer(cls=CommandGroup, no_args_is_help=True,
                         help="Show the options tfbuild resolves from tfbuild.toml and the environment.")
app.add_typer(config_app, name="config")


@config_app.command("show")
@takes_options(*OPTIONS)
def show_command(
    flags: Flags,
    config: Path | None = typer.Option(
        None, "--config", metavar="PATH", help="tfbuild.toml to read (default: ./tfbuild.toml, or $TFBUILD_CONFIG)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: each option's value and origin."),
) -> None:
    """Print the build options as 'tfbuild build' would resolve them with the same flags, and
    where each one came from."""
    resolved = resolve(flags, config, require_target=False)
    rows = [(option.name, jsonable(resolved.values[option]), resolved.origin(option)) for option in OPTIONS]
    if as_json:
        payload = {
            "config_file": str(resolved.config_path) if resolved.config_path else None,
            "options": {name: {"value": value, "origin": origin} for name, value, origin in rows},
        }
        emit_json(json.dumps(payload, indent=2, default=str))
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"tfbuild options ({resolved.config_path or 'no tfbuild.toml'})"))
    for column in ("option", "value", "from"):
        table.add_column(column, overflow="fold")
    for name, value, origin in rows:  # values and origins ("[build] jobs") are text, not markup
        table.add_row(Text(name), Text(_text(value)), Text(origin), style=None if origin != "default" else "dim")
    print_table(stdout_console(), table)


def _text(value: object) -> str:
    if value in (None, "", []):
        return "-"
    if isinstance(value, list):
        return " ".join(map(str, value))
    return str(value)


@app.command("plan")
def plan_command(
    config: Path | None = typer.Option(
        None, "--config", metavar="PATH", help="tfbuild.toml to read (default: ./tfbuild.toml, or $TFBUILD_CONFIG)."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print the matrix for GitHub Actions: {\"include\": [{app, target, out}, ...]}."
    ),
    gitlab: bool = typer.Option(
        False, "--gitlab", help="Print GitLab's parallel:matrix instead: [{APP: [...], TARGET: [...]}, ...]."
    ),
) -> None:
    """Print the app x target matrix of tfbuild.toml's [apps.NAME] tables: one CI job per cell,
    each running 'tfbuild build --app APP --target TARGET'."""
    path = (config or Path(os.environ.get(ENV_CONFIG) or CONFIG_FILE_NAME)).resolve()
    rows = app_matrix(path)
    if gitlab:
        by_app: dict[str, list[str]] = {}
        for row in rows:
            by_app.setdefault(row["app"], []).append(row["target"])
        emit_json(json.dumps([{"APP": [name], "TARGET": targets} for name, targets in by_app.items()], indent=2))
    elif as_json:
        emit_json(json.dumps({"include": rows}))
    else:
        from rich.table import Table

        table = Table(title=f"tfbuild plan ({path})")
        for column in ("app", "target", "command"):
            table.add_column(column)
        for row in rows:
            table.add_row(row["app"], row["target"], f"tfbuild build --app {row['app']} --target {row['target']}")
        print_table(stdout_console(), table)
