"""Command-line flags made from the build options' declarations
(:data:`tfbuild.pipeline.declarations.options.OPTIONS`), so a command that takes an option takes it as every
other command does: the same flags, metavar and help (naming the option's environment variables
and its ``tfbuild.toml`` key), and the same resolution behind them.

:func:`takes_options` turns a command ``def command(flags: Flags, ...)`` into the function Typer
reads: its signature gets one Typer option per declaration in place of ``flags``, and a call
gathers those parameters back into a :class:`~tfbuild.pipeline.declarations.options.Flags`, keyed by the
declarations, for the resolver. No string-keyed dictionary stands between Click and the resolver.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import typer

from tfbuild.errors import ConfigError
from tfbuild.pipeline.declarations.options import Flags, Option, ResolvedOptions, resolve_with_origins

R = TypeVar("R")
Declared = Option[object] | tuple[Option[object], str]
"""An option a command takes, with its declared help or (a pair) the command's own wording."""


def takes_options(*declared: Declared) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Give the decorated command a flag for each declared option, in the order given and in
    the place of its parameter ``flags``, which receives them."""
    options = [(item, item.help) if isinstance(item, Option) else item for item in declared]

    def bind(command: Callable[..., R]) -> Callable[..., R]:
        signature = inspect.signature(command, eval_str=True)
        own = list(signature.parameters.values())
        at = next((index for index, parameter in enumerate(own) if parameter.name == "flags"), None)
        if at is None:
            raise TypeError(f"{command.__name__} has no 'flags' parameter")  # a tfbuild bug
        parameters = [*own[:at], *(_parameter(option, text) for option, text in options), *own[at + 1:]]

        @functools.wraps(command)
        def run(**kwargs: object) -> R:
            given = [(option, kwargs.pop(option.name, None)) for option, _ in options]
            flags = Flags.of(given, takes=(option for option, _ in options))
            return command(flags=flags, **kwargs)

        run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
        run.__annotations__["return"] = signature.return_annotation
        return run

    return bind


def resolve(flags: Flags, config: Path | None = None, *, require_target: bool = True) -> ResolvedOptions:
    """The options ``flags`` gave, over this process's environment and tfbuild.toml (``config``,
    else ``$TFBUILD_CONFIG``, else ``./tfbuild.toml``): what every command resolves."""
    return resolve_with_origins(
        flags, environ=os.environ, cwd=Path.cwd(), config_file=config, require_target=require_target
    )


def source_tree(flags: Flags) -> Path:
    """The TensorFlow tree a tree command works on: ``--source``, ``$TFBUILD_SOURCE``, tfbuild.toml's
    ``[build] source``, as every command resolves it; none is refused in one line (a command does
    not guess that the working directory is a tree)."""
    return require_source(resolve(flags, require_target=False).options.source)


def require_source(tree: Path | None) -> Path:
    """``tree``, resolved as every option is; none is a usage error saying how to give one."""
    if tree is None:
        raise ConfigError(
            "no TensorFlow source tree given",
            hint="pass --source DIR, set $TFBUILD_SOURCE, or set source in tfbuild.toml's [build] table",
        )
    return tree


def help_text(option: Option[object], text: str | None = None) -> str:
    """The option's help as Typer prints it: the text, its declared default, its variables, its
    ``tfbuild.toml`` key. Plain text: the help escapes it where Rich renders it (a terminal), so
    ``[build]`` is not taken for markup."""
    parts = [text if text is not None else option.help]
    if option.default_text:
        parts.append(f"(default: {option.default_text})")
    if option.variables:
        parts.append(f"(env: {', '.join('$' + name for name in option.variables)})")
    if option.file_key is not None:
        parts.append(f"(tfbuild.toml: {option.file_key})")
    return " ".join(parts)


def _parameter(option: Option[object], text: str) -> inspect.Parameter:
    """The Typer parameter for ``option``: None (or no item) when not given, so the resolver
    can tell a flag left out from one given its default value."""
    kind = option.kind
    annotation = list[kind.cli] | None if kind.repeat else kind.cli | None  # type: ignore[name-defined]
    info = typer.Option(
        None, *option.cli_flags, help=help_text(option, text), metavar=option.value_name or None, show_default=False,
        min=kind.least,
    )
    return inspect.Parameter(option.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=info, annotation=annotation)
