"""The ``tfbuild`` command line: a thin layer over the library.

Each command module parses its options into a typed object and calls one library function.
This module owns what is common to all of them: the Typer app, ``--debug``, turning
:class:`~tfbuild.errors.TfbuildError` into one line on stderr and the error's exit code, and
the failures no command expects (a closed pipe, a full disk, a tfbuild bug) into one line too,
with the traceback only under ``--debug``. It also makes the help tell the truth
(:func:`_polish_help`): flags without a ``<bool>`` type, and each option's environment variables.

Nothing imported here may import TensorFlow: ``tfbuild --help`` has to start fast.
"""

from __future__ import annotations

import functools
import importlib
import io
import os
import sys
from collections.abc import Callable
from typing import Any

import typer
import typer.main
from rich.console import Console
from rich.markup import escape
from typer._click import exceptions as click_errors  # the click Typer bundles and raises
from typer.core import TyperGroup, TyperOption

from tfbuild import __version__
from tfbuild.errors import TfbuildError
from tfbuild.log import NORMAL, QUIET, VERBOSE, set_level

app = typer.Typer(
    name="tfbuild",
    help="Turn a TensorFlow model into a small mobile TensorFlow binary.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)

stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def _broken_pipe(console: Console) -> None:
    """rich's own handling of a closed stdout exits 1 without a word (and so does click's, which
    the error would reach first); note it, so :func:`main` says what happened in one line."""
    console.quiet = True
    _state["broken_pipe"] = True
    raise BrokenPipeError(32, "Broken pipe")


Console.on_broken_pipe = _broken_pipe  # type: ignore[method-assign,assignment]

_typer_display_type = TyperOption.display_type_rich


def _display_type(option: TyperOption, ctx: Any) -> str | None:
    """Typer shows a flag's type as ``<bool>``, as if it took a value; a flag shows none."""
    return None if option.is_flag else _typer_display_type(option, ctx)


TyperOption.display_type_rich = _display_type  # type: ignore[method-assign,assignment]
_state = {"debug": False, "broken_pipe": False}


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"tfbuild {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Only errors and results: no build output lines."),
    verbose: bool = typer.Option(
        False, "-v", "--verbose", help="Also what tools print on the side (TensorFlow's C++ start-up lines)."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version."
    ),
) -> None:
    """Turn a TensorFlow model into a small mobile TensorFlow binary."""
    _state["debug"] = debug
    set_level(QUIET if quiet else VERBOSE if verbose else NORMAL)


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
        "edit_commands", "compat_commands", "example_commands", "source_commands", "verify_commands", "report_commands",
        "android_commands", "config_commands",
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
    exits with it. A usage error is one line and exit code 2; :class:`TfbuildError` becomes one line on
    stderr and its exit code, Ctrl-C "interrupted" and 130; the notes the library added to
    either (a build that had changed the source tree says what and how to undo it) follow, one
    line each. Anything else is a tfbuild bug and keeps its traceback.
    """
    if argv is None:
        _name_stdout()
    try:
        command = _command()
        if _asks_for_help(sys.argv[1:] if argv is None else argv):
            _polish_help(command)
        # not standalone: a usage error reaches us, to be one line rather than click's box
        result = command.main(args=argv, prog_name="tfbuild", standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except (click_errors.ClickException, typer.Abort) as usage:
        code = _usage_error(usage)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if _state["broken_pipe"]:
            code = _report_broken_pipe()
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
    except BrokenPipeError:
        code = _report_broken_pipe()
    except Exception as failure:
        if _state["debug"]:
            raise
        code = _unexpected(failure)
    if argv is None:
        sys.exit(code)
    return code


def _usage_error(usage: Exception) -> int:
    """A usage error (an unknown command or option, an option without its value) in one line
    and exit code 2, rather than click's box of five."""
    if isinstance(usage, click_errors.NoArgsIsHelpError):
        return 2  # the help, printed when the error was made
    if not isinstance(usage, click_errors.ClickException):  # typer.Abort
        stderr.print("error: aborted", markup=False)
        return 1
    ctx = getattr(usage, "ctx", None)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    stderr.print(f"error: {usage.format_message()}{where}", markup=False)
    return usage.exit_code


