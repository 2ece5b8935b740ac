"""Reading TOML tables strictly: unknown keys and wrong types are errors that name the file.

Target profiles and ``tfbuild.toml`` are both hand-edited; a misspelt key that were silently
ignored would build the wrong thing without a word. Every table is checked against the keys its
reader knows, and an unknown one is reported with the closest known key ("did you mean").
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tfbuild.errors import ConfigError


def load_toml(path: Path) -> dict[str, Any]:
    """Parse ``path``; a missing file or a syntax error is a :class:`ConfigError` naming it."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found", hint="check the path") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}", hint="fix the syntax") from None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string."""
    choices = list(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:  # 'sdk_path' for 'sdk': a known name the word starts with
        close = [choice for choice in choices if len(choice) >= 3 and word.lower().startswith(choice.lower())][:1]
    return f" (did you mean '{close[0]}'?)" if close else ""


def check_keys(table: Mapping[str, Any], known: Iterable[str], *, where: str) -> None:
    """Refuse keys of ``table`` outside ``known``; ``where`` names the file and table."""
    known = tuple(known)
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{where}: unknown key '{key}'{did_you_mean(key, known)}",
                hint=f"known keys: {', '.join(sorted(known))}",
            )


def require_keys(table: Mapping[str, Any], required: Iterable[str], *, where: str) -> None:
    for key in required:
        if key not in table:
            raise ConfigError(f"{where}: missing key '{key}'", hint="add it")


def table(value: Any, *, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a table, got {type(value).__name__}")
    return value


def string(value: Any, *, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    return value


def boolean(value: Any, *, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    return value


def integer(value: Any, *, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    return value


def strings(value: Any, *, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)


def integers(value: Any, *, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(item, int) and not isinstance(item, bool) for item in value
    ):
        raise ConfigError(f"{where}: expected a list of integers, got {value!r}")
    return tuple(value)


def string_table(value: Any, *, where: str) -> dict[str, str]:
    mapping = table(value, where=where)
    return {key: string(item, where=f"{where}.{key}") for key, item in mapping.items()}
