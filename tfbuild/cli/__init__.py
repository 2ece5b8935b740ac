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

import typer
from rich.console import Console

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
    for name in ("edit_commands", "example_commands", "source_commands"):
        importlib.import_module(f"tfbuild.cli.{name}")
    app.add_typer(toolchain_commands.toolchain_app, name="toolchain")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script.

    With ``argv`` (tests) the exit code is returned; without it (the console script) the process
    exits with it. Usage errors are Typer's own; :class:`TfbuildError` becomes one line on
    stderr and its exit code; anything else is a tfbuild bug and keeps its traceback.
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
        stderr.print(f"[bold red]error:[/] {error.one_line()}", markup=True)
        code = error.exit_code
    except KeyboardInterrupt:
        stderr.print("interrupted")
        code = 130
    if argv is None:
        sys.exit(code)
    return code
