"""Build options: each declared once, resolved in one place.

Every option is one :class:`Option` in :data:`OPTIONS`: its name (the attribute of
:class:`BuildOptions` or one of its groups that holds it), its kind of value
(:mod:`tfbuild.pipeline.declarations.option_kinds`: parser, TOML type, flag type, metavar), its default, its
help text, its ``[table] key`` in ``tfbuild.toml``, its environment variables and its flags.
Everything else is made from that declaration: the tables :func:`tfbuild.config.read_toml` reads
``tfbuild.toml`` into (:data:`ConfigFile`; unknown keys are errors with a "did you mean", wrong
types name the key), the resolver below, ``tfbuild config show``, and the command-line flags
(:mod:`tfbuild.cli.option_flags` builds each command's Typer parameters from the declarations
the command takes). Adding an option is one declaration here plus its use: a field of
:class:`BuildOptions` (or a group) filled in :func:`_build_options`, and the code that reads it.

Precedence is the same for every option and every command: a flag, then the option's
``TFBUILD_*`` variable, then ``tfbuild.toml`` (an ``[apps.NAME]`` table over ``[build]`` and
``[header]``), then the default. Variables that other tools read too (``ANDROID_NDK_HOME``, then
``ANDROID_NDK_ROOT``; ``ANDROID_SDK_HOME``, ``ANDROID_HOME``; ``SOURCE_DATE_EPOCH``) are an
option's ``fallback_env``, below ``tfbuild.toml``: a project's file wins over whatever NDK a shell
happens to export. The resolver keeps where each value came from (``--ndk``, ``$ANDROID_NDK_HOME``,
``<file>: [android] ndk``, ``default``) for messages, the dry run and ``config show``.

Modelled on cibuildwheel's ``options.py``: :func:`resolve_build_options` takes the environment
as an argument (tests pass a dict, nothing reads ``os.environ`` behind their back) and returns
frozen values. Relative paths in ``tfbuild.toml`` are relative to that file, elsewhere to the
working directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar, cast

from tfbuild.config import read_toml
from tfbuild.errors import ConfigError
from tfbuild.flavour import Flavour
from tfbuild.model.header import DEFAULT_OPS as HEADER_DEFAULT_OPS
from tfbuild.model.header import GRANULARITIES, HeaderOptions
from tfbuild.pipeline.caches.remote import RemoteOptions, SecretUrl
from tfbuild.pipeline.declarations import option_kinds as kinds
from tfbuild.pipeline.declarations.option_kinds import Kind, choice_help
from tfbuild.pipeline.outputs.android.names import DEFAULT_JAVA_PACKAGE, DEFAULT_JNI_LIBRARY, JAVA_APIS, JavaApi
from tfbuild.pipeline.planning.protobuf_runtime import FULL, LITE, RUNTIMES, ProtobufRuntime
from tfbuild.pipeline.planning.reproducible import EPOCH_VARIABLE
from tfbuild.tree.mirror_mapping import MirrorMapping
from tfbuild.tree.mobile_types import MOBILE_TYPES_MODES, MobileTypesMode

CONFIG_FILE_NAME = "tfbuild.toml"
ENV_CONFIG = "TFBUILD_CONFIG"
DEFAULT_OUTPUT_ROOT = "tfbuild-out"
DEFAULT_OPS_LIBRARY_NAME = "tfbuild_ops"

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


# -- the declaration --------------------------------------------------------------------------


@dataclass(frozen=True)
class DefaultContext:
    """What a computed default may depend on: the working directory and the options resolved
    without one (the output directory is named after the app and the target)."""

    cwd: Path
    app: str | None
    target: str


@dataclass(frozen=True)
class Computed(Generic[T_co]):
    """A default worked out when the options are resolved (the CPU count, the profile file's
    default); ``text`` says what it is, for help and docs."""

    compute: Callable[[DefaultContext], T_co]
    text: str


@dataclass(frozen=True, eq=False)
class Option(Generic[T_co]):
    """One build option, declared once (see the module docstring). Compared and hashed by
    identity: the declaration itself is the key of every value and origin.

    ``env`` are tfbuild's own variables (the first one set counts, above the file);
    ``fallback_env`` other tools' (``ANDROID_NDK_HOME``), read only when neither ``env`` nor the
    file sets the option. ``table`` None: the option has no ``tfbuild.toml`` key (``--dry-run``,
    ``--app``); ``key`` defaults to the name.
    ``flags`` are Click declarations (``--local/--no-local``; default ``--<name>``).
    ``in_apps`` says whether an ``[apps.NAME]`` table may (or must) set the option too.
    """

    name: str
    kind: Kind[T_co]
    default: T_co | Computed[T_co]
    help: str
    env: tuple[str, ...]
    table: str | None = "build"
    key: str = ""
    fallback_env: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    metavar: str = ""
    in_apps: Literal["no", "may", "must"] = "no"

    @property
    def toml_key(self) -> str:
        return self.key or self.name

    @property
    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)

    @property
    def cli_flag(self) -> str:
        """The flag as messages name where a value came from: ``--local`` for ``--local/--no-local``."""
        return self.cli_flags[0].split("/")[0]

    @property
    def file_key(self) -> str | None:
        """``[table] key``, as messages and help name it; None without a table."""
        return None if self.table is None else f"[{self.table}] {self.toml_key}"

    @property
    def variables(self) -> tuple[str, ...]:
        """Every environment variable that may set the option, in the order they count."""
        return (*self.env, *self.fallback_env)

    @property
    def value_name(self) -> str:
        """The flag's metavar: ``PATH``, ``N``, ``URL`` ("" for a switch)."""
        return self.metavar or self.kind.metavar

    @property
    def default_text(self) -> str:
        """The default as help shows it: "" when there is none to show (None, off, empty), in
        which case the help text says what not setting the option means."""
        default = self.default
        if isinstance(default, Computed):
            return default.text
        if default is None or default is False or default in ((), ""):
            return ""
        return str(default)

    def default_for(self, context: DefaultContext) -> T_co:
        default = self.default
        return default.compute(context) if isinstance(default, Computed) else default

    def parse(self, raw: object, where: str, *, base: Path) -> T_co:
        return self.kind.parse(raw, where, base)


