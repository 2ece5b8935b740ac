"""The ``tfbuild`` command line: a thin layer over the library.

Each command module parses its options into a typed object and calls one library function.
This module owns what is common to all of them: the Typer app, ``--debug``, turning
:class:`~tfbuild.errors.TfbuildError` into one line on stderr and the error's exit code, and
the failures no command expects (a closed pipe, a full disk, a tfbuild bug) into one line too,
with the traceback only under ``--debug``. It also makes the help tell the truth
(:func:`_polish_help`): flags without a ``<bool>`` type, arguments by their metavars (``MODEL...``),
ranges in their words (``N >= 1``), TOML table names (``[header]``) shown as written; boxed on
a terminal, plain and unwrapped in a file or a pipe. Every option names its value itself
(``metavar``: ``PATH``, ``DIR``, ``N``), a test checks it.

Only the invoked command's module is imported (:func:`_register_commands`), rich only when
something prints through it, pydantic only for values that need validating
(:mod:`tfbuild.cli.coercion`). The build options' flags, with their environment variables and
``tfbuild.toml`` keys in their help, are made from their declarations (:mod:`tfbuild.cli.option_flags`).

Errors, the help of a group given no command (:class:`CommandGroup`, Typer's ``cls=``), the
options a mistyped one is answered with, and a closed stdout under rich (:func:`console_class`)
go through Typer's, click's and rich's documented interfaces. The help's shape and the quick
coercion reach Typer internals no interface does, which is why ``pyproject.toml`` pins Typer
exactly (``tests/test_cli_dependencies.py`` checks each internal is there).

Nothing imported here may import TensorFlow: ``tfbuild --help`` has to start fast.
"""

from __future__ import annotations

import functools
import importlib
import io
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import typer
import typer.main
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from tfbuild import __version__
from tfbuild.cli import coercion
from tfbuild.errors import INTERNAL_ERROR_EXIT_CODE, USAGE_EXIT_CODE, TfbuildError
from tfbuild.log import NORMAL, QUIET, VERBOSE, set_level

if TYPE_CHECKING:
    from rich.console import Console


class _NoCommand(Exception):
    """A group run without a command (``tfbuild``, ``tfbuild config``): its help, as the error."""

    def __init__(self, ctx: Any) -> None:
        super().__init__("no command given")
        self.help = ctx.get_help()  # on a terminal rich prints it here and gives ""


class CommandGroup(TyperGroup):
    """tfbuild's command groups (Typer's ``cls=``): a group given no command raises
    :class:`_NoCommand` for :func:`main` to print its help and exit 2 like any usage error."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: the click Context Typer bundles
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            raise _NoCommand(ctx)
        return super().parse_args(ctx, args)


app = typer.Typer(
    name="tfbuild",
    cls=CommandGroup,
    help="Turn a TensorFlow model into a small mobile TensorFlow binary.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)


@functools.cache
def console_class() -> type[Console]:
    """rich's console, reporting a closed stdout to :func:`main` (:func:`_broken_pipe`); rich
    is imported only by commands that print through it."""
    from rich.console import Console

    class ReportingConsole(Console):
        def on_broken_pipe(self) -> None:
            _broken_pipe(self)

    return ReportingConsole


class _LazyConsole:
    """A rich console made on first use: a run that prints nothing through it (``tfbuild header``
    with no notes) does not import rich."""

    def __init__(self, **settings: Any) -> None:
        self._settings = settings
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from tfbuild.cli.output import colour_settings

            self._console = console_class()(**self._settings,
                                            **colour_settings(stderr=self._settings.get("stderr", False)))
        return getattr(self._console, name)


stderr = cast("Console", _LazyConsole(stderr=True, highlight=False, soft_wrap=True))


def _broken_pipe(console: Console) -> None:
    """rich's own handling of a closed stdout exits 1 without a word (and so does click's, which
    the error would reach first); note it, so :func:`main` says what happened in one line."""
    console.quiet = True
    _state["broken_pipe"] = True
    raise BrokenPipeError(32, "Broken pipe")


coercion.install()
_typer_display_type = TyperOption.display_type_rich


def _display_type(option: TyperOption, ctx: Any) -> str | None:
    """Typer shows a flag's type as ``<bool>``, as if it took a value; a flag shows none."""
    return None if option.is_flag else _typer_display_type(option, ctx)


