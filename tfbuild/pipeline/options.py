"""Build options, resolved in one place: defaults, then ``tfbuild.toml``, then the environment,
then command-line flags, each later layer overriding the earlier ones.

Modelled on cibuildwheel's ``options.py``: :func:`resolve_build_options` takes the environment
as an argument (tests pass a dict, nothing reads ``os.environ`` behind their back) and returns
frozen values; the CLI only collects the flags the user gave. Every option has one row in
:data:`OPTIONS` saying where it may come from, so the precedence is the same for all of them.
``tfbuild.toml`` is read into :class:`ConfigFile` (every key of it is an OPTIONS row): unknown
keys are errors with a "did you mean", wrong types name the key; relative paths in it are
relative to that file, elsewhere to the working directory.

Variables that other tools read too (``ANDROID_NDK_HOME``, then ``ANDROID_NDK_ROOT``;
``ANDROID_SDK_HOME``, ``ANDROID_HOME``) are a row's fallback, below ``tfbuild.toml``: a project's
file wins over whatever NDK a shell happens to export, while tfbuild's own variables
(``TFBUILD_ANDROID_NDK``) override the file as every ``TFBUILD_*`` does. The NDK and SDK paths
keep where they came from (:attr:`AndroidOptions.ndk_origin`), for messages and the dry run.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfbuild.config import check_choice, read_toml
from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.model.header import DEFAULT_OPS, GRANULARITIES, HeaderOptions
from tfbuild.pipeline.android.names import (
    DEFAULT_JAVA_PACKAGE,
    DEFAULT_JNI_LIBRARY,
    check_java_package,
    check_library_name,
)
from tfbuild.pipeline.remote import RemoteOptions, SecretUrl, parse_cache_url, parse_distcc_hosts
from tfbuild.pipeline.size_profiles import default_profile, profile_names
from tfbuild.toolchain.targets import get_target
from tfbuild.tree.mobile_types import MOBILE_TYPES_MODES, MobileTypesMode

CONFIG_FILE_NAME = "tfbuild.toml"
ENV_CONFIG = "TFBUILD_CONFIG"
DEFAULT_OUTPUT_ROOT = "tfbuild-out"
DEFAULT_OPS_LIBRARY_NAME = "tfbuild_ops"
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*\Z")


@dataclass(frozen=True)
class AndroidOptions:
    """Where the Android SDK and NDK are, and the levels a build uses (None: pick as TF's
    configure.py does: the highest SDK platform and build tools present, NDK API level 21)."""

    sdk: Path | None = None
    ndk: Path | None = None
    api_level: int | None = None
    build_tools: str | None = None
    ndk_api_level: int | None = None
    sdk_origin: str | None = None
    """Where ``sdk`` was set, as messages name it: ``--sdk``, ``$ANDROID_HOME``, ``<file>: [android] sdk``."""
    ndk_origin: str | None = None
    """Where ``ndk`` was set: ``--ndk``, ``$ANDROID_NDK_HOME``, ``<file>: [android] ndk``."""
    mobile_types: MobileTypesMode = "auto"
    """``__ANDROID_TYPES_SLIM__`` or ``_FULL__``: chosen from the models (auto), or forced."""
    java_package: str = DEFAULT_JAVA_PACKAGE
    """The Java package of the inference class whose native methods the JNI library implements."""
    jni_library: str = DEFAULT_JNI_LIBRARY
    """The JNI library's name: ``lib<name>.so``, loaded by ``System.loadLibrary("<name>")``."""