def _cpu_count(context: DefaultContext) -> int:
    return max(1, os.cpu_count() or 1)


def _default_profile(context: DefaultContext) -> str:
    from tfbuild.pipeline.declarations.size_profiles import default_profile

    return default_profile()


def _default_output_dir(context: DefaultContext) -> Path:
    return context.cwd / DEFAULT_OUTPUT_ROOT / (context.app or "") / (context.target or "default")


TARGET: Option[str] = Option(
    "target", kinds.TARGET, "", "Build target (see 'tfbuild targets').", ("TFBUILD_TARGET",))
APP: Option[str | None] = Option(
    "app", kinds.NAME, None,
    "Build [apps.NAME] of tfbuild.toml: its models, op sources, profile (see 'tfbuild plan').",
    ("TFBUILD_APP",), table=None)
MODELS: Option[tuple[Path, ...]] = Option(
    "models", kinds.PATHS, (), "Model file or SavedModel (repeat for several).", ("TFBUILD_MODELS",),
    flags=("--model",), metavar="MODEL", in_apps="must")
SOURCE: Option[Path | None] = Option(
    "source", kinds.PATH, None, "TensorFlow source tree to build.", ("TFBUILD_SOURCE",), metavar="DIR")
FLAVOUR: Option[Flavour | None] = Option(
    "flavour", kinds.FLAVOUR, None, f"{' | '.join(Flavour)} (default: chosen from the target and the tree).",
    ("TFBUILD_FLAVOUR",))
OUTPUT_DIR: Option[Path] = Option(
    "output_dir", kinds.PATH,
    Computed(_default_output_dir, f"{DEFAULT_OUTPUT_ROOT}/<target>, or {DEFAULT_OUTPUT_ROOT}/<app>/<target>"),
    "Output directory.", ("TFBUILD_OUT",),
    key="out", flags=("--out-dir", "--out"), metavar="DIR")
LOCAL: Option[bool] = Option(
    "local", kinds.SWITCH, False, "Run on this machine, not in a container.", ("TFBUILD_LOCAL",),
    flags=("--local/--no-local",))
DRY_RUN: Option[bool] = Option(
    "dry_run", kinds.SWITCH, False,
    "Check as the build would (analysis, preflight, prerequisites), print the plan and the tree "
    "changes as a diff; compile, change and write nothing.", ("TFBUILD_DRY_RUN",), table=None)
PROTOBUF_RENAME: Option[bool] = Option(
    "protobuf_rename", kinds.SWITCH, False, "Rename protobuf to google::protobuf3 (Makefile).",
    ("TFBUILD_PROTOBUF_RENAME",), flags=("--protobuf-rename/--no-protobuf-rename",))