TyperOption.display_type_rich = _display_type  # type: ignore[method-assign,assignment]


def _argument_name(argument: TyperArgument) -> str:
    """An argument by its metavar (``MODEL``), ``...`` when it repeats: not Typer's
    ``{models}...`` or ``models... <list[Path]>``."""
    name = argument.metavar or (argument.name or "").upper()
    return name + ("..." if argument.nargs != 1 else "")


def _argument_usage(argument: TyperArgument) -> str:
    return _argument_name(argument) if argument.required else f"[{_argument_name(argument)}]"


def _range(option: TyperOption) -> str | None:
    """A bounded number's range in its metavar's words: ``N >= 1``, not ``x>=1``."""
    name = option.metavar or "x"
    low, high = getattr(option, "min", None), getattr(option, "max", None)
    if (low is None and high is None) or (option.count and low == 0 and high is None):
        return None
    if high is None:
        return f"{name} >= {low}"
    return f"{name} <= {high}" if low is None else f"{low} <= {name} <= {high}"


TyperOption._get_number_range_help_str = _range  # type: ignore[method-assign,assignment]


TyperArgument._usage_display_name = _argument_usage  # type: ignore[method-assign,assignment]
TyperArgument._rich_display_name = _argument_name  # type: ignore[method-assign,assignment]
TyperArgument.display_name_raw = property(_argument_name)  # type: ignore[assignment,method-assign]
TyperArgument.display_type_rich = lambda argument, ctx: None  # type: ignore[method-assign,assignment]
_state: dict[str, Any] = {"debug": False, "broken_pipe": False, "stdout_gone": False, "error": None}


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


_MODULES = {
    "analyze": "analysis_commands", "header": "analysis_commands",
    "targets": "build_commands", "workspace": "build_commands", "linkflags": "build_commands",
    "build": "build_commands",
    "edit": "edit_commands", "check": "edit_commands", "protobuf": "edit_commands",
    "compat": "compat_commands", "example": "example_commands",
    "source": "source_commands", "kernels": "source_commands",
    "verify": "verify_commands", "report": "report_commands", "aar": "android_commands",
    "config": "config_commands", "plan": "config_commands", "toolchain": "toolchain_commands",
    "memmap": "memmap_commands", "quantize-weights": "quantize_commands", "vendor": "vendor_commands",
}
"""Each command (or command group) by the module that declares it, in the order ``--help`` lists them."""
_registered: set[str] = set()


def _register_commands(names: tuple[str, ...] | None = None) -> None:
    """Add the commands ``names`` (default: every command) to ``app``, once each, in the order
    ``--help`` lists them.

    Only the module of the command that runs is imported (``tfbuild header`` loads none of the
    build's modules): start-up is mostly imports. ``build_commands`` and ``toolchain_commands``
    define plain functions and a sub-app, added here by name. The other command modules add their
    commands to ``app`` themselves when imported. Every module keeps its TensorFlow (and other
    heavy) imports inside the command bodies.
    """
    for module in dict.fromkeys(_MODULES[name] for name in (names or _MODULES)):
        if module in _registered:
            continue
        _registered.add(module)
        if module == "build_commands":
            from tfbuild.cli import build_commands

            app.command("targets")(build_commands.targets_command)
            app.command("workspace")(build_commands.workspace_command)
            app.command("linkflags")(build_commands.linkflags_command)
            app.command("build")(build_commands.build_command)
        elif module == "toolchain_commands":
            from tfbuild.cli import toolchain_commands

            app.add_typer(toolchain_commands.toolchain_app, name="toolchain")
        else:
            importlib.import_module(f"tfbuild.cli.{module}")
    order = list(_MODULES)

    def place(name: str | None) -> int:
        return order.index(name) if name in order else len(order)

    app.registered_commands.sort(key=lambda command: place(command.name))
    app.registered_groups.sort(key=lambda group: place(group.name))
    _let_interrupts_through(app)


