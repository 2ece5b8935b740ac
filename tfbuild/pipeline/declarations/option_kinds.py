"""The kinds of value a build option takes: how each is written in ``tfbuild.toml``, on the
command line and in the environment, and how it is read and checked.

A :class:`Kind` bundles the parser every layer's value goes through (a TOML value, an
environment string, a flag as Typer converted it: the same checks, the same messages, each
naming where the value came from), the type ``tfbuild.toml`` holds (checked first by
:func:`tfbuild.config.read_toml`), the type a flag is converted to, and the flag's metavar. The
options themselves are declared in :mod:`tfbuild.pipeline.declarations.options`, each with one kind.

Parsers take ``(raw, where, base)``: ``raw`` is whatever the layer gives (a string from the
environment, a typed TOML value, a flag's value), ``where`` names the flag, variable or file key
for messages, and ``base`` is the directory relative paths are relative to.
"""

from __future__ import annotations

import functools
import math
import os
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar, cast

from tfbuild.config import check_choice
from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.model.header import GRANULARITIES, HeaderOptions
from tfbuild.pipeline.caches.remote import SecretUrl, parse_cache_url, parse_distcc_hosts
from tfbuild.pipeline.outputs.android.names import (
    JAVA_APIS,
    JavaApi,
    check_java_api,
    check_java_package,
    check_library_name,
)
from tfbuild.pipeline.planning.protobuf_runtime import RUNTIMES, ProtobufRuntime
from tfbuild.resources import toolchains_dir
from tfbuild.tree.mirror_mapping import MirrorMapping, parse_mapping
from tfbuild.tree.mobile_types import MOBILE_TYPES_MODES, MobileTypesMode

T_co = TypeVar("T_co", covariant=True)
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*\Z")


@dataclass(frozen=True)
class Kind(Generic[T_co]):
    """One kind of option value. ``toml`` is the type tfbuild.toml holds (``str``, ``Path``,
    ``tuple[Path, ...]``: :func:`~tfbuild.config.read_toml` checks it), ``cli`` the type Typer
    converts one flag value to, ``repeat`` a flag given once per item (``--model a --model b``),
    ``switch`` an on/off flag without a value, ``metavar`` what a flag's value is called in help."""

    parse: Callable[[object, str, Path], T_co]
    toml: object
    cli: type
    metavar: str = ""
    repeat: bool = False
    switch: bool = False
    least: int | None = None
    """The smallest value a flag takes (Typer checks it, and its help says so)."""


def as_str(raw: object, where: str, base: Path) -> str:
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: expected a string, got {raw!r}")
    return raw


def as_path(raw: object, where: str, base: Path) -> Path:
    if isinstance(raw, Path):
        raw = str(raw)
    text = as_str(raw, where, base)
    if not text.strip():
        raise ConfigError(f"{where}: empty path")
    return (base / Path(text).expanduser()).resolve()


def _as_paths(raw: object, where: str, base: Path) -> tuple[Path, ...]:
    items: list[object]
    if isinstance(raw, str):  # the environment: a path list like $PATH
        items = [item for item in raw.split(os.pathsep) if item]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise ConfigError(f"{where}: expected a list of paths, got {raw!r}")
    return tuple(as_path(item, where, base) for item in items)


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _as_bool(raw: object, where: str, base: Path) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUE + _FALSE:
        return raw.strip().lower() in _TRUE
    raise ConfigError(f"{where}: expected true or false, got {raw!r}", hint=f"use one of: {', '.join(_TRUE + _FALSE)}")


def _whole_number(raw: object, where: str, *, least: int, what: str) -> int:
    """``raw`` (a TOML integer or an environment string) as an int of at least ``least``."""
    if isinstance(raw, str):
        try:
            raw = int(raw.strip())
        except ValueError:
            raise ConfigError(f"{where}: expected a whole number, got {raw!r}") from None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < least:
        raise ConfigError(f"{where}: expected {what}, got {raw!r}")
    return raw


def _as_int(raw: object, where: str, base: Path) -> int:
    return _whole_number(raw, where, least=1, what="a positive whole number")


def _as_seconds(raw: object, where: str, base: Path) -> float:
    if isinstance(raw, str):
        try:
            raw = float(raw.strip())
        except ValueError:
            raise ConfigError(f"{where}: expected seconds, got {raw!r}") from None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw) or raw <= 0:
        raise ConfigError(f"{where}: expected a positive number of seconds, got {raw!r}",
                          hint="leave the timeout out for no limit")
    return float(raw)


def _as_words(raw: object, where: str, base: Path) -> tuple[str, ...]:
    if isinstance(raw, str):  # the environment: split as a shell would, never run by one
        try:
            return tuple(shlex.split(raw))
        except ValueError as error:
            raise ConfigError(f"{where}: {error}") from None
    if isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
        return tuple(str(item) for item in raw)
    raise ConfigError(f"{where}: expected a list of strings, got {raw!r}")


def _as_flavour(raw: object, where: str, base: Path) -> Flavour:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_choice(text, [flavour.value for flavour in Flavour], noun="flavour"))
    return Flavour(text)


def as_name(raw: object, where: str, base: Path) -> str:
    text = as_str(raw, where, base)
    if not _NAME.match(text):
        raise ConfigError(
            f"{where}: '{text}' is not a plain name", hint="use lower-case letters, digits, '_', '.', '-'"
        )
    return text


def as_target(raw: object, where: str, base: Path) -> str:
    from tfbuild.toolchain.targets import get_target

    text = as_str(raw, where, base)
    _checked(where, lambda: get_target(text))  # unknown names fail here, with a guess
    return text


def _as_granularity(raw: object, where: str, base: Path) -> str:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_choice(text, GRANULARITIES, noun="header granularity"))
    return text