JOBS: Option[int] = Option(
    "jobs", kinds.COUNT, Computed(_cpu_count, "CPU count"), "Parallel compile jobs.",
    ("TFBUILD_JOBS",), flags=("--jobs", "-j"))
TIMEOUT: Option[float | None] = Option(
    "timeout", kinds.SECONDS, None, "Seconds the whole build may take (default: no limit).", ("TFBUILD_TIMEOUT",))
CACHE_PREFIX: Option[str] = Option(
    "cache_prefix", kinds.NAME, "tfbuild", "Prefix of the cache volume names.",
    ("TFBUILD_CACHE_PREFIX",))
BASE_IMAGE: Option[str | None] = Option(
    "base_image", kinds.STR, None, "Base image of the toolchain images.", ("TFBUILD_BASE_IMAGE",), metavar="IMAGE")
OP_SOURCES: Option[tuple[Path, ...]] = Option(
    "op_sources", kinds.PATHS, (), "A custom-op .cc file (repeat); no --source needed.", ("TFBUILD_OP_SOURCES",),
    flags=("--op-source",), in_apps="may")
OPS_LIBRARY_NAME: Option[str] = Option(
    "ops_library_name", kinds.NAME, DEFAULT_OPS_LIBRARY_NAME,
    "Op library name, lib<name>.so/.a.", ("TFBUILD_OPS_LIBRARY_NAME",))
EXTRA_CFLAGS: Option[tuple[str, ...]] = Option(
    "extra_cflags", kinds.WORDS, (), "Extra compiler flag (repeat).", ("TFBUILD_EXTRA_CFLAGS",),
    flags=("--extra-cflag",), metavar="FLAG", in_apps="may")
OUTPUT_NODES: Option[tuple[str, ...]] = Option(
    "output_nodes", kinds.WORDS, (),
    "Keep only what these nodes depend on, as strip_unused_nodes does (repeat; default: every node).",
    ("TFBUILD_OUTPUT_NODES",), flags=("--output-node",), metavar="NAME", in_apps="may")
SIZE_PROFILE: Option[str] = Option(
    "size_profile", kinds.SIZE_PROFILE, Computed(_default_profile, "size_profiles.toml's default"),
    choice_help("Size profile", kinds.listed_size_profiles(), {"stock": "the tree's own flags"}),
    ("TFBUILD_SIZE_PROFILE",), in_apps="may")
PROTOBUF_RUNTIME: Option[ProtobufRuntime] = Option(
    "protobuf_runtime", kinds.PROTOBUF_RUNTIME, FULL,
    choice_help("Protobuf runtime for TensorFlow's protos", RUNTIMES,
                {LITE: "Makefile; smaller, no text-format protos"}),
    ("TFBUILD_PROTOBUF_RUNTIME",), in_apps="may")
PER_FILE_SELECTION: Option[bool] = Option(
    "per_file_selection", kinds.SWITCH, False,
    "Each kernel source sees only its own selection (Makefile): a second app recompiles less.",
    ("TFBUILD_PER_FILE_SELECTION",), flags=("--per-file-selection/--one-selection",))
SOURCE_DATE_EPOCH: Option[int | None] = Option(
    "source_date_epoch", kinds.EPOCH, None, "Build time for date macros (default: the tree's commit time).",
    (f"TFBUILD_{EPOCH_VARIABLE}",), fallback_env=(EPOCH_VARIABLE,))
REMOTE_CACHE: Option[SecretUrl | None] = Option(
    "remote_cache", kinds.CACHE_URL, None,
    "Shared compile cache URL: http(s)/redis for ccache, http(s)/grpc for Bazel (user:password@ allowed).",
    ("TFBUILD_REMOTE_CACHE",))
DISTCC_HOSTS: Option[tuple[str, ...]] = Option(
    "distcc_hosts", kinds.DISTCC_HOSTS, (),
    "A distccd worker as distcc names it, HOST:PORT/LIMIT (repeat; Makefile flavour).", ("TFBUILD_DISTCC_HOSTS",),
    flags=("--distcc-host",))
VENDOR_DIR: Option[Path | None] = Option(
    "vendor_dir", kinds.PATH, None,
    "Directory 'tfbuild vendor' filled: Bazel takes the tree's external repositories from it, with no network.",
    ("TFBUILD_VENDOR_DIR",), metavar="DIR")