class _Interrupted(Exception):
    """Ctrl-C inside a command, carried past Typer, which would turn the KeyboardInterrupt into
    a silent exit 130 and lose what the library noted on it. ``__cause__`` is the interrupt."""


def _interruptible(command: Callable[..., Any]) -> Callable[..., Any]:
    if getattr(command, "_tfbuild_interruptible", False):
        return command

    @functools.wraps(command)  # Typer reads the options from the wrapped signature
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt as interrupt:
            raise _Interrupted() from interrupt

    run._tfbuild_interruptible = True  # type: ignore[attr-defined]
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
    stderr and its exit code, Ctrl-C "interrupted" and 130 (SIGTERM and SIGHUP the same, with their
    own codes, 143 and 129); the notes the library added to
    either (a build that had changed the source tree says what and how to undo it) follow, one
    line each. Anything else is a tfbuild bug and keeps its traceback.

    A ``--json`` run prints one JSON document on stdout, failed or not: the command's, and when
    it failed, the error in it (``"error": {"message", "hint", "exit_code"}``; see
    :func:`tfbuild.cli.output.finish_json`).
    """
    if argv is None:
        if sys.stdout is None:  # started with stdout closed (>&-): the output would be lost
            stderr.print("error: stdout is closed, so the output would be lost; nothing was run (redirect it to "
                         "a file, or to /dev/null to discard it)", markup=False)
            sys.exit(1)
        _name_stdout()
    args = sys.argv[1:] if argv is None else argv
    as_json = "--json" in args[: args.index("--")] if "--" in args else "--json" in args
    from tfbuild.cli.output import hold_json
    from tfbuild.stop_signals import handle_stop_signals

    hold_json(as_json)
    _state["error"], _state["stdout_gone"] = None, False
    with handle_stop_signals():
        code = _run(args, argv)
    if as_json:
        code = _finish_json(code)
    if argv is None:
        sys.exit(code)
    return code


def _run(args: list[str], argv: list[str] | None) -> int:
    """Run the command ``args`` names; its exit code, each failure reported as :func:`main` says."""
    from tfbuild.stop_signals import exit_code, last_stop

    try:
        command = _prepared_command(args)
        # not standalone: a usage error reaches us, to be one line rather than click's box
        result = command.main(args=argv, prog_name="tfbuild", standalone_mode=False)
        code = result if isinstance(result, int) else 0
        if code == exit_code(None) and last_stop() is not None:  # Typer's 130 for a stop while it parsed
            code = _interrupted(last_stop())
    except (_NoCommand, typer.TyperException, typer.Abort) as usage:
        code = _usage_error(usage)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if _state["broken_pipe"]:
            code = _report_broken_pipe()
    except TfbuildError as error:
        if _state["debug"]:
            raise
        from rich.markup import escape

        # escaped: messages name config keys ("[android] ndk"), which are not markup
        stderr.print(f"[bold red]error:[/] {escape(error.one_line())}", markup=True)
        _note_error(error.message, error.hint)
        _print_notes(error)
        code = error.exit_code
    except (KeyboardInterrupt, _Interrupted) as interrupt:
        code = _interrupted(interrupt.__cause__ if isinstance(interrupt, _Interrupted) else interrupt)
    except BrokenPipeError:
        code = _report_broken_pipe()
    except Exception as failure:
        if _state["debug"]:
            raise
        code = _unexpected(failure)
    return code


def _note_error(message: str, hint: str | None = None) -> None:
    """Keep the error just printed for a ``--json`` run's document (:func:`_finish_json`)."""
    _state["error"] = {"message": message, "hint": hint}