@dataclass(frozen=True)
class BuildOptions:
    """Everything ``tfbuild build`` needs to know, fully resolved.

    ``flavour`` None means "choose from the target and the tree" (see ``tfbuild.pipeline.run``);
    ``timeout`` is seconds for the whole build (None: no limit).
    """

    target: str
    models: tuple[Path, ...]
    source: Path | None
    flavour: Flavour | None
    output_dir: Path
    local: bool = False
    dry_run: bool = False
    header: HeaderOptions = field(default_factory=HeaderOptions)
    protobuf_rename: bool = False
    jobs: int = 2
    timeout: float | None = None
    cache_prefix: str = "tfbuild"
    base_image: str | None = None
    op_sources: tuple[Path, ...] = ()
    ops_library_name: str = DEFAULT_OPS_LIBRARY_NAME
    extra_cflags: tuple[str, ...] = ()
    size_profile: str = "stock"
    """A profile of ``toolchains/tensorflow/size_profiles.toml`` (:mod:`tfbuild.pipeline.size_profiles`)."""
    android: AndroidOptions = field(default_factory=AndroidOptions)
    config_file: Path | None = None
    per_file_selection: bool = False
    """Each kernel and op source sees only its own selection (:mod:`tfbuild.pipeline.per_file_selection`;
    the Makefile flavour), so a second app rebuilds only the files whose selection changed."""
    source_date_epoch: int | None = None
    """Seconds since 1970 the build's date macros and archives get (None: the tree's commit time;
    :mod:`tfbuild.pipeline.reproducible`)."""
    app: str | None = None
    """The ``[apps.NAME]`` of tfbuild.toml this build is for (None: the file's ``[build]`` alone)."""
    remote: RemoteOptions = field(default_factory=RemoteOptions)
    """The fleet's shared compile cache and distcc workers (:mod:`tfbuild.pipeline.remote`)."""


@dataclass(frozen=True)
class BuildTable:
    """``[build]`` of tfbuild.toml as written: types checked here, meaning by :data:`OPTIONS`."""

    target: str | None = None
    models: tuple[Path, ...] | None = None
    source: Path | None = None
    flavour: Flavour | None = None
    out: Path | None = None
    local: bool | None = None
    protobuf_rename: bool | None = None
    jobs: int | None = None
    timeout: float | None = None
    cache_prefix: str | None = None
    base_image: str | None = None
    op_sources: tuple[Path, ...] | None = None
    ops_library_name: str | None = None
    extra_cflags: tuple[str, ...] | None = None
    size_profile: str | None = None
    source_date_epoch: int | None = None
    per_file_selection: bool | None = None
    remote_cache: str | None = None
    distcc_hosts: tuple[str, ...] | None = None


@dataclass(frozen=True)
class HeaderTable:
    """``[header]`` of tfbuild.toml as written."""

    default_ops: str | None = None
    granularity: str | None = None


@dataclass(frozen=True)
class AndroidTable:
    """``[android]`` of tfbuild.toml as written."""

    sdk: Path | None = None
    ndk: Path | None = None
    api_level: int | None = None
    build_tools: str | None = None
    ndk_api_level: int | None = None
    mobile_types: str | None = None
    java_package: str | None = None
    jni_library: str | None = None


@dataclass(frozen=True)
class AppTable:
    """``[apps.NAME]``: one app of a repository that ships several. Its own models, op library
    sources, extra compiler flags, header default ops and size profile override ``[build]`` and
    ``[header]`` for that app; ``targets`` are the targets it ships (the CI matrix's rows)."""

    models: tuple[Path, ...]
    targets: tuple[str, ...]
    op_sources: tuple[Path, ...] | None = None
    extra_cflags: tuple[str, ...] | None = None
    default_ops: str | None = None
    size_profile: str | None = None


APP_OPTIONS = ("models", "op_sources", "extra_cflags", "default_ops", "size_profile")
"""The options an ``[apps.NAME]`` table may set, by the same names."""


@dataclass(frozen=True)
class ConfigFile:
    """A ``tfbuild.toml``; a key left out is None (not set there)."""

    build: BuildTable = field(default_factory=BuildTable)
    header: HeaderTable = field(default_factory=HeaderTable)
    android: AndroidTable = field(default_factory=AndroidTable)
    apps: dict[str, AppTable] = field(default_factory=dict)

    def value(self, spec: OptionSpec) -> Any:
        """What the file sets option ``spec`` to, or None."""
        if spec.section is None or spec.key is None:
            return None
        return getattr(getattr(self, spec.section), spec.key)