ANALYSIS_ONLY: Option[bool] = Option(
    "analysis_only", kinds.SWITCH, False,
    "Bazel: load and analyse the build (bazel build --nobuild), compile nothing: every repository the "
    "target needs is checked to be at hand.", ("TFBUILD_ANALYSIS_ONLY",), table=None)
DEFAULT_OPS: Option[str] = Option(
    "default_ops", kinds.DEFAULT_OPS, HEADER_DEFAULT_OPS,
    "Header default ops: Op:KernelClass pairs always kept (comma-separated); '' for none; 'all' keeps "
    "everything.", ("TFBUILD_DEFAULT_OPS",), table="header", in_apps="may")
GRANULARITY: Option[str] = Option(
    "granularity", kinds.GRANULARITY, HeaderOptions().granularity,
    choice_help("Header granularity", GRANULARITIES,
                {"kernel": "exact kernel classes", "op": "every kernel of each needed op"}),
    ("TFBUILD_HEADER_GRANULARITY",), table="header")
SDK: Option[Path | None] = Option(
    "sdk", kinds.PATH, None, "Android SDK directory (Bazel Android builds).", ("TFBUILD_ANDROID_SDK",),
    table="android", fallback_env=("ANDROID_SDK_HOME", "ANDROID_HOME"))
NDK: Option[Path | None] = Option(
    "ndk", kinds.PATH, None, "Android NDK directory (Android builds).", ("TFBUILD_ANDROID_NDK",),
    table="android", fallback_env=("ANDROID_NDK_HOME", "ANDROID_NDK_ROOT"))
API_LEVEL: Option[int | None] = Option(
    "api_level", kinds.COUNT, None, "Android SDK platform level (default: the highest installed).",
    ("TFBUILD_ANDROID_API_LEVEL",), table="android")
BUILD_TOOLS: Option[str | None] = Option(
    "build_tools", kinds.STR, None, "Android build tools version (default: the highest installed).",
    ("TFBUILD_ANDROID_BUILD_TOOLS",), table="android", metavar="VERSION")
NDK_API_LEVEL: Option[int | None] = Option(
    "ndk_api_level", kinds.COUNT, None, "Android NDK API level (default: the tree's, else 21).",
    ("TFBUILD_ANDROID_NDK_API_LEVEL",), table="android")
MOBILE_TYPES: Option[MobileTypesMode] = Option(
    "mobile_types", kinds.MOBILE_TYPES, "auto",
    choice_help("Android/iOS type set", MOBILE_TYPES_MODES,
                {"auto": "slim when every kernel the models need survives it"}),
    ("TFBUILD_MOBILE_TYPES",), table="android")
JAVA_PACKAGE: Option[str] = Option(
    "java_package", kinds.JAVA_PACKAGE, DEFAULT_JAVA_PACKAGE,
    "Java package of the JNI library's inference class (Android).",
    ("TFBUILD_JAVA_PACKAGE",), table="android")
JAVA_API: Option[JavaApi] = Option(
    "java_api", kinds.JAVA_API, "auto",
    choice_help("Java API of the JNI library", JAVA_APIS, {
        "auto": "tensorflow for Android when the tree has it, else tfbuild; none for other targets",
        "tensorflow": "the tree's TensorFlowInferenceInterface, what apps built on tensorflow-android take",
        "tfbuild": "tfbuild's small class"}),
    ("TFBUILD_JAVA_API",), table="android", in_apps="may")
JNI_LIBRARY: Option[str] = Option(
    "jni_library", kinds.JNI_LIBRARY, DEFAULT_JNI_LIBRARY,
    "JNI library name, lib<name>.so (Android).", ("TFBUILD_JNI_LIBRARY",),
    table="android")

MIRRORS: Option[Path | None] = Option(
    "mirrors", kinds.PATH, None,
    "A directory of git mirrors (OWNER+NAME, OWNER/NAME or NAME clones, bare or not) 'tfbuild vendor' "
    "takes the tree's external repositories from.", ("TFBUILD_VENDOR_MIRRORS",), table="vendor", metavar="DIR")
MIRROR_MAPPINGS: Option[tuple[MirrorMapping, ...]] = Option(
    "mirror_mappings", kinds.MIRROR_MAPPINGS, (),
    "The repository NAME comes from the git mirror DIR (NAME=DIR[@REF[:SUBDIR]]), at REF (default: its URL's); "
    "repeat. In tfbuild.toml a list, each DIR relative to the file.", ("TFBUILD_VENDOR_MIRROR",), table="vendor",
    key="mirror", flags=("--mirror",))