def _finish_json(code: int) -> int:
    """Print a ``--json`` run's document (:func:`tfbuild.cli.output.finish_json`), the error in
    it when ``code`` is not 0; nothing when stdout was closed. The exit code, that of a failed
    write to stdout when it failed (a full disk)."""
    from tfbuild.cli.output import finish_json, hold_json

    if _state["stdout_gone"]:
        hold_json(False)
        return code
    error = None
    if code != 0:
        said = _state["error"] if isinstance(_state["error"], dict) else {
            "message": f"tfbuild exited with code {code}", "hint": None}
        error = {**said, "exit_code": code}
    try:
        finish_json(error)
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        return _report_broken_pipe()
    except OSError as failure:
        return _unexpected(OSError(failure.errno, failure.strerror, "stdout"))
    return code


def _interrupted(stop: BaseException | None) -> int:
    """Ctrl-C, SIGTERM or SIGHUP (:mod:`tfbuild.stop_signals`): one line, the notes the library
    added (what the tree holds now, the command that undoes it), and the shell's code for the
    signal (130, 143, 129)."""
    from tfbuild.stop_signals import Stopped, exit_code

    by = f" by {stop.name}" if isinstance(stop, Stopped) and stop.name != "SIGINT" else ""
    stderr.print(f"interrupted{by}", markup=False)
    _note_error(f"interrupted{by}")
    _print_notes(stop)
    return exit_code(stop)


def _prepared_command(args: list[str]) -> Any:
    """The click command for ``args``: only the named command's module loaded, its help made for
    where it is shown (boxed on a terminal, plain in a file or a pipe)."""
    command = _command(_command_named(args))
    if _asks_for_help(args):
        _polish_help(command, rich=_is_terminal(sys.stdout), shown=_command_named(args))
    else:  # a usage error goes to stderr: boxed there only on a terminal
        command.rich_markup_mode = "rich" if _is_terminal(sys.stderr) else None
    return command


_ROOT_FLAGS = frozenset({"--debug", "-q", "--quiet", "-v", "--verbose"})


def _command_named(args: list[str]) -> str | None:
    """The command ``args`` run (``header`` in ``tfbuild -q header m.pb``), or None when they
    name none, or the shell's completion asks: then every command is needed."""
    if any(name.startswith("_TFBUILD_COMPLETE") for name in os.environ):
        return None
    for arg in args:
        if arg not in _ROOT_FLAGS:
            return arg if arg in _MODULES else None
    return None


def _usage_error(usage: Exception) -> int:
    """A usage error (an unknown command or option, an option without its value) in one line
    and exit code 2, rather than click's box of five."""
    if isinstance(usage, _NoCommand):
        # On a terminal rich printed the help when the error was made; elsewhere it is the
        # message, printed here, on stderr as for any usage error
        if usage.help.strip():
            sys.stderr.write(usage.help.rstrip("\n") + "\n")
        _note_error("no command given", "see 'tfbuild --help'")
        return USAGE_EXIT_CODE
    if not isinstance(usage, typer.TyperException):  # typer.Abort
        if isinstance(usage.__cause__, KeyboardInterrupt):  # a stop while click parsed the options
            return _interrupted(usage.__cause__)
        stderr.print("error: aborted", markup=False)
        return 1
    ctx = getattr(usage, "ctx", None)
    _suggest_visible_options_only(usage)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    stderr.print(f"error: {usage.format_message()}{where}", markup=False)
    _note_error(usage.format_message(), f"see '{ctx.command_path} --help'" if ctx is not None else None)
    return usage.exit_code


def _suggest_visible_options_only(usage: typer.TyperException) -> None:
    """A mistyped option is answered with the options the help shows, not with the old
    spellings kept hidden (``--out``, for ``--out-dir``): click's ``NoSuchOption`` lists its
    ``possibilities``, which are narrowed here to the command's visible options."""
    possibilities = getattr(usage, "possibilities", None)
    ctx = getattr(usage, "ctx", None)
    if not possibilities or ctx is None:
        return
    hidden = {name for param in ctx.command.params if getattr(param, "hidden", False) for name in param.opts}
    usage.possibilities = [name for name in possibilities if name not in hidden]  # type: ignore[attr-defined]


