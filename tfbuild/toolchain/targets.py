"""Build targets as data: one profile per ``toolchains/<target>.toml``, loaded into frozen values.

A profile says what a target is (platform, architecture, whether it can be built and run on this
kind of machine), how each flavour builds it (contrib Makefile variables and scripts, Bazel
config and labels, the compiler for an app's op library), which toolchain Dockerfile each
flavour runs in, what comes out, and what an app must link. Code never switches on target names:
adding a target means adding a file, and a reviewer sees every flag a build will use in one place.

Strings may hold placeholders filled in at planning time: ``{makefile_dir}`` (the tree's
``tensorflow/contrib/makefile`` as the build sees it), ``{ndk}`` (the NDK's path as the build
sees it) and ``{ndk_api_level}``.
"""

from __future__ import annotations

import dataclasses
import functools
import string as string_module
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfbuild.config import (
    boolean,
    check_keys,
    did_you_mean,
    integer,
    load_toml,
    require_keys,
    string,
    string_table,
    strings,
    table,
)
from tfbuild.errors import ConfigError
from tfbuild.resources import toolchains_dir

FLAVOURS = ("makefile", "bazel", "ops-library")
PLATFORMS = ("linux", "android", "ios")
HOST_REQUIREMENTS = ("ndk", "sdk", "xcode")
ARTIFACT_KINDS = ("static-lib", "shared-lib", "aar", "executable", "header")
SNIPPETS = ("xcconfig", "cmake", "ndk-build", "gradle", "makefile")
PLACEHOLDERS = frozenset({"makefile_dir", "ndk", "ndk_api_level"})


@dataclass(frozen=True)
class ArtifactSpec:
    """An output of a flavour: ``path`` relative to the contrib Makefile directory (Makefile
    flavour), and the ``name`` it gets in the output directory."""

    path: str
    name: str
    kind: str


@dataclass(frozen=True)
class ProtobufBuild:
    """How the Makefile flavour builds protobuf for the target: one of TensorFlow's
    ``compile_*_protobuf.sh`` scripts (``script``, ``args``), or protobuf's own ``configure``
    cross-compiling to ``configure_host`` with ``cxx`` and the host protoc. ``prefix`` is where it
    installs, relative to the Makefile directory."""

    prefix: str
    script: str | None = None
    args: tuple[str, ...] = ()
    configure_host: str | None = None
    cxx: str | None = None


@dataclass(frozen=True)
class NsyncBuild:
    """``compile_nsync.sh`` arguments for the target (empty: the host library), the library it
    leaves (relative to the Makefile directory), and ``cc``, a cross compiler the script has no
    option for (given to its make through ``MAKEFLAGS``). ``host_lib`` is where the script leaves
    the build machine's own library (``default.<host os>.c++11``)."""

    args: tuple[str, ...]
    lib: str
    cc: str | None = None
    host_lib: str = "downloads/nsync/builds/default.linux.c++11/nsync.a"


@dataclass(frozen=True)
class MakefileProfile:
    dockerfile: str | None  # None: runs on the host (iOS, a Mac with Xcode)
    variables: Mapping[str, str]
    optflags: tuple[str, ...]
    protobuf: ProtobufBuild
    nsync: NsyncBuild
    artifacts: tuple[ArtifactSpec, ...]
    ndk_max_major: int | None = None


@dataclass(frozen=True)
class BazelTarget:
    """A Bazel label, ``package`` either a literal (``//tensorflow``) or ``android_inference``,
    which names the package the TF version keeps its Android inference library in."""

    package: str
    name: str
    kind: str


@dataclass(frozen=True)
class BazelProfile:
    dockerfile: str
    config: str
    config_flags: tuple[str, ...]
    targets: tuple[BazelTarget, ...]
    needs_android_workspace: bool = False


@dataclass(frozen=True)
class OpsLibraryProfile:
    dockerfile: str | None
    compiler: str
    archiver: str
    cflags: tuple[str, ...]
    kind: str  # "shared" | "static"


@dataclass(frozen=True)
class LinkProfile:
    """What an app links: archives kept whole (their static initializers register ops and
    kernels), plain archives, system libraries, Apple frameworks; which snippets fit the
    platform; and the C++ runtime the libraries were built against (Android)."""

    whole_archive: tuple[str, ...]
    libs: tuple[str, ...]
    system_libs: tuple[str, ...]
    frameworks: tuple[str, ...]
    snippets: tuple[str, ...]
    stl: str | None = None


@dataclass(frozen=True)
class TargetProfile:
    name: str
    description: str
    platform: str
    arch: str
    runnable_here: bool
    requires: tuple[str, ...]
    link: LinkProfile
    makefile: MakefileProfile | None = None
    bazel: BazelProfile | None = None
    ops_library: OpsLibraryProfile | None = None
    source: Path | None = None

    @property
    def flavours(self) -> tuple[str, ...]:
        """The flavours that build this target, in :data:`FLAVOURS` order."""
        present = {"makefile": self.makefile, "bazel": self.bazel, "ops-library": self.ops_library}
        return tuple(name for name in FLAVOURS if present[name] is not None)

    @property
    def is_64bit(self) -> bool:
        return self.arch in ("arm64-v8a", "arm64", "aarch64", "x86_64")