@dataclass(frozen=True)
class OptionSpec:
    """One option: its name (as the CLI passes it), its ``[section] key`` in tfbuild.toml, the
    environment variables that may set it (first present wins) and how to read a value.
    ``fallback_env`` are variables other tools set too: read, in order, only when neither
    tfbuild.toml nor ``env`` sets the option."""

    name: str
    section: str | None
    key: str | None
    env: tuple[str, ...]
    kind: str  # a key of _PARSERS: str, path, paths, bool, int, seconds, words, choice (a flavour), ...
    fallback_env: tuple[str, ...] = ()
    flag: str | None = None
    """The command-line flag, when it is not ``--<name>`` with dashes (``--out`` for output_dir)."""

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("target", "build", "target", ("TFBUILD_TARGET",), "target"),
    OptionSpec("app", None, None, ("TFBUILD_APP",), "name"),
    OptionSpec("models", "build", "models", ("TFBUILD_MODELS",), "paths", flag="--model"),
    OptionSpec("source", "build", "source", ("TFBUILD_SOURCE",), "path"),
    OptionSpec("flavour", "build", "flavour", ("TFBUILD_FLAVOUR",), "choice"),
    OptionSpec("output_dir", "build", "out", ("TFBUILD_OUT",), "path", flag="--out"),
    OptionSpec("local", "build", "local", ("TFBUILD_LOCAL",), "bool"),
    OptionSpec("dry_run", None, None, ("TFBUILD_DRY_RUN",), "bool"),
    OptionSpec("protobuf_rename", "build", "protobuf_rename", ("TFBUILD_PROTOBUF_RENAME",), "bool"),
    OptionSpec("jobs", "build", "jobs", ("TFBUILD_JOBS",), "int"),
    OptionSpec("timeout", "build", "timeout", ("TFBUILD_TIMEOUT",), "seconds"),
    OptionSpec("cache_prefix", "build", "cache_prefix", ("TFBUILD_CACHE_PREFIX",), "name"),
    OptionSpec("base_image", "build", "base_image", ("TFBUILD_BASE_IMAGE",), "str"),
    OptionSpec("op_sources", "build", "op_sources", ("TFBUILD_OP_SOURCES",), "paths", flag="--op-source"),
    OptionSpec("ops_library_name", "build", "ops_library_name", ("TFBUILD_OPS_LIBRARY_NAME",), "name"),
    OptionSpec("extra_cflags", "build", "extra_cflags", ("TFBUILD_EXTRA_CFLAGS",), "words", flag="--extra-cflag"),
    OptionSpec("size_profile", "build", "size_profile", ("TFBUILD_SIZE_PROFILE",), "size_profile"),
    OptionSpec("per_file_selection", "build", "per_file_selection", ("TFBUILD_PER_FILE_SELECTION",), "bool"),
    OptionSpec("source_date_epoch", "build", "source_date_epoch", ("TFBUILD_SOURCE_DATE_EPOCH",), "epoch",
               ("SOURCE_DATE_EPOCH",)),
    OptionSpec("remote_cache", "build", "remote_cache", ("TFBUILD_REMOTE_CACHE",), "cache_url"),
    OptionSpec("distcc_hosts", "build", "distcc_hosts", ("TFBUILD_DISTCC_HOSTS",), "distcc_hosts",
               flag="--distcc-host"),
    OptionSpec("default_ops", "header", "default_ops", ("TFBUILD_DEFAULT_OPS",), "default_ops"),
    OptionSpec("granularity", "header", "granularity", ("TFBUILD_HEADER_GRANULARITY",), "granularity"),
    OptionSpec("sdk", "android", "sdk", ("TFBUILD_ANDROID_SDK",), "path", ("ANDROID_SDK_HOME", "ANDROID_HOME")),
    OptionSpec("ndk", "android", "ndk", ("TFBUILD_ANDROID_NDK",), "path", ("ANDROID_NDK_HOME", "ANDROID_NDK_ROOT")),
    OptionSpec("api_level", "android", "api_level", ("TFBUILD_ANDROID_API_LEVEL",), "int"),
    OptionSpec("build_tools", "android", "build_tools", ("TFBUILD_ANDROID_BUILD_TOOLS",), "str"),
    OptionSpec("ndk_api_level", "android", "ndk_api_level", ("TFBUILD_ANDROID_NDK_API_LEVEL",), "int"),
    OptionSpec("mobile_types", "android", "mobile_types", ("TFBUILD_MOBILE_TYPES",), "mobile_types"),
    OptionSpec("java_package", "android", "java_package", ("TFBUILD_JAVA_PACKAGE",), "java_package"),
    OptionSpec("jni_library", "android", "jni_library", ("TFBUILD_JNI_LIBRARY",), "jni_library"),
)
_BY_NAME = {spec.name: spec for spec in OPTIONS}


