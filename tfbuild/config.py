"""Reading TOML files strictly into frozen dataclasses: unknown keys and wrong types are errors
that name the file and the key.

Target profiles, the TensorFlow version table and ``tfbuild.toml`` are all hand-edited; a
misspelt key that were silently ignored would build the wrong thing without a word. Each file is
described by a frozen dataclass, and :func:`read_toml` walks the file into it by the fields'
types: ``str``, ``int``, ``bool``, ``float``, ``Path``, ``tuple[X, ...]`` (a TOML array),
``Mapping[str, X]`` and nested dataclasses (TOML tables), ``Literal`` and ``StrEnum`` choices, and
``X | None``. A field with a default may be left out; any other is required. A key no field
names is reported with the closest known key ("did you mean").

Rules beyond a value's type are attached to it as ``Annotated[T, Check(rule)]``; rules that
relate fields to each other go in the dataclass's ``__post_init__``. Both raise
:class:`~tfbuild.errors.ConfigError` without a location, and the walker adds the file and key.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import os
import re
import tomllib
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from tfbuild.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

D = TypeVar("D", bound="DataclassInstance")


def load_toml(path: Path) -> dict[str, object]:
    """Parse ``path``; a missing file, a directory, a FIFO or device, a file larger than
    :data:`~tfbuild.fileio.SMALL_SIZE_LIMIT`, bytes that are not UTF-8 or a syntax error is a
    :class:`ConfigError` naming it."""
    from tfbuild.fileio import nesting_bounded, read_input_bytes

    if not os.path.lexists(path):
        raise ConfigError(f"{path}: file not found", hint="check the path")
    data = read_input_bytes(path, error=ConfigError, hint="check the path")
    try:
        with nesting_bounded(path, ConfigError, hint="no tfbuild.toml nests that deep: fix the file"):
            return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not valid TOML: not UTF-8 (byte {error.start})", hint="save the file as UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}", hint="fix the syntax") from None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string."""
    choices = list(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:  # 'sdk_path' for 'sdk': a known name the word starts with
        close = [choice for choice in choices if len(choice) >= 3 and word.lower().startswith(choice.lower())][:1]
    return f" (did you mean '{close[0]}'?)" if close else ""


def check_keys(table: Mapping[str, object], known: Iterable[str], *, where: str) -> None:
    """Refuse keys of ``table`` outside ``known``; ``where`` names the file and table."""
    known = tuple(known)
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{where}: unknown key '{key}'{did_you_mean(key, known)}",
                hint=f"known keys: {', '.join(sorted(known))}",
            )


def check_choice(text: str, choices: Iterable[str], *, noun: str = "value") -> None:
    """Refuse ``text`` outside ``choices``, guessing the one meant: ``unknown <noun> 'x'``."""
    choices = tuple(choices)
    if text not in choices:
        raise ConfigError(
            f"unknown {noun} '{text}'{did_you_mean(text, choices)}", hint=f"use one of: {', '.join(choices)}"
        )


@dataclass(frozen=True)
class Check:
    """A rule a value must meet beyond its type, as ``Annotated[str, Check(rule)]``. ``rule``
    gets the value read and raises :class:`ConfigError` (the walker adds where it is)."""

    rule: Callable[[Any], None]


def non_empty(value: tuple[object, ...]) -> None:
    """A :class:`Check` rule for arrays that must hold something."""
    if not value:
        raise ConfigError("expected a non-empty list")


def read_mapping(cls: type[D], data: Any, *, source: str) -> D:
    """Read ``data`` (JSON that tfbuild wrote, such as a build's manifest) into ``cls`` by the same
    rules as a TOML file; JSON's ``null`` is None where the field may be None. Problems are
    :class:`ConfigError` naming ``source`` and the key; callers that read a file of their own
    turn them into their error."""
    return _read_dataclass(cls, data, _Where(source, toml=False), {})


def read_toml(cls: type[D], path: Path, **given: Any) -> D:
    """Read the TOML file ``path`` into the dataclass ``cls``.

    ``given`` supplies fields that do not come from the file (its name, its path): the file may
    not set them. Every problem is a :class:`ConfigError` naming the file and the key.
    """
    return _read_dataclass(cls, load_toml(path), _Where(str(path)), given)


@dataclass(frozen=True)
class _Where:
    """A place in a TOML file, as messages name it: ``file: [section] key.sub[0].name``."""

    file: str
    keys: tuple[str | int, ...] = ()
    section: bool = False  # keys[0] is a table at the top of the file, shown as [name]
    toml: bool = True  # JSON has no [sections]: keys are dotted all the way

    def key(self, name: str, *, table: bool) -> _Where:
        section = self.section or (self.toml and table and not self.keys)
        return _Where(self.file, (*self.keys, name), section, self.toml)

    def index(self, index: int) -> _Where:
        return _Where(self.file, (*self.keys, index), self.section, self.toml)

    def __str__(self) -> str:
        if not self.keys:
            return self.file
        head, *rest = self.keys
        path = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in rest)
        text = f"[{head}] {path.removeprefix('.')}".rstrip() if self.section else f"{head}{path}"
        return f"{self.file}: {text}"