OPTIONS: tuple[Option[object], ...] = (
    TARGET, APP, MODELS, OUTPUT_NODES, SOURCE, FLAVOUR, OUTPUT_DIR, LOCAL, DRY_RUN, PROTOBUF_RENAME, JOBS, TIMEOUT,
    CACHE_PREFIX, BASE_IMAGE, OP_SOURCES, OPS_LIBRARY_NAME, EXTRA_CFLAGS, SIZE_PROFILE, PROTOBUF_RUNTIME,
    PER_FILE_SELECTION,
    SOURCE_DATE_EPOCH, REMOTE_CACHE, DISTCC_HOSTS, VENDOR_DIR, ANALYSIS_ONLY, DEFAULT_OPS, GRANULARITY, SDK, NDK,
    API_LEVEL, BUILD_TOOLS, NDK_API_LEVEL, MOBILE_TYPES, JAVA_API, JAVA_PACKAGE, JNI_LIBRARY, MIRRORS, MIRROR_MAPPINGS,
)
"""Every build option, in the order help and ``config show`` list them."""
_BY_NAME = {option.name: option for option in OPTIONS}


# -- the resolved options ---------------------------------------------------------------------


@dataclass(frozen=True)
class AndroidOptions:
    """Where the Android SDK and NDK are, and the levels a build uses (None: pick as TF's
    configure.py does: the highest SDK platform and build tools present, NDK API level 21).
    Its defaults are the declarations' (tests/test_option_declarations.py checks): tests and
    library callers make these directly."""

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
    java_api: JavaApi = "auto"
    """Which Java API the JNI library implements (:data:`~tfbuild.pipeline.outputs.android.names.JavaApi`)."""


@dataclass(frozen=True)
class BuildOptions:
    """Everything ``tfbuild build`` needs to know, fully resolved. No field has a default of
    its own: :func:`_build_options` fills each from its declaration, the one place defaults are.

    ``flavour`` None means "choose from the target and the tree" (see ``tfbuild.pipeline.run``);
    ``timeout`` is seconds for the whole build (None: no limit).
    """

    target: str
    models: tuple[Path, ...]
    output_nodes: tuple[str, ...]
    """The graphs' nodes the app fetches: a GraphDef keeps only what they depend on."""
    source: Path | None
    flavour: Flavour | None
    output_dir: Path
    local: bool
    dry_run: bool
    header: HeaderOptions
    protobuf_rename: bool
    jobs: int
    timeout: float | None
    cache_prefix: str
    base_image: str | None
    op_sources: tuple[Path, ...]
    ops_library_name: str
    extra_cflags: tuple[str, ...]
    size_profile: str
    """A profile of ``toolchains/tensorflow/size_profiles.toml``
    (:mod:`tfbuild.pipeline.declarations.size_profiles`)."""
    protobuf_runtime: ProtobufRuntime
    """The runtime TensorFlow's protos are generated for (:mod:`tfbuild.pipeline.planning.protobuf_runtime`)."""
    android: AndroidOptions
    config_file: Path | None
    per_file_selection: bool
    """Each kernel and op source sees only its own selection (:mod:`tfbuild.pipeline.flavours.per_file_selection`;
    the Makefile flavour), so a second app rebuilds only the files whose selection changed."""
    source_date_epoch: int | None
    """Seconds since 1970 the build's date macros and archives get (None: the tree's commit time;
    :mod:`tfbuild.pipeline.planning.reproducible`)."""
    app: str | None
    """The ``[apps.NAME]`` of tfbuild.toml this build is for (None: the file's ``[build]`` alone)."""
    remote: RemoteOptions
    """The fleet's shared compile cache and distcc workers (:mod:`tfbuild.pipeline.caches.remote`)."""
    analysis_only: bool
    """Bazel's analysis alone (``--nobuild``): no compile, no artifacts."""
    vendor_dir: Path | None
    """What ``tfbuild vendor`` laid out (:mod:`tfbuild.tree.vendor`): Bazel builds from it offline."""


@dataclass(frozen=True)
class OptionValues:
    """Values by declaration, read back with the declaration's own type (``values[JOBS]`` is an
    int to mypy): how values travel from a layer to :class:`BuildOptions` without a string key."""

    values: Mapping[Option[object], object] = field(default_factory=dict)

    def __getitem__(self, option: Option[T]) -> T:
        return cast(T, self.values[option])

    def __contains__(self, option: object) -> bool:
        return option in self.values

    def get(self, option: Option[T]) -> T | None:
        return cast("T | None", self.values.get(option))