def resolve_build_options(
    cli: Mapping[str, Any],
    *,
    environ: Mapping[str, str],
    cwd: Path,
    config_file: Path | None = None,
    require_target: bool = True,
) -> BuildOptions:
    """Resolve every option: defaults < ``tfbuild.toml`` < ``environ`` < ``cli`` (other tools'
    variables, an option's ``fallback_env``, rank below ``tfbuild.toml``).

    ``cli`` maps option names (:data:`OPTIONS`) to what the user gave; None means "not given".
    The config file is ``config_file``, else ``$TFBUILD_CONFIG``, else ``cwd/tfbuild.toml`` when
    it exists. ``require_target=False`` is for commands that need only part of the options
    (``tfbuild workspace``); the target is then an empty string when none was given.
    """
    return resolve_with_origins(
        cli, environ=environ, cwd=cwd, config_file=config_file, require_target=require_target
    ).options


@dataclass(frozen=True)
class ResolvedOptions:
    """The options and, for each one set anywhere, where its value came from: ``--target``,
    ``$TFBUILD_TARGET``, ``<file>: [build] target`` (the rest are defaults)."""

    options: BuildOptions
    origins: Mapping[str, str]
    config_path: Path | None


def resolve_with_origins(
    cli: Mapping[str, Any],
    *,
    environ: Mapping[str, str],
    cwd: Path,
    config_file: Path | None = None,
    require_target: bool = True,
) -> ResolvedOptions:
    """:func:`resolve_build_options`, keeping where each value came from (``tfbuild config show``)."""
    unknown = set(cli) - set(_BY_NAME)
    if unknown:
        raise ValueError(f"not an option: {sorted(unknown)}")  # a tfbuild bug, not user input
    cwd = Path(cwd).resolve()
    config_path = _config_path(config_file, environ, cwd)
    app = cli.get("app") or environ.get("TFBUILD_APP") or None
    if app is not None and config_path is None:
        raise ConfigError(f"app {app!r}: no tfbuild.toml to read [apps.{app}] from",
                          hint="pass --config, or run where the repository's tfbuild.toml is")
    values, origins, apps = _from_config(config_path, app) if config_path is not None else ({}, {}, {})
    for spec in OPTIONS:
        layers = (spec.env,) if spec.name in values else (spec.fallback_env, spec.env)
        for variables in layers:
            variable = next((name for name in variables if environ.get(name, "") != ""), None)
            if variable is not None:
                origins[spec.name] = f"${variable}"
                values[spec.name] = _parse(spec, environ[variable], origins[spec.name], base=cwd)
        if cli.get(spec.name) is not None:
            origins[spec.name] = _flag(spec.name)
            values[spec.name] = _parse(spec, cli[spec.name], origins[spec.name], base=cwd)
    options = _build_options(values, origins, cwd=cwd, config_path=config_path, require_target=require_target)
    if options.app is not None and options.target and options.target not in apps[options.app].targets:
        raise ConfigError(
            f"{origins.get('target', 'target')}: app {options.app} ships {', '.join(apps[options.app].targets)}, "
            f"not {options.target}",
            hint=f"pass one of its targets, or add {options.target} to [apps.{options.app}] targets",
        )
    return ResolvedOptions(options, dict(origins), config_path)


def _build_options(
    values: dict[str, Any], origins: dict[str, str], *, cwd: Path, config_path: Path | None, require_target: bool
) -> BuildOptions:
    target = values.get("target")
    if target is None:
        if require_target:
            raise ConfigError(
                "no target given", hint="pass --target (see 'tfbuild targets'), or set [build] target in tfbuild.toml"
            )
        target = ""
    header = HeaderOptions(
        default_ops=values.get("default_ops", DEFAULT_OPS), granularity=values.get("granularity", "kernel")
    )
    default_out = cwd / DEFAULT_OUTPUT_ROOT / values.get("app", "") / (target or "default")
    return BuildOptions(
        target=target,
        models=values.get("models", ()),
        source=values.get("source"),
        flavour=values.get("flavour"),
        output_dir=values.get("output_dir") or default_out,
        app=values.get("app"),
        local=values.get("local", False),
        dry_run=values.get("dry_run", False),
        header=header,
        protobuf_rename=values.get("protobuf_rename", False),
        jobs=values.get("jobs") or max(1, os.cpu_count() or 1),
        timeout=values.get("timeout"),
        cache_prefix=values.get("cache_prefix", "tfbuild"),
        base_image=values.get("base_image"),
        op_sources=values.get("op_sources", ()),
        ops_library_name=values.get("ops_library_name", DEFAULT_OPS_LIBRARY_NAME),
        extra_cflags=values.get("extra_cflags", ()),
        size_profile=values.get("size_profile") or default_profile(),
        source_date_epoch=values.get("source_date_epoch"),
        per_file_selection=values.get("per_file_selection", False),
        android=AndroidOptions(
            sdk=values.get("sdk"),
            ndk=values.get("ndk"),
            api_level=values.get("api_level"),
            build_tools=values.get("build_tools"),
            ndk_api_level=values.get("ndk_api_level"),
            sdk_origin=origins.get("sdk"),
            ndk_origin=origins.get("ndk"),
            mobile_types=values.get("mobile_types", "auto"),
            java_package=values.get("java_package", DEFAULT_JAVA_PACKAGE),
            jni_library=values.get("jni_library", DEFAULT_JNI_LIBRARY),
        ),
        config_file=config_path,
        remote=RemoteOptions(remote_cache=values.get("remote_cache"), distcc_hosts=values.get("distcc_hosts", ())),
    )


