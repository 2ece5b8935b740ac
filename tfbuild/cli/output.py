"""How commands print what they report, for a person at a terminal and for a CI job.

``--json`` documents go through :func:`print_json`: dataclasses, paths, enums and tuples become
plain JSON, nothing else is printed on stdout (progress and notes go to stderr), so
``tfbuild X --json | jq`` always parses. Tables go through :func:`print_table`: boxed and
fitted to a terminal, but plain and unwrapped when stdout is a file or a pipe, so a CI log holds
each row on one line with no 80-column boxes and no class name split over lines.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import PurePath
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from tfbuild.pipeline.remote import SecretUrl

WIDE = 100_000
"""The width a console gets when it is not a terminal: no line is ever wrapped."""


def stdout_console(**kwargs: Any) -> Console:
    """A console on stdout: the terminal's width there, unbounded elsewhere."""
    probe = Console()
    return Console(highlight=False, soft_wrap=True, width=None if probe.is_terminal else WIDE, **kwargs)


def print_table(console: Console, table: Table) -> None:
    """``table`` boxed on a terminal; elsewhere without box or padding, each cell on one line."""
    if not console.is_terminal:
        table.box = None
        table.show_edge = False
        table.pad_edge = False
        for column in table.columns:
            column.no_wrap = True
            column.overflow = "ignore"
    console.print(table)


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses as objects, paths and :class:`SecretUrl` as
    strings (a URL's password masked), enums as their values, tuples, lists and sets as lists,
    mappings with string keys."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A field kept out of repr (a plan's secret_env) is kept out of JSON too.
        return {field.name: jsonable(getattr(value, field.name)) for field in dataclasses.fields(value) if field.repr}
    if isinstance(value, Enum):
        return jsonable(value.value)
    if isinstance(value, PurePath | SecretUrl):
        return str(value)
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [jsonable(item) for item in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return value


def print_json(value: Any) -> None:
    typer.echo(json.dumps(jsonable(value), indent=2))
