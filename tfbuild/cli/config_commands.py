"""``tfbuild config show``: every build option as ``tfbuild build`` would resolve it here, and
where each value came from (a flag, a ``TFBUILD_*`` or Android variable, ``tfbuild.toml``, or
the default), so a CI log can say why a build used what it used.

Flags are not read here (this command has none of the build's); the environment and the file
are, through the same resolver the build uses (:func:`~tfbuild.pipeline.options.resolve_with_origins`).
"""

from __future__ import annotations

import json
import os
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import typer

from tfbuild.cli import app
from tfbuild.cli.output import jsonable, print_table, stdout_console

config_app = typer.Typer(help="Show the options tfbuild resolves from tfbuild.toml and the environment.",
                         no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def show_command(
    config: Path | None = typer.Option(
        None, "--config", metavar="PATH", help="tfbuild.toml to read (default: ./tfbuild.toml if present)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: each option's value and origin."),
) -> None:
    """Print the resolved build options and where each one came from."""
    from tfbuild.pipeline.options import OPTIONS, resolve_with_origins

    resolved = resolve_with_origins({}, environ=os.environ, cwd=Path.cwd(), config_file=config, require_target=False)
    flat = _flatten(resolved.options)
    rows = [(spec.name, flat.get(spec.name), resolved.origins.get(spec.name, "default")) for spec in OPTIONS
            if spec.name in flat]
    if as_json:
        payload = {
            "config_file": str(resolved.config_path) if resolved.config_path else None,
            "options": {name: {"value": value, "origin": origin} for name, value, origin in rows},
        }
        typer.echo(json.dumps(payload, indent=2, default=str))
        return
    from rich.table import Table

    table = Table(title=f"tfbuild options ({resolved.config_path or 'no tfbuild.toml'})")
    for column in ("option", "value", "from"):
        table.add_column(column, overflow="fold")
    for name, value, origin in rows:
        table.add_row(name, _text(value), origin, style=None if origin != "default" else "dim")
    print_table(stdout_console(), table)


def _flatten(options: Any) -> dict[str, Any]:
    """The option values by name, nested option groups (android, header) flattened."""
    values: dict[str, Any] = {}
    for field in fields(options):
        value = getattr(options, field.name)
        if is_dataclass(value) and not isinstance(value, type):
            values.update(_flatten(value))
        else:
            values[field.name] = jsonable(value)
    return values


def _text(value: Any) -> str:
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
    from tfbuild.pipeline.options import CONFIG_FILE_NAME, ENV_CONFIG, app_matrix

    path = (config or Path(os.environ.get(ENV_CONFIG) or CONFIG_FILE_NAME)).resolve()
    rows = app_matrix(path)
    if gitlab:
        by_app: dict[str, list[str]] = {}
        for row in rows:
            by_app.setdefault(row["app"], []).append(row["target"])
        typer.echo(json.dumps([{"APP": [name], "TARGET": targets} for name, targets in by_app.items()], indent=2))
    elif as_json:
        typer.echo(json.dumps({"include": rows}))
    else:
        from rich.table import Table

        table = Table(title=f"tfbuild plan ({path})")
        for column in ("app", "target", "command"):
            table.add_column(column)
        for row in rows:
            table.add_row(row["app"], row["target"], f"tfbuild build --app {row['app']} --target {row['target']}")
        print_table(stdout_console(), table)