def _from_config(
    path: Path, app: str | None = None
) -> tuple[dict[str, Any], dict[str, str], dict[str, AppTable]]:
    """The options ``path`` sets, and where (``<file>: [section] key``): their types checked
    against :class:`ConfigFile`, their values as those of every other layer; relative paths
    are relative to the file. With ``app``, its ``[apps.NAME]`` table overrides the rest of
    the file. Also every app the file names."""
    config = read_toml(ConfigFile, path)
    values, origins = {}, {}
    for spec in OPTIONS:
        value = config.value(spec)
        if value is not None:
            origins[spec.name] = f"{path}: [{spec.section}] {spec.key}"
            values[spec.name] = _parse(spec, value, origins[spec.name], base=path.parent)
    if app is not None:
        table = config.apps.get(app)
        if table is None:
            known = ", ".join(sorted(config.apps)) or "none"
            raise ConfigError(f"{path}: no [apps.{app}] (apps: {known})", hint="pass --app with one of them")
        for name in APP_OPTIONS:
            value = getattr(table, name)
            if value is not None:
                origins[name] = f"{path}: [apps.{app}] {name}"
                values[name] = _parse(_BY_NAME[name], value, origins[name], base=path.parent)
    return values, origins, dict(config.apps)


def app_matrix(path: Path) -> list[dict[str, str]]:
    """Every app x target the file at ``path`` declares, in file order: the CI matrix."""
    config = read_toml(ConfigFile, path)
    if not config.apps:
        raise ConfigError(f"{path}: no [apps.NAME] tables, so no matrix", hint="declare each app's models and targets")
    rows = []
    for name, table in config.apps.items():
        _as_name(name, f"{path}: [apps.{name}]", path.parent)
        for target in table.targets:
            _as_target(target, f"{path}: [apps.{name}] targets", path.parent)
            rows.append({"app": name, "target": target, "out": f"{DEFAULT_OUTPUT_ROOT}/{name}/{target}"})
    return rows


def _config_path(explicit: Path | None, environ: Mapping[str, str], cwd: Path) -> Path | None:
    if explicit is not None:
        return (cwd / explicit).resolve()
    if environ.get(ENV_CONFIG):
        return (cwd / environ[ENV_CONFIG]).resolve()
    default = cwd / CONFIG_FILE_NAME
    return default if default.is_file() else None


def _flag(name: str) -> str:
    return _BY_NAME[name].cli_flag


# -- value parsing: TOML gives typed values, the environment strings, the CLI typed values ----


def _parse(spec: OptionSpec, raw: Any, where: str, *, base: Path) -> Any:
    return _PARSERS[spec.kind](raw, where, base)


def _as_str(raw: Any, where: str, base: Path) -> str:
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: expected a string, got {raw!r}")
    return raw


def _as_path(raw: Any, where: str, base: Path) -> Path:
    if isinstance(raw, Path):
        raw = str(raw)
    text = _as_str(raw, where, base)
    if not text.strip():
        raise ConfigError(f"{where}: empty path")
    return (base / Path(text).expanduser()).resolve()


def _as_paths(raw: Any, where: str, base: Path) -> tuple[Path, ...]:
    if isinstance(raw, str):  # the environment: a path list like $PATH
        items = [item for item in raw.split(os.pathsep) if item]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise ConfigError(f"{where}: expected a list of paths, got {raw!r}")
    return tuple(_as_path(item, where, base) for item in items)


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _as_bool(raw: Any, where: str, base: Path) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUE + _FALSE:
        return raw.strip().lower() in _TRUE
    raise ConfigError(f"{where}: expected true or false, got {raw!r}", hint=f"use one of: {', '.join(_TRUE + _FALSE)}")


