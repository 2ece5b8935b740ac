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
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

WIDE = 100_000
"""The width a console gets when it is not a terminal: no line is ever wrapped."""


def stdout_console(*, stderr: bool = False, **kwargs: Any) -> Console:
    """A console on stdout (or stderr): the terminal's width there, unbounded elsewhere, so
    nothing printed to a file or a pipe is wrapped."""
    from rich.console import Console

    from tfbuild.cli import patch_rich

    patch_rich()
    probe = Console(stderr=stderr)
    width = None if probe.is_terminal else WIDE
    return Console(highlight=False, soft_wrap=True, width=width, stderr=stderr, **kwargs)


class LazyConsole:
    """:func:`stdout_console`, made on first use: a module may hold one from import on without
    ``tfbuild --help`` importing rich. ``real`` is the console itself, for library code."""

    def __init__(self, **settings: Any) -> None:
        self._settings = settings
        self._console: Console | None = None

    @property
    def real(self) -> Console:
        if self._console is None:
            self._console = stdout_console(**self._settings)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def lazy_console(**settings: Any) -> Console:
    """A :class:`LazyConsole`, typed as the console it stands for."""
    return cast("Console", LazyConsole(**settings))


def real_console(console: Console) -> Console:
    """The console behind a :func:`lazy_console` (any other console as it is)."""
    return console.real if isinstance(console, LazyConsole) else console


def plain(text: str, style: str = "") -> Text:
    """``text`` as rich Text: printed as it is, never read as markup (names come from files)."""
    from rich.text import Text

    return Text(text, style=style)


def print_table(console: Console, table: Table) -> None:
    """``table`` boxed on a terminal; elsewhere plain: no box characters, the title flush left,
    columns two spaces apart, each cell on its line(s) unwrapped, no trailing blanks."""
    if console.is_terminal:
        console.print(table)
        return
    table.box = None
    table.show_edge = False
    table.pad_edge = False
    table.expand = False
    table.padding = (0, 1)
    table.title_justify = "left"
    for column in table.columns:
        column.no_wrap = True
        column.overflow = "ignore"
    with console.capture() as captured:
        console.print(table, width=WIDE, crop=False)
    text = "\n".join(line.rstrip() for line in captured.get().splitlines())
    console.print(text, markup=False, highlight=False, soft_wrap=True, emoji=False)


def print_heading(console: Console, title: str) -> None:
    """A heading above a block of text: a rule on a terminal, ``==> title <==`` elsewhere (as
    ``head`` names its files), never a line of box characters in a log."""
    if console.is_terminal:
        console.rule(title)
    else:
        console.print(f"==> {title} <==", markup=False, highlight=False)


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses as objects, paths and :class:`SecretUrl` as
    strings (a URL's password masked), enums as their values, tuples, lists and sets as lists,
    mappings with string keys."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A field kept out of repr (a plan's secret_env) is kept out of JSON too.
        return {field.name: jsonable(getattr(value, field.name)) for field in dataclasses.fields(value) if field.repr}
    if isinstance(value, Enum):
        return jsonable(value.value)
    from tfbuild.pipeline.remote import SecretUrl

    if isinstance(value, PurePath | SecretUrl):
        return str(value)
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [jsonable(item) for item in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return value


def print_json(value: Any) -> None:
    import typer

    typer.echo(json.dumps(jsonable(value), indent=2))