def load_targets(directory: Path | None = None) -> dict[str, TargetProfile]:
    """Every profile in ``directory`` (default: tfbuild's ``toolchains/``), by target name."""
    directory = directory or toolchains_dir()
    profiles = {}
    for path in sorted(directory.glob("*.toml")):
        profile = load_profile(path)
        profiles[profile.name] = profile
    return profiles


@functools.lru_cache(maxsize=1)
def _builtin_targets() -> dict[str, TargetProfile]:
    return load_targets()


def target_names() -> tuple[str, ...]:
    return tuple(_builtin_targets())


def get_target(name: str) -> TargetProfile:
    """The built-in profile ``name``; an unknown name is a :class:`ConfigError` with a guess."""
    targets = _builtin_targets()
    if name not in targets:
        raise ConfigError(
            f"unknown target '{name}'{did_you_mean(name, targets)}",
            hint=f"known targets: {', '.join(targets)} (see 'tfbuild targets')",
        )
    return targets[name]


_TOP_KEYS = ("description", "platform", "arch", "runnable_here", "requires", "makefile", "bazel", "ops_library", "link")


def load_profile(path: Path) -> TargetProfile:
    """Read one profile; every problem is a :class:`ConfigError` naming the file and key."""
    data = load_toml(path)
    where = str(path)
    check_keys(data, _TOP_KEYS, where=where)
    require_keys(data, ("description", "platform", "arch", "runnable_here", "requires", "link"), where=where)
    platform = _choice(data["platform"], PLATFORMS, where=f"{where}: platform")
    requires = strings(data["requires"], where=f"{where}: requires")
    for item in requires:
        _choice(item, HOST_REQUIREMENTS, where=f"{where}: requires")
    profile = TargetProfile(
        name=path.stem,
        description=string(data["description"], where=f"{where}: description"),
        platform=platform,
        arch=string(data["arch"], where=f"{where}: arch"),
        runnable_here=boolean(data["runnable_here"], where=f"{where}: runnable_here"),
        requires=requires,
        link=_link(data["link"], f"{where}: [link]"),
        makefile=_makefile(data["makefile"], f"{where}: [makefile]") if "makefile" in data else None,
        bazel=_bazel(data["bazel"], f"{where}: [bazel]") if "bazel" in data else None,
        ops_library=_ops_library(data["ops_library"], f"{where}: [ops_library]") if "ops_library" in data else None,
        source=path,
    )
    if not profile.flavours:
        raise ConfigError(f"{where}: no flavour builds this target", hint="add [makefile], [bazel] or [ops_library]")
    return profile


def _makefile(value: Any, where: str) -> MakefileProfile:
    data = table(value, where=where)
    keys = ("dockerfile", "variables", "optflags", "protobuf", "nsync", "artifacts", "ndk_max_major")
    check_keys(data, keys, where=where)
    require_keys(data, ("variables", "optflags", "protobuf", "nsync", "artifacts"), where=where)
    variables = string_table(data["variables"], where=f"{where} variables")
    for key, text in variables.items():
        _check_placeholders(text, f"{where} variables.{key}")
    return MakefileProfile(
        dockerfile=_dockerfile(data, where),
        variables=variables,
        optflags=strings(data["optflags"], where=f"{where} optflags"),
        protobuf=_protobuf(data["protobuf"], f"{where} protobuf"),
        nsync=_nsync(data["nsync"], f"{where} nsync"),
        artifacts=_artifacts(data["artifacts"], f"{where} artifacts"),
        ndk_max_major=integer(data["ndk_max_major"], where=f"{where} ndk_max_major") if "ndk_max_major" in data else None,
    )


def _protobuf(value: Any, where: str) -> ProtobufBuild:
    data = table(value, where=where)
    check_keys(data, ("prefix", "script", "args", "configure_host", "cxx"), where=where)
    require_keys(data, ("prefix",), where=where)
    build = ProtobufBuild(
        prefix=string(data["prefix"], where=f"{where}.prefix"),
        script=string(data["script"], where=f"{where}.script") if "script" in data else None,
        args=strings(data.get("args", []), where=f"{where}.args"),
        configure_host=string(data["configure_host"], where=f"{where}.configure_host") if "configure_host" in data else None,
        cxx=string(data["cxx"], where=f"{where}.cxx") if "cxx" in data else None,
    )
    if (build.script is None) == (build.configure_host is None):
        raise ConfigError(f"{where}: give exactly one of 'script' or 'configure_host'")
    if build.configure_host is not None and build.cxx is None:
        raise ConfigError(f"{where}: a configure cross build needs 'cxx'")
    return build


def _nsync(value: Any, where: str) -> NsyncBuild:
    data = table(value, where=where)
    check_keys(data, ("args", "lib", "cc", "host_lib"), where=where)
    require_keys(data, ("args", "lib"), where=where)
    build = NsyncBuild(
        args=strings(data["args"], where=f"{where}.args"),
        lib=string(data["lib"], where=f"{where}.lib"),
        cc=string(data["cc"], where=f"{where}.cc") if "cc" in data else None,
    )
    if "host_lib" in data:
        build = dataclasses.replace(build, host_lib=string(data["host_lib"], where=f"{where}.host_lib"))
    return build


