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
import os
import re
import sys
from collections.abc import Mapping
from enum import Enum
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

WIDE = 100_000
"""The width a console gets when it is not a terminal: no line is ever wrapped."""


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (a closed or odd stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def colour_settings(*, stderr: bool = False) -> dict[str, Any]:
    """How a console on stdout (or stderr) looks, by the conventions' environment variables.

    The layout (boxes, the terminal's width) follows what the stream is: a terminal, or a file
    or a pipe. Colour: ``NO_COLOR`` set to anything but the empty string turns off colour and
    every other escape code (no-color.org); otherwise ``FORCE_COLOR`` set to anything but the
    empty string turns colour on even in a file or a pipe, whose layout stays plain
    (force-color.org); otherwise colour on a terminal only. ``NO_COLOR`` wins when both are set:
    turning colour off is the safer of the two asks.
    """
    terminal = is_terminal(sys.stderr if stderr else sys.stdout)
    if os.environ.get("NO_COLOR", ""):
        return {"force_terminal": terminal, "color_system": None, "no_color": True}
    if os.environ.get("FORCE_COLOR", ""):
        return {"force_terminal": terminal, "color_system": "auto" if terminal else "standard"}
    return {"force_terminal": terminal}


def stdout_console(*, stderr: bool = False, **kwargs: Any) -> Console:
    """A console on stdout (or stderr): the terminal's width there, unbounded elsewhere, so
    nothing printed to a file or a pipe is wrapped; colour as :func:`colour_settings` says."""
    from tfbuild.cli import console_class

    settings = colour_settings(stderr=stderr)
    width = None if settings["force_terminal"] else WIDE
    return console_class()(highlight=False, soft_wrap=True, width=width, stderr=stderr, **settings, **kwargs)


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
    text = "\n".join(_without_trailing_blanks(line) for line in captured.get().splitlines())
    console.print(text, markup=False, highlight=False, soft_wrap=True, emoji=False)


_TRAILING_BLANKS = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$")


def _without_trailing_blanks(line: str) -> str:
    """``line`` without trailing blanks, also those inside colour codes (``FORCE_COLOR``)."""
    while (shorter := _TRAILING_BLANKS.sub(r"\1", line)) != line:
        line = shorter
    return line


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
    from tfbuild.pipeline.caches.remote import SecretUrl

    if isinstance(value, PurePath | SecretUrl):
        return str(value)
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [jsonable(item) for item in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return value


def print_json(value: Any) -> None:
    """``value`` as a JSON document on stdout (:func:`emit_json`)."""
    emit_json(json.dumps(jsonable(value), indent=2))


class _JsonRun:
    """The documents of a ``--json`` run, held until it ends (:func:`finish_json`)."""

    held: bool = False
    documents: list[tuple[str, bool]] = []  # noqa: RUF012 (one run per process at a time)


def hold_json(held: bool) -> None:
    """Hold what :func:`emit_json` prints until :func:`finish_json` (the command line does for
    every ``--json`` run), so a failing run prints its document once, with the error in it."""
    _JsonRun.held = held
    _JsonRun.documents = []


def emit_json(text: str, *, newline: bool = True) -> None:
    """A command's ``--json`` document (the text of one JSON value) on stdout: now, or held
    (:func:`hold_json`)."""
    if _JsonRun.held:
        _JsonRun.documents.append((text, newline))
        return
    import typer

    typer.echo(text, nl=newline)


def finish_json(error: Mapping[str, Any] | None) -> None:
    """Print the held documents as they are when the run succeeded (``error`` None); when it
    failed, one JSON object: the command's document with ``"error": error`` added (wrapped as
    ``"result"`` when it is no object), or ``{"error": error}`` when it printed none."""
    import typer

    documents, _JsonRun.documents, _JsonRun.held = _JsonRun.documents, [], False
    if error is None:
        for text, newline in documents:
            typer.echo(text, nl=newline)
        return
    document: Any = json.loads(documents[-1][0]) if documents else None
    if isinstance(document, dict):
        failed = {**document, "error": dict(error)}
    else:
        failed = {"error": dict(error)} if document is None else {"result": document, "error": dict(error)}
    typer.echo(json.dumps(failed, indent=2))