def _whole_number(raw: Any, where: str, *, least: int, what: str) -> int:
    """``raw`` (a TOML integer or an environment string) as an int of at least ``least``."""
    if isinstance(raw, str):
        try:
            raw = int(raw.strip())
        except ValueError:
            raise ConfigError(f"{where}: expected a whole number, got {raw!r}") from None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < least:
        raise ConfigError(f"{where}: expected {what}, got {raw!r}")
    return raw


def _as_int(raw: Any, where: str, base: Path) -> int:
    return _whole_number(raw, where, least=1, what="a positive whole number")


def _as_seconds(raw: Any, where: str, base: Path) -> float:
    if isinstance(raw, str):
        try:
            raw = float(raw.strip())
        except ValueError:
            raise ConfigError(f"{where}: expected seconds, got {raw!r}") from None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw <= 0:
        raise ConfigError(f"{where}: expected a positive number of seconds, got {raw!r}")
    return float(raw)


def _as_words(raw: Any, where: str, base: Path) -> tuple[str, ...]:
    if isinstance(raw, str):  # the environment: split as a shell would, never run by one
        try:
            return tuple(shlex.split(raw))
        except ValueError as error:
            raise ConfigError(f"{where}: {error}") from None
    if isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
        return tuple(raw)
    raise ConfigError(f"{where}: expected a list of strings, got {raw!r}")


def _as_flavour(raw: Any, where: str, base: Path) -> Flavour:
    text = _as_str(raw, where, base)
    _checked(where, check_choice, text, [flavour.value for flavour in Flavour], noun="flavour")
    return Flavour(text)


def _as_name(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    if not _NAME.match(text):
        raise ConfigError(
            f"{where}: '{text}' is not a plain name", hint="use lower-case letters, digits, '_', '.', '-'"
        )
    return text


def _as_target(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, get_target, text)  # unknown names fail here, with a guess
    return text


def _as_granularity(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, check_choice, text, GRANULARITIES, noun="header granularity")
    return text


def _as_default_ops(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, HeaderOptions, default_ops=text)  # the header's own parser decides what is valid
    return text


def _as_epoch(raw: Any, where: str, base: Path) -> int:
    """Seconds since 1970-01-01 UTC, as ``SOURCE_DATE_EPOCH`` holds them (0 included)."""
    return _whole_number(raw, where, least=0, what="whole seconds since 1970")


def _as_cache_url(raw: Any, where: str, base: Path) -> SecretUrl:
    if isinstance(raw, SecretUrl):
        return raw
    return parse_cache_url(_as_str(raw, where, base), where)


def _as_distcc_hosts(raw: Any, where: str, base: Path) -> tuple[str, ...]:
    if isinstance(raw, str):  # the environment: DISTCC_HOSTS' own form, words split on blanks
        raw = raw.split()
    return parse_distcc_hosts(_as_words(raw, where, base), where)


def _as_size_profile(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, check_choice, text, profile_names(), noun="size profile")
    return text


def _as_mobile_types(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, check_choice, text, MOBILE_TYPES_MODES, noun="mobile types")
    return text


def _as_java_package(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, check_java_package, text)
    return text


def _as_jni_library(raw: Any, where: str, base: Path) -> str:
    text = _as_str(raw, where, base)
    _checked(where, check_library_name, text)
    return text


def _checked(where: str, check: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    """Run ``check``; a :class:`ConfigError` it raises gets ``where`` in front."""
    try:
        check(*args, **kwargs)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error.message}", hint=error.hint) from None


_PARSERS: dict[str, Callable[[Any, str, Path], Any]] = {
    "str": _as_str,
    "path": _as_path,
    "paths": _as_paths,
    "bool": _as_bool,
    "int": _as_int,
    "seconds": _as_seconds,
    "words": _as_words,
    "choice": _as_flavour,
    "name": _as_name,
    "granularity": _as_granularity,
    "target": _as_target,
    "default_ops": _as_default_ops,
    "size_profile": _as_size_profile,
    "epoch": _as_epoch,
    "mobile_types": _as_mobile_types,
    "java_package": _as_java_package,
    "jni_library": _as_jni_library,
    "cache_url": _as_cache_url,
    "distcc_hosts": _as_distcc_hosts,
}