@contextlib.contextmanager
def _at(where: _Where) -> Iterator[None]:
    """Add ``where`` to a :class:`ConfigError` raised inside (by a rule or ``__post_init__``)."""
    try:
        yield
    except ConfigError as error:
        raise ConfigError(f"{where}: {error.message}", hint=error.hint) from None


def _read_dataclass(cls: type[D], raw: object, where: _Where, given: Mapping[str, object]) -> D:
    table = _table(raw, where)
    fields = [field for field in dataclasses.fields(cls) if field.init and field.name not in given]
    check_keys(table, (field.name for field in fields), where=str(where))
    hints = _field_types(cls)
    values = dict(given)
    for field in fields:
        kind = hints[field.name]
        if field.name in table:
            values[field.name] = _read(kind, table[field.name], where.key(field.name, table=_is_table(kind)))
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ConfigError(f"{where}: missing key '{field.name}'", hint="add it")
    with _at(where):
        return cls(**values)


@functools.cache
def _field_types(cls: type) -> dict[str, object]:
    return get_type_hints(cls, include_extras=True)


def _read(kind: Any, raw: Any, where: _Where) -> Any:
    """``raw``, as tomllib gives it, checked against the type ``kind`` and converted to it."""
    origin, args = get_origin(kind), get_args(kind)
    if kind is Any:  # a section tfbuild records as it found it (an engine's counts)
        return raw
    if origin is Annotated:
        value = _read(args[0], raw, where)
        for check in kind.__metadata__:
            if isinstance(check, Check):
                with _at(where):
                    check.rule(value)
    elif origin in (Union, types.UnionType):  # X | None: None is "left out" in TOML, null in JSON
        (inner,) = (arg for arg in args if arg is not type(None))
        value = None if raw is None else _read(inner, raw, where)
    elif origin is tuple:
        if not isinstance(raw, list):
            raise ConfigError(f"{where}: expected a list of {_plural(args[0])}, got {raw!r}")
        value = tuple(_read(args[0], item, where.index(index)) for index, item in enumerate(raw))
    elif origin in (Mapping, dict):
        value = {key: _read(args[1], item, where.key(key, table=False)) for key, item in _table(raw, where).items()}
    elif isinstance(kind, type) and dataclasses.is_dataclass(kind):
        value = _read_dataclass(kind, raw, where, {})
    elif origin is Literal or _is_enum(kind):
        value = _choice(kind, raw, where)
    else:
        value = _scalar(kind, raw, where)
    return value


def _choice(kind: Any, raw: Any, where: _Where) -> Any:
    """A ``Literal`` string (``unknown value 'x'``) or a ``StrEnum`` member (``unknown flavour 'x'``)."""
    text = _scalar(str, raw, where)
    with _at(where):
        if _is_enum(kind):
            check_choice(text, (member.value for member in kind), noun=_noun(kind))
            return kind(text)
        check_choice(text, get_args(kind))
    return text


# The scalar types: what a value is called in messages (one, several), and the TOML types read as
# it. An integer stays one where a float is expected (as in Python's typing), so messages show the
# number as written.
_SCALARS: dict[Any, tuple[str, str, tuple[type, ...]]] = {
    str: ("a string", "strings", (str,)),
    int: ("a whole number", "whole numbers", (int,)),
    float: ("a number", "numbers", (int, float)),
    bool: ("true or false", "true or false values", (bool,)),
    Path: ("a path", "paths", (str,)),
}


def _scalar(kind: Any, raw: Any, where: _Where) -> Any:
    if kind not in _SCALARS:
        raise TypeError(f"{where}: no TOML reading for {kind!r}")  # a tfbuild bug, not user input
    one, _, accepted = _SCALARS[kind]
    wrong_type = isinstance(raw, bool) != (kind is bool) or not isinstance(raw, accepted)  # true is no number
    if wrong_type:
        raise ConfigError(f"{where}: expected {one}, got {raw!r}")
    if kind is not Path:
        return raw
    if not raw.strip():
        raise ConfigError(f"{where}: empty path")
    return Path(raw)


def _table(raw: object, where: _Where) -> Mapping[str, object]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: expected a table, got {type(raw).__name__}")
    return raw


def _is_table(kind: Any) -> bool:
    """Whether TOML writes a value of type ``kind`` as a table (``[name]`` at the top of a file)."""
    kind = _bare(kind)
    return get_origin(kind) in (Mapping, dict) or _is_dataclass(kind)


def _plural(kind: Any) -> str:
    """What several values of type ``kind`` are called in messages."""
    kind = _bare(kind)
    if _is_dataclass(kind):
        return "tables"
    if get_origin(kind) is Literal or _is_enum(kind):
        return "strings"
    return _SCALARS[kind][1] if kind in _SCALARS else "values"


def _bare(kind: Any) -> Any:
    """``kind`` without ``Annotated[...]`` and ``| None``."""
    while get_origin(kind) in (Annotated, Union, types.UnionType):
        kind = next(arg for arg in get_args(kind) if arg is not type(None))
    return kind


def _is_dataclass(kind: Any) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


def _is_enum(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, Enum)


def _noun(enum: type[Enum]) -> str:
    """What an enum's values are called in messages: ``Flavour`` -> ``flavour``."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", enum.__name__).lower()
