"""What every command's parameters share: their names, and how a value given two ways resolves.

The convention (checked by tests/test_cli_conventions.py):

- models are positional arguments (``MODEL...``); ``--model``/``-m``, where a command had it,
  stays accepted (hidden) so scripts keep working, and adds to the positional ones;
- ``-o``/``--output PATH`` names a file the command writes, ``--out-dir DIR`` a directory
  (``--out``, the old spelling, stays accepted, hidden);
- ``-j``/``--jobs N`` takes N >= 1 (default: one per core);
- ``--source DIR`` resolves the same way for every command, from its declaration
  (:func:`tfbuild.cli.option_flags.source_tree`): the flag, else ``$TFBUILD_SOURCE``, else
  tfbuild.toml's ``[build] source``, else none, which a command that needs a tree refuses in one
  line;
- values are named by what they are (``MODEL``, ``PATH``, ``DIR``, ``N``, ``NAME``, ``URL``),
  never by their Python type.

Nothing here imports more than the standard library and tfbuild's errors: ``tfbuild --help``
loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from tfbuild.errors import ConfigError

T = TypeVar("T")

OUT_DIR_FLAGS = ("--out-dir",)
OUT_DIR_ALIAS = "--out"


def either(value: T | None, alias: T | None, flag: str, alias_flag: str, *, required: bool = False) -> T | None:
    """The value of ``flag``, or of its old spelling ``alias_flag``; both given differently is a
    usage error, and so is neither when ``required``."""
    if value is not None and alias is not None and value != alias:
        raise ConfigError(f"{flag} and {alias_flag} name the same setting; give one",
                          hint=f"{alias_flag} is the old spelling of {flag}")
    chosen = value if value is not None else alias
    if chosen is None and required:
        raise ConfigError(f"missing option {flag}", hint=f"e.g. {flag} tfbuild-out/linux-x86_64")
    return chosen


def models(positional: Sequence[Path] | None, option: Sequence[Path] | None) -> tuple[Path, ...]:
    """Models given as arguments, then those given with the old ``--model`` option."""
    return (*(positional or ()), *(option or ()))
