"""What every command's parameters share: their names, and how a value given two ways resolves.

The convention (checked by tests/test_cli_conventions.py):

- models are positional arguments (``MODEL...``); ``--model``/``-m``, where a command had it,
  stays accepted (hidden) so scripts keep working, and adds to the positional ones;
- ``-o``/``--output PATH`` names a file the command writes, ``--out-dir DIR`` a directory
  (``--out``, the old spelling, stays accepted, hidden);
- ``-j``/``--jobs N`` takes N >= 1 (default: one per core);
- ``--source DIR`` resolves the same way for every command (:func:`find_source_tree`): the flag, else
  ``$TFBUILD_SOURCE``, else tfbuild.toml's ``[build] source``, else none, which a command that
  needs a tree refuses in one line;
- values are named by what they are (``MODEL``, ``PATH``, ``DIR``, ``N``, ``NAME``, ``URL``),
  never by their Python type.

Nothing here imports more than the standard library and tfbuild's errors: ``tfbuild --help``
loads it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from tfbuild.errors import ConfigError

T = TypeVar("T")

OUT_DIR_FLAGS = ("--out-dir",)
OUT_DIR_ALIAS = "--out"
SOURCE_ENV = "TFBUILD_SOURCE"
SOURCE_DEFAULT = "(default: $TFBUILD_SOURCE, else tfbuild.toml's [build] source)."


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


def find_source_tree(flag: Path | None, *, config: Path | None = None, required: bool = False) -> Path | None:
    """The TensorFlow tree a command works on, resolved as ``tfbuild build`` resolves it: the
    flag, else ``$TFBUILD_SOURCE``, else tfbuild.toml's ``[build] source`` (``config``, or
    ``$TFBUILD_CONFIG``, or ./tfbuild.toml), else none. The option resolver (and its TOML reader)
    is loaded only when a variable or a file could say something."""
    if flag is not None:
        return flag
    if os.environ.get(SOURCE_ENV):
        return Path(os.environ[SOURCE_ENV])
    found: Path | None = None
    if config is not None or os.environ.get("TFBUILD_CONFIG") or Path("tfbuild.toml").is_file():
        from tfbuild.pipeline.options import resolve_build_options

        found = resolve_build_options({}, environ=os.environ, cwd=Path.cwd(), config_file=config,
                                      require_target=False).source
    if found is None and required:
        raise ConfigError(
            "no TensorFlow source tree given",
            hint=f"pass --source DIR, set ${SOURCE_ENV}, or set source in tfbuild.toml's [build] table",
        )
    return found


def source_tree(flag: Path | None, *, config: Path | None = None) -> Path:
    """:func:`find_source_tree` for a command that needs a tree: none found is refused."""
    tree = find_source_tree(flag, config=config, required=True)
    assert tree is not None
    return tree