def _as_default_ops(raw: object, where: str, base: Path) -> str:
    text = as_str(raw, where, base)
    _checked(where, lambda: HeaderOptions(default_ops=text))  # the header's own parser decides what is valid
    return text


def _as_epoch(raw: object, where: str, base: Path) -> int:
    """Seconds since 1970-01-01 UTC, as ``SOURCE_DATE_EPOCH`` holds them (0 included)."""
    return _whole_number(raw, where, least=0, what="whole seconds since 1970")


def _as_cache_url(raw: object, where: str, base: Path) -> SecretUrl:
    if isinstance(raw, SecretUrl):
        return raw
    return parse_cache_url(as_str(raw, where, base), where)


def _as_distcc_hosts(raw: object, where: str, base: Path) -> tuple[str, ...]:
    if isinstance(raw, str):  # the environment: DISTCC_HOSTS' own form, words split on blanks
        raw = raw.split()
    return parse_distcc_hosts(_as_words(raw, where, base), where)


SIZE_PROFILES_FILE = Path("tensorflow") / "size_profiles.toml"
"""The size profiles' data file, under ``toolchains/``; :mod:`.size_profiles` reads it whole."""


@functools.cache
def listed_size_profiles() -> tuple[str, ...]:
    """The names of the size profiles, in the data file's order, read without the profiles'
    module: the options' help and the option's check need only the names, and ``--help`` must
    not pay for importing the plan types the profiles are applied with."""
    with (toolchains_dir() / SIZE_PROFILES_FILE).open("rb") as data:
        profiles = tomllib.load(data).get("profiles", {})
    return tuple(profiles)


def _as_size_profile(raw: object, where: str, base: Path) -> str:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_choice(text, listed_size_profiles(), noun="size profile"))
    return text


def _as_protobuf_runtime(raw: object, where: str, base: Path) -> ProtobufRuntime:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_choice(text, RUNTIMES, noun="protobuf runtime"))
    return cast(ProtobufRuntime, text)


def _as_mobile_types(raw: object, where: str, base: Path) -> MobileTypesMode:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_choice(text, MOBILE_TYPES_MODES, noun="mobile types"))
    return cast(MobileTypesMode, text)


def _as_java_package(raw: object, where: str, base: Path) -> str:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_java_package(text))
    return text


def _as_java_api(raw: object, where: str, base: Path) -> JavaApi:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_java_api(text))
    return cast(JavaApi, text)


def _as_jni_library(raw: object, where: str, base: Path) -> str:
    text = as_str(raw, where, base)
    _checked(where, lambda: check_library_name(text))
    return text


def choice_help(intro: str, choices: Iterable[str], described: Mapping[str, str], outro: str = "") -> str:
    """An option's help made from its real choice list: ``intro: a (what a is) | b | c.``, each
    choice with its description in ``described``, whose keys must all be choices."""
    names = tuple(choices)
    unknown = sorted(set(described) - set(names))
    if unknown:
        raise ValueError(f"described, but no choice: {unknown}")  # a tfbuild bug, caught by any import
    listed = " | ".join(f"{name} ({described[name]})" if name in described else name for name in names)
    return f"{intro}: {listed}{outro}."


def _checked(where: str, check: Callable[[], object]) -> None:
    """Run ``check``; a :class:`ConfigError` it raises gets ``where`` in front."""
    try:
        check()
    except ConfigError as error:
        raise ConfigError(f"{where}: {error.message}", hint=error.hint) from None


def _as_mirror_mappings(raw: object, where: str, base: Path) -> tuple[MirrorMapping, ...]:
    """``NAME=DIR[@REF[:SUBDIR]]`` words; a relative DIR is relative to ``base`` (tfbuild.toml's
    directory for the file's table)."""
    return tuple(parse_mapping(word, where=where, base=base) for word in _as_words(raw, where, base))


STR = Kind(as_str, str, str, "TEXT")
NAME = Kind(as_name, str, str, "NAME")
PATH = Kind(as_path, Path, Path, "PATH")
PATHS = Kind(_as_paths, tuple[Path, ...], Path, "PATH", repeat=True)
SWITCH = Kind(_as_bool, bool, bool, switch=True)
COUNT = Kind(_as_int, int, int, "N", least=1)
SECONDS = Kind(_as_seconds, float, float, "SECONDS")
WORDS = Kind(_as_words, tuple[str, ...], str, "WORD", repeat=True)
FLAVOUR = Kind(_as_flavour, str, str, "FLAVOUR")
TARGET = Kind(as_target, str, str, "TARGET")
GRANULARITY = Kind(_as_granularity, str, str, "|".join(GRANULARITIES))
DEFAULT_OPS = Kind(_as_default_ops, str, str, "OP:KERNEL,...")
SIZE_PROFILE = Kind(_as_size_profile, str, str, "|".join(listed_size_profiles()))
PROTOBUF_RUNTIME = Kind(_as_protobuf_runtime, str, str, "|".join(RUNTIMES))
EPOCH = Kind(_as_epoch, int, int, "SECONDS")
MOBILE_TYPES = Kind(_as_mobile_types, str, str, "|".join(MOBILE_TYPES_MODES))
JAVA_PACKAGE = Kind(_as_java_package, str, str, "PACKAGE")
JNI_LIBRARY = Kind(_as_jni_library, str, str, "NAME")
JAVA_API = Kind(_as_java_api, str, str, "|".join(JAVA_APIS))
CACHE_URL = Kind(_as_cache_url, str, str, "URL")
DISTCC_HOSTS = Kind(_as_distcc_hosts, tuple[str, ...], str, "HOST:PORT/LIMIT", repeat=True)
MIRROR_MAPPINGS = Kind(_as_mirror_mappings, tuple[str, ...], str, "NAME=DIR", repeat=True)