@functools.cache
def _command(name: str | None = None) -> Any:
    """The click command Typer makes of the app with command ``name`` (default: every command),
    made once per process and name (making it reads the commands' signatures: most of a quick
    command's time when a test calls :func:`main` often)."""
    _register_commands((name,) if name is not None else None)
    return typer.main.get_command(app)


def _asks_for_help(args: list[str]) -> bool:
    """Whether the help will be printed: the only time it needs :func:`_polish_help`."""
    return not args or "--help" in args or args[-1:] in (["config"], ["toolchain"], ["protobuf"], ["edit"])


def _unexpected(failure: Exception) -> int:
    """One line for a failure no command expected: git's (:func:`tfbuild.tree.git_errors.user_error`)
    as the error it is, an operating system error (a full disk, a permission) naming its file;
    anything else is a tfbuild bug, reported as one."""
    from tfbuild.tree.git_errors import user_error

    error = user_error(failure)
    if error is not None:
        stderr.print(f"error: {error.one_line()}", markup=False)
        _note_error(error.message, error.hint)
        _print_notes(failure)
        return error.exit_code
    if isinstance(failure, OSError) and failure.strerror:
        if failure.filename == "stdout":  # the output itself could not be written (a full disk)
            _detach_stdout()
        where = f"{failure.filename}: " if failure.filename else ""
        stderr.print(f"error: {where}{failure.strerror}", markup=False)
        _note_error(f"{where}{failure.strerror}")
        _print_notes(failure)
        return 1
    stderr.print(f"error: internal error ({type(failure).__name__}: {failure}); run again with --debug for the "
                 "traceback, and please report it", markup=False)
    _note_error(f"internal error ({type(failure).__name__}: {failure})", "run again with --debug for the traceback")
    _print_notes(failure)
    return INTERNAL_ERROR_EXIT_CODE


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
    _state["stdout_gone"] = True
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


_UNWRAPPED = 100_000
"""The help's width in a file or a pipe (:data:`tfbuild.cli.output.WIDE`): nothing is wrapped."""


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _polish_help(command: Any, *, rich: bool = False, shown: str | None = None) -> None:
    """Make every command's help read as it should where it is shown (flags lose their
    ``<bool>`` in :func:`_display_type`; the build options' variables and ``tfbuild.toml`` keys
    are in their help already, from their declarations: :mod:`tfbuild.cli.option_flags`).

    ``rich``: boxed Rich help (a terminal), with every help text escaped, so the TOML tables it
    names (``[header]``, ``[apps.NAME]``) show instead of being taken for markup. Otherwise plain
    click help: no boxes, no markup, nothing to escape, and no line wrapped (as any command's
    output in a file or a pipe)."""
    if not rich:  # plain help in a file or a pipe: no line wrapped, no description cut short
        command.context_settings = {**command.context_settings, "terminal_width": _UNWRAPPED}
    commands: list[tuple[str, Any]] = [("", command)]
    while commands:
        _name, current = commands.pop()
        if isinstance(current, TyperGroup):
            commands.extend(current.commands.items())
        if isinstance(current, TyperGroup | TyperCommand):
            current.rich_markup_mode = "rich" if rich else None
        if getattr(current, "_tfbuild_polished", False):
            continue
        current._tfbuild_polished = True
        texts = [param for param in current.params if isinstance(param, TyperOption | TyperArgument)]
        if rich:
            from rich.markup import escape

            for item in (current, *texts):
                for attribute in ("help", "short_help"):
                    if getattr(item, attribute, None):
                        setattr(item, attribute, escape(getattr(item, attribute)))


def _print_notes(error: BaseException | None) -> None:
    for note in getattr(error, "__notes__", ()):
        stderr.print(note, markup=False)