@functools.cache
def _command() -> Any:
    """The click command Typer makes of the app, made once per process (making it reads every
    command's signature: most of a quick command's time when a test calls :func:`main` often)."""
    _register_commands()
    return typer.main.get_command(app)


def _asks_for_help(args: list[str]) -> bool:
    """Whether the help will be printed: the only time it needs :func:`_polish_help`, whose
    option table import would otherwise cost every quick command (``header``) its start-up."""
    return not args or "--help" in args or args[-1:] in (["config"], ["toolchain"], ["protobuf"], ["edit"])


def _unexpected(failure: Exception) -> int:
    """One line for a failure no command expected: an operating system error (a full disk, a
    permission) names its file; anything else is a tfbuild bug, reported as one."""
    if isinstance(failure, OSError) and failure.strerror:
        if failure.filename == "stdout":  # the output itself could not be written (a full disk)
            _detach_stdout()
        where = f"{failure.filename}: " if failure.filename else ""
        stderr.print(f"error: {where}{failure.strerror}", markup=False)
        _print_notes(failure)
        return 1
    stderr.print(f"error: internal error ({type(failure).__name__}: {failure}); run again with --debug for the "
                 "traceback, and please report it", markup=False)
    _print_notes(failure)
    return 70  # EX_SOFTWARE


class _NamedStdout(io.RawIOBase):
    """File descriptor 1, whose write errors name "stdout": ``tfbuild ... > /dev/full`` says
    "error: stdout: No space left on device", as an error on an output file names the file."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        try:
            return os.write(self._fd, data)
        except OSError as error:  # OSError(EPIPE, ...) is still a BrokenPipeError
            raise OSError(error.errno, error.strerror, "stdout") from None


def _name_stdout() -> None:
    """Put :class:`_NamedStdout` under the process's own stdout (not under a test's capture)."""
    real = sys.__stdout__
    if real is None or sys.stdout is not real:
        return
    try:
        fd = real.fileno()
    except (OSError, ValueError):
        return
    real.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_NamedStdout(fd)), encoding=real.encoding, errors=real.errors,
        line_buffering=real.line_buffering,
    )


def _report_broken_pipe() -> int:
    """Whoever read stdout stopped (``| head``): say so once, and point stdout at nothing so
    the interpreter's last flush does not fail again."""
    _state["broken_pipe"] = False
    _detach_stdout()
    stderr.print("error: stdout was closed before the output was written (broken pipe)", markup=False)
    return 1


def _detach_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _polish_help(command: Any) -> None:
    """Make every command's help say what is true (flags lose their ``<bool>`` in
    :func:`_display_type`): an option that ``TFBUILD_*`` variables (or the Android SDK's and NDK's
    own) may set says which, in the order they count (:data:`~tfbuild.pipeline.options.OPTIONS`). The
    variables are only named here: the option resolver reads them, so their precedence below
    the command line and above ``tfbuild.toml`` stays in one place."""
    from tfbuild.pipeline.options import OPTIONS

    by_flag = {spec.cli_flag: spec for spec in OPTIONS}
    commands = [command]
    while commands:
        current = commands.pop()
        if isinstance(current, TyperGroup):
            commands.extend(current.commands.values())
        for param in current.params:
            if not isinstance(param, TyperOption) or getattr(param, "_tfbuild_polished", False):
                continue
            param._tfbuild_polished = True  # type: ignore[attr-defined]
            spec = next((by_flag[opt] for opt in param.opts if opt in by_flag), None)
            if spec is not None and (spec.env or spec.fallback_env):
                names = ", ".join(f"${name}" for name in (*spec.env, *spec.fallback_env))
                param.help = f"{param.help or ''} (env: {names})".strip()


def _print_notes(error: BaseException | None) -> None:
    for note in getattr(error, "__notes__", ()):
        stderr.print(note, markup=False)