def _kinded_entries(value: Any, where: str, first: str) -> list[tuple[str, str, str]]:
    """A non-empty list of ``{<first>, name, kind}`` tables (artifacts, Bazel targets) as
    ``(first, name, kind)`` triples, each key checked and named in errors."""
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{where}: expected a non-empty list of tables")
    entries = []
    for index, item in enumerate(value):
        item_where = f"{where}[{index}]"
        data = table(item, where=item_where)
        check_keys(data, (first, "name", "kind"), where=item_where)
        require_keys(data, (first, "name", "kind"), where=item_where)
        entries.append((
            string(data[first], where=f"{item_where}.{first}"),
            string(data["name"], where=f"{item_where}.name"),
            _choice(data["kind"], ARTIFACT_KINDS, where=f"{item_where}.kind"),
        ))
    return entries


def _artifacts(value: Any, where: str) -> tuple[ArtifactSpec, ...]:
    return tuple(ArtifactSpec(path=p, name=n, kind=k) for p, n, k in _kinded_entries(value, where, "path"))


def _bazel(value: Any, where: str) -> BazelProfile:
    data = table(value, where=where)
    check_keys(data, ("dockerfile", "config", "config_flags", "targets", "needs_android_workspace"), where=where)
    require_keys(data, ("dockerfile", "config", "config_flags", "targets"), where=where)
    targets = [
        BazelTarget(package=p, name=n, kind=k)
        for p, n, k in _kinded_entries(data["targets"], f"{where} targets", "package")
    ]
    return BazelProfile(
        dockerfile=string(data["dockerfile"], where=f"{where} dockerfile"),
        config=string(data["config"], where=f"{where} config"),
        config_flags=strings(data["config_flags"], where=f"{where} config_flags"),
        targets=tuple(targets),
        needs_android_workspace=boolean(data.get("needs_android_workspace", False), where=f"{where} needs_android_workspace"),
    )


def _ops_library(value: Any, where: str) -> OpsLibraryProfile:
    data = table(value, where=where)
    check_keys(data, ("dockerfile", "compiler", "archiver", "cflags", "kind"), where=where)
    require_keys(data, ("compiler", "archiver", "cflags", "kind"), where=where)
    for key in ("compiler", "archiver"):
        _check_placeholders(string(data[key], where=f"{where} {key}"), f"{where} {key}")
    return OpsLibraryProfile(
        dockerfile=_dockerfile(data, where),
        compiler=data["compiler"],
        archiver=data["archiver"],
        cflags=strings(data["cflags"], where=f"{where} cflags"),
        kind=_choice(data["kind"], ("shared", "static"), where=f"{where} kind"),
    )


def _link(value: Any, where: str) -> LinkProfile:
    data = table(value, where=where)
    keys = ("whole_archive", "libs", "system_libs", "frameworks", "snippets", "stl")
    check_keys(data, keys, where=where)
    require_keys(data, keys[:-1], where=where)
    snippets = strings(data["snippets"], where=f"{where} snippets")
    for snippet in snippets:
        _choice(snippet, SNIPPETS, where=f"{where} snippets")
    return LinkProfile(
        whole_archive=strings(data["whole_archive"], where=f"{where} whole_archive"),
        libs=strings(data["libs"], where=f"{where} libs"),
        system_libs=strings(data["system_libs"], where=f"{where} system_libs"),
        frameworks=strings(data["frameworks"], where=f"{where} frameworks"),
        snippets=snippets,
        stl=string(data["stl"], where=f"{where} stl") if "stl" in data else None,
    )


def _dockerfile(data: Mapping[str, Any], where: str) -> str | None:
    if "dockerfile" not in data:
        return None
    name = string(data["dockerfile"], where=f"{where} dockerfile")
    if "/" in name or not name.endswith(".Dockerfile"):
        raise ConfigError(f"{where} dockerfile: '{name}' is not a file name under docker/ ending in .Dockerfile")
    return name


def _choice(value: Any, choices: tuple[str, ...], *, where: str) -> str:
    text = string(value, where=where)
    if text not in choices:
        raise ConfigError(f"{where}: unknown value '{text}'{did_you_mean(text, choices)}", hint=f"use one of: {', '.join(choices)}")
    return text


def _check_placeholders(text: str, where: str) -> None:
    for _, field, _, _ in string_module.Formatter().parse(text):
        if field is not None and field not in PLACEHOLDERS:
            raise ConfigError(
                f"{where}: unknown placeholder '{{{field}}}'{did_you_mean(field, PLACEHOLDERS)}",
                hint=f"known placeholders: {', '.join(sorted(PLACEHOLDERS))}",
            )


def fill(text: str, **values: str) -> str:
    """``text`` with its placeholders replaced; profiles are tfbuild's own data, checked at load."""
    return text.format_map(values)