@dataclass(frozen=True)
class Flags(OptionValues):
    """What a command's flags gave, by declaration (:mod:`tfbuild.cli.option_flags` fills it
    from Click's parameters). A flag left out is absent; values are as Typer converted them,
    and the option's kind checks them like any other layer's.

    ``takes`` are the options the command takes (None: all of them). Only those are read from
    the environment and the file; the rest keep their defaults, so a variable meant for the
    build (a bad ``TFBUILD_JOBS``) does not stop ``tfbuild kernels``."""

    takes: frozenset[Option[object]] | None = None

    @classmethod
    def of(cls, given: Iterable[tuple[Option[object], object]], *, takes: Iterable[Option[object]] | None = None
           ) -> Flags:
        """The flags given: None and an empty repeated flag mean "not given"."""
        values = {option: value for option, value in given if value is not None and value not in ([], ())}
        return cls(values, None if takes is None else frozenset(takes))

    def reads(self, option: Option[object]) -> bool:
        """Whether the command takes ``option`` (and so reads it from every layer)."""
        return self.takes is None or option in self.takes

    @classmethod
    def named(cls, **given: object) -> Flags:
        """Flags by option name, for tests and scripts that call the resolver directly."""
        unknown = sorted(set(given) - set(_BY_NAME))
        if unknown:
            raise ValueError(f"not an option: {unknown}")  # a caller's bug, not user input
        return cls.of((_BY_NAME[name], value) for name, value in given.items())


@dataclass(frozen=True)
class ResolvedOptions:
    """The options and, for each one set anywhere, where its value came from: ``--target``,
    ``$TFBUILD_TARGET``, ``<file>: [build] target`` (the rest are defaults)."""

    options: BuildOptions
    origins: Mapping[str, str]
    """By option name: where each value not a default came from."""
    config_path: Path | None
    values: OptionValues = field(default_factory=OptionValues)
    """Every option's value, defaults included, by declaration."""

    def origin(self, option: Option[object]) -> str:
        return self.origins.get(option.name, "default")


# -- tfbuild.toml, as the declarations describe it ---------------------------------------------

_TABLES = tuple(dict.fromkeys(option.table for option in OPTIONS if option.table is not None))


def _table_class(name: str, fields: list[tuple[str, object, Any]]) -> type[Any]:
    """A frozen dataclass made from declarations: mypy cannot see its fields, so it is
    read by declaration (``getattr(table, option.toml_key)``) or through :class:`_App`."""
    return make_dataclass(name, fields, frozen=True)


def _optional(option: Option[object]) -> tuple[str, object, Any]:
    """A key the file may leave out: None there means "not set here"."""
    return option.toml_key, option.kind.toml | None, field(default=None)  # type: ignore[operator]


AppTable = _table_class("AppTable", [
    ("targets", tuple[str, ...], field()),
    *((option.toml_key, option.kind.toml, field()) for option in OPTIONS if option.in_apps == "must"),
    *(_optional(option) for option in OPTIONS if option.in_apps == "may"),
])
"""``[apps.NAME]``: one app of a repository that ships several. The options declared ``in_apps``
override ``[build]`` and ``[header]`` for that app; ``targets`` are the targets it ships (the CI
matrix's rows)."""



def _section(table: str) -> tuple[str, object, Any]:
    """``[table]``: a key per option declared in it, the table itself optional."""
    cls = _table_class(f"{table.title()}Table", [_optional(option) for option in OPTIONS if option.table == table])
    return table, cls, field(default_factory=cls)


ConfigFile = _table_class("ConfigFile", [
    *(_section(table) for table in _TABLES),
    ("apps", Mapping[str, AppTable], field(default_factory=dict)),  # type: ignore[valid-type]
])
"""A ``tfbuild.toml``: a table per declared ``table``, a key per option, and ``[apps.NAME]``."""


class _App(Protocol):
    """What the resolver reads of an :data:`AppTable` by name; its options by their keys."""

    @property
    def targets(self) -> tuple[str, ...]: ...


# -- the resolver -----------------------------------------------------------------------------


def resolve_build_options(
    flags: Flags,
    *,
    environ: Mapping[str, str],
    cwd: Path,
    config_file: Path | None = None,
    require_target: bool = True,
) -> BuildOptions:
    """Resolve every option: defaults < ``tfbuild.toml`` < ``environ`` < ``flags`` (other tools'
    variables, an option's ``fallback_env``, rank below ``tfbuild.toml``).

    The config file is ``config_file``, else ``$TFBUILD_CONFIG``, else ``cwd/tfbuild.toml`` when
    it exists. ``require_target=False`` is for commands that need only part of the options
    (``tfbuild workspace``); the target is then an empty string when none was given.
    """
    return resolve_with_origins(
        flags, environ=environ, cwd=cwd, config_file=config_file, require_target=require_target
    ).options


