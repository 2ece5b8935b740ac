"""The ``tfbuild`` command line: a thin layer over the library.

Each command module parses its options into a typed object and calls one library function.
This module owns what is common to all of them: the Typer app, ``--debug``, and turning
:class:`~tfbuild.errors.TfbuildError` into one line on stderr and the error's exit code.

Nothing imported here may import TensorFlow: ``tfbuild --help`` has to start fast.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from tfbuild import __version__
from tfbuild.errors import TfbuildError

app = typer.Typer(
    name="tfbuild",
    help="Turn a TensorFlow model into a small mobile TensorFlow binary.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

stderr = Console(stderr=True, highlight=False, soft_wrap=True)
_state = {"debug": False}


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"tfbuild {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version."
    ),
) -> None:
    """Turn a TensorFlow model into a small mobile TensorFlow binary."""
    _state["debug"] = debug


@functools.cache
def _register_commands() -> None:
    """Add every command to ``app``, once, in the order ``--help`` lists them.

    ``build_commands`` and ``toolchain_commands`` define plain functions and a sub-app, added
    here by name. The other command modules add their commands to ``app`` themselves when
    imported. Every module keeps its TensorFlow (and other heavy) imports inside the command
    bodies.
    """
    from tfbuild.cli import build_commands, toolchain_commands

    importlib.import_module("tfbuild.cli.analysis_commands")
    app.command("targets")(build_commands.targets_command)
    app.command("workspace")(build_commands.workspace_command)
    app.command("linkflags")(build_commands.linkflags_command)
    app.command("build")(build_commands.build_command)
    for name in (
        "edit_commands", "compat_commands", "example_commands", "source_commands", "verify_commands", "report_commands"
    ):
        importlib.import_module(f"tfbuild.cli.{name}")
    app.add_typer(toolchain_commands.toolchain_app, name="toolchain")
    _let_interrupts_through(app)


class _Interrupted(Exception):
    """Ctrl-C inside a command, carried past Typer, which would turn the KeyboardInterrupt into
    a silent exit 130 and lose what the library noted on it. ``__cause__`` is the interrupt."""


def _interruptible(command: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(command)  # Typer reads the options from the wrapped signature
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt as interrupt:
            raise _Interrupted() from interrupt

    return run


def _let_interrupts_through(typer_app: typer.Typer) -> None:
    """Wrap every command of ``typer_app`` and its sub-apps in :func:`_interruptible`."""
    for command in typer_app.registered_commands:
        if command.callback is not None:
            command.callback = _interruptible(command.callback)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _let_interrupts_through(group.typer_instance)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script.

    With ``argv`` (tests) the exit code is returned; without it (the console script) the process
    exits with it. Usage errors are Typer's own; :class:`TfbuildError` becomes one line on
    stderr and its exit code, Ctrl-C "interrupted" and 130; the notes the library added to
    either (a build that had changed the source tree says what and how to undo it) follow, one
    line each. Anything else is a tfbuild bug and keeps its traceback.
    """
    _register_commands()
    try:
        app(args=argv, prog_name="tfbuild")
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except TfbuildError as error:
        if _state["debug"]:
            raise
        # escaped: messages name config keys ("[android] ndk"), which are not markup
        stderr.print(f"[bold red]error:[/] {escape(error.one_line())}", markup=True)
        _print_notes(error)
        code = error.exit_code
    except (KeyboardInterrupt, _Interrupted) as interrupt:
        stderr.print("interrupted", markup=False)
        _print_notes(interrupt.__cause__ if isinstance(interrupt, _Interrupted) else interrupt)
        code = 130
    if argv is None:
        sys.exit(code)
    return code


def _print_notes(error: BaseException | None) -> None:
    for note in getattr(error, "__notes__", ()):
        stderr.print(note, markup=False)