def resolve_with_origins(
    flags: Flags,
    *,
    environ: Mapping[str, str],
    cwd: Path,
    config_file: Path | None = None,
    require_target: bool = True,
) -> ResolvedOptions:
    """:func:`resolve_build_options`, keeping where each value came from (``tfbuild config show``)."""
    cwd = Path(cwd).resolve()
    config_path = _config_path(config_file, environ, cwd)
    app = (flags.get(APP) or next((environ[name] for name in APP.env if environ.get(name)), None)
           if flags.reads(APP) else None)
    if app is not None and config_path is None:
        raise ConfigError(f"app {app!r}: no tfbuild.toml to read [apps.{app}] from",
                          hint="pass --config, or run where the repository's tfbuild.toml is")
    values: dict[Option[object], object] = {}
    origins: dict[Option[object], str] = {}
    apps: Mapping[str, _App] = {}
    if config_path is not None:
        apps = _from_config(config_path, str(app) if app is not None else None, flags, values, origins)
    for option in filter(flags.reads, OPTIONS):
        layers = (option.env,) if option in values else (option.fallback_env, option.env)
        for variables in layers:
            variable = next((name for name in variables if environ.get(name, "") != ""), None)
            if variable is not None:
                origins[option] = f"${variable}"
                values[option] = option.parse(environ[variable], origins[option], base=cwd)
        if option in flags:
            origins[option] = option.cli_flag
            values[option] = option.parse(flags.values[option], origins[option], base=cwd)
    if TARGET not in values and require_target and flags.reads(TARGET):
        raise ConfigError(
            "no target given", hint="pass --target (see 'tfbuild targets'), or set [build] target in tfbuild.toml"
        )
    context = DefaultContext(cwd, cast("str | None", values.get(APP)), cast(str, values.get(TARGET, "")))
    for option in OPTIONS:
        if option not in values:
            values[option] = option.default_for(context)
    resolved = OptionValues(values)
    options = _build_options(resolved, origins, config_path=config_path)
    if options.app is not None and options.target and options.target not in apps[options.app].targets:
        where = origins.get(TARGET, "target")
        targets = ", ".join(apps[options.app].targets)
        raise ConfigError(
            f"{where}: app {options.app} ships {targets}, not {options.target}",
            hint=f"pass one of its targets, or add {options.target} to [apps.{options.app}] targets",
        )
    by_name = {option.name: origin for option, origin in origins.items()}
    return ResolvedOptions(options, by_name, config_path, resolved)


def _build_options(
    values: OptionValues, origins: Mapping[Option[object], str], *, config_path: Path | None
) -> BuildOptions:
    """The options, grouped as the build reads them: each field from its declaration's value."""
    return BuildOptions(
        target=values[TARGET],
        models=values[MODELS],
        output_nodes=values[OUTPUT_NODES],
        source=values[SOURCE],
        flavour=values[FLAVOUR],
        output_dir=values[OUTPUT_DIR],
        app=values[APP],
        local=values[LOCAL],
        dry_run=values[DRY_RUN],
        header=HeaderOptions(default_ops=values[DEFAULT_OPS], granularity=values[GRANULARITY]),
        protobuf_rename=values[PROTOBUF_RENAME],
        jobs=values[JOBS],
        timeout=values[TIMEOUT],
        cache_prefix=values[CACHE_PREFIX],
        base_image=values[BASE_IMAGE],
        op_sources=values[OP_SOURCES],
        ops_library_name=values[OPS_LIBRARY_NAME],
        extra_cflags=values[EXTRA_CFLAGS],
        size_profile=values[SIZE_PROFILE],
        protobuf_runtime=values[PROTOBUF_RUNTIME],
        source_date_epoch=values[SOURCE_DATE_EPOCH],
        per_file_selection=values[PER_FILE_SELECTION],
        android=AndroidOptions(
            sdk=values[SDK],
            ndk=values[NDK],
            api_level=values[API_LEVEL],
            build_tools=values[BUILD_TOOLS],
            ndk_api_level=values[NDK_API_LEVEL],
            sdk_origin=origins.get(SDK),
            ndk_origin=origins.get(NDK),
            mobile_types=values[MOBILE_TYPES],
            java_package=values[JAVA_PACKAGE],
            jni_library=values[JNI_LIBRARY],
            java_api=values[JAVA_API],
        ),
        config_file=config_path,
        remote=RemoteOptions(remote_cache=values[REMOTE_CACHE], distcc_hosts=values[DISTCC_HOSTS]),
        vendor_dir=values[VENDOR_DIR],
        analysis_only=values[ANALYSIS_ONLY],
    )


def _from_config(
    path: Path, app: str | None, flags: Flags, values: dict[Option[object], object], origins: dict[Option[object], str]
) -> Mapping[str, _App]:
    """Add the options ``path`` sets to ``values``, and where (``<file>: [table] key``) to
    ``origins``: their types checked against :data:`ConfigFile`, their values by each option's
    kind, as every other layer's; relative paths are relative to the file. With ``app``, its
    ``[apps.NAME]`` table overrides the rest of the file. Only the options ``flags`` says the
    command takes are read (every key is checked all the same). Returns every app the file names."""
    config = read_toml(ConfigFile, path)
    for option in filter(flags.reads, OPTIONS):
        if option.table is None:
            continue
        value = getattr(getattr(config, option.table), option.toml_key)
        if value is not None:
            origins[option] = f"{path}: {option.file_key}"
            values[option] = option.parse(value, origins[option], base=path.parent)
    apps: Mapping[str, _App] = config.apps
    if app is not None:
        table = apps.get(app)
        if table is None:
            known = ", ".join(sorted(apps)) or "none"
            raise ConfigError(f"{path}: no [apps.{app}] (apps: {known})", hint="pass --app with one of them")
        _check_app_targets(path, app, table)
        for option in filter(flags.reads, OPTIONS):
            value = getattr(table, option.toml_key) if option.in_apps != "no" else None
            if value is not None:
                origins[option] = f"{path}: [apps.{app}] {option.toml_key}"
                values[option] = option.parse(value, origins[option], base=path.parent)
    return apps


def app_matrix(path: Path) -> list[dict[str, str]]:
    """Every app x target the file at ``path`` declares, in file order: the CI matrix. Every value
    of the file is checked as ``tfbuild build --app`` checks it, and each app must name its
    targets, each once: a matrix ``plan`` prints is one whose every job can start."""
    config = read_toml(ConfigFile, path)
    apps: Mapping[str, _App] = config.apps
    if not apps:
        raise ConfigError(f"{path}: no [apps.NAME] tables, so no matrix", hint="declare each app's models and targets")
    for option in OPTIONS:  # every value checked as `tfbuild build --app` checks it
        if option.table is not None and (value := getattr(getattr(config, option.table), option.toml_key)) is not None:
            option.parse(value, f"{path}: {option.file_key}", base=path.parent)
    rows = []
    for name, table in apps.items():
        kinds.as_name(name, f"{path}: [apps.{name}]", path.parent)
        _check_app_targets(path, name, table)
        for option in OPTIONS:
            if option.in_apps != "no" and (value := getattr(table, option.toml_key, None)) is not None:
                option.parse(value, f"{path}: [apps.{name}] {option.toml_key}", base=path.parent)
        for target in table.targets:
            kinds.as_target(target, f"{path}: [apps.{name}] targets", path.parent)
            rows.append({"app": name, "target": target, "out": f"{DEFAULT_OUTPUT_ROOT}/{name}/{target}"})
    return rows


def _check_app_targets(path: Path, name: str, table: _App) -> None:
    """An app ships to at least one target, each named once (one CI job, one output directory)."""
    if not table.targets:
        raise ConfigError(f"{path}: [apps.{name}] targets is empty, so the app is built for nothing",
                          hint='name its targets, e.g. targets = ["android-arm64"] (see \'tfbuild targets\')')
    seen: set[str] = set()
    for target in table.targets:
        if target in seen:
            raise ConfigError(f"{path}: [apps.{name}] targets names {target} twice",
                              hint="name each target once: both would build into the same directory")
        seen.add(target)


def _config_path(explicit: Path | None, environ: Mapping[str, str], cwd: Path) -> Path | None:
    if explicit is not None:
        return (cwd / explicit).resolve()
    if environ.get(ENV_CONFIG):
        return (cwd / environ[ENV_CONFIG]).resolve()
    default = cwd / CONFIG_FILE_NAME
    return default if default.is_file() else None
