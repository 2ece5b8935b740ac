"""An Android NDK as tfbuild reads it, and the checks a target's build puts it to.

An NDK states what it is in a few files, read here for every NDK alike (a real one from r11 on,
or a stand-in laid out the same way); nothing is special-cased for one NDK:

- ``source.properties``: ``Pkg.Revision = 26.1.10909125`` (every NDK since r11);
- ``meta/platforms.json``: ``{"min": 21, "max": 34, ...}``, the API levels it builds for (r17
  on). Older NDKs have a ``platforms/android-N`` directory per level instead;
- ``meta/abis.json``: ``{"arm64-v8a": {...}, ...}`` (r18 on). Older NDKs name their ABIs by
  ``platforms/android-N/arch-<arch>`` directories;
- ``toolchains/llvm/prebuilt/<host>``: clang (and from r19 the sysroot) for one kind of build
  machine, ``linux-x86_64`` in a toolchain container. NDK r17 and older also carry the GCC
  toolchains (``toolchains/aarch64-linux-android-4.9``) the contrib Makefile calls.

:func:`inspect_ndk` reads them into an :class:`NdkInfo`; :func:`check_abi` and
:func:`check_api_level` refuse a target the NDK cannot build, each with one line naming the NDK,
what it has and what the build needs. Which NDK majors a build takes is the flavour's rule: the
tree's own list for Bazel (:func:`tfbuild.pipeline.flavours.workspace.check_ndk_supported`), the GCC
toolchains or tfbuild's clang adapter for the contrib Makefile
(:func:`tfbuild.pipeline.outputs.android.ndk_clang.choose_adapter`).
"""

from __future__ import annotations

import json
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfbuild.errors import ConfigError
from tfbuild.toolchain.archive_symbols import undefined_references

CONTAINER_HOST = "linux-x86_64"
"""The NDK host directory a toolchain container runs (``toolchains/llvm/prebuilt/linux-x86_64``)."""
SOURCE_PROPERTIES = "source.properties"
PLATFORMS_JSON = "meta/platforms.json"
ABIS_JSON = "meta/abis.json"
LLVM_PREBUILT = "toolchains/llvm/prebuilt"
_PKG_REVISION = re.compile(r"^\s*Pkg\.Revision\s*=\s*((\d+)[0-9A-Za-z.\-]*)", re.MULTILINE)
_PLATFORM_DIR = re.compile(r"android-(\d+)\Z")
_GCC_TOOLCHAIN = re.compile(r".+-\d+(\.\d+)+\Z")  # aarch64-linux-android-4.9, x86-4.9
ARCH_ABIS = {"arm": "armeabi-v7a", "arm64": "arm64-v8a", "x86": "x86", "x86_64": "x86_64", "mips": "mips",
             "mips64": "mips64"}
"""The ABI an old NDK's ``platforms/android-N/arch-<arch>`` directory stands for."""
CLANG_ONLY_MAJOR = 19
"""From NDK r19 on, ``toolchains/llvm/prebuilt/<host>`` is a complete toolchain: clang with
``<triple><api>-clang`` drivers, the unified ``sysroot/`` (headers, and the libraries under
``usr/lib/<triple>/<api>``) and libc++. NDK r18 removed GCC and gnustl but lacks that layout."""
FIND_HINT = "pass --ndk, set [android] ndk in tfbuild.toml, or set ANDROID_NDK_HOME, to an NDK's top directory"


@dataclass(frozen=True)
class NdkInfo:
    """What an NDK directory says about itself."""

    path: Path
    revision: str
    """``Pkg.Revision`` of ``source.properties``, e.g. ``26.1.10909125``."""
    major: int
    api_levels: tuple[int, ...]
    """Every API level it builds for, ascending: ``min``..``max`` of ``meta/platforms.json``
    (its aliases, such as 20 for 19 in r18, included), else the ``platforms/android-N`` it has."""
    api_levels_source: str
    abis: tuple[str, ...]
    abis_source: str
    hosts: tuple[str, ...] = ()
    """The build machines it has clang for: ``toolchains/llvm/prebuilt/<host>`` names."""
    gcc_toolchains: tuple[str, ...] = ()
    """``toolchains/<name>-4.9`` directories (NDK r17 and older)."""
    origin: str | None = None
    """Where the path was given: ``--ndk``, ``$ANDROID_NDK_HOME``, ``<file>: [android] ndk``."""

    @property
    def name(self) -> str:
        """``Android NDK r26 (26.1.10909125)``."""
        return f"Android NDK r{self.major} ({self.revision})"

    @property
    def where(self) -> str:
        """How messages name it: its path, and where that was given."""
        return f"{self.path} (from {self.origin})" if self.origin else str(self.path)

    def prebuilt(self, host: str = CONTAINER_HOST) -> Path | None:
        """``toolchains/llvm/prebuilt/<host>``, or None when the NDK has no clang for ``host``."""
        return self.path / LLVM_PREBUILT / host if host in self.hosts else None

    def library_kinds(self, name: str, abi_triple: str, api_level: int, host: str = CONTAINER_HOST) -> frozenset[str]:
        """How ``-l<name>`` is found for the ABI in the NDK's clang toolchain for ``host``:
        ``static`` (a ``lib<name>.a``) and/or ``shared`` (a ``lib<name>.so``), looked up in its
        sysroot's ``usr/lib/<abi_triple>`` and ``/<api_level>`` and in clang's runtime
        directories (``lib/clang/*/lib/linux``: libatomic in NDK r23+); empty: not the NDK's."""
        prebuilt = self.prebuilt(host)
        if prebuilt is None:
            return frozenset()
        lib = prebuilt / "sysroot" / "usr" / "lib" / abi_triple
        places = [lib, lib / str(api_level), *sorted((prebuilt / "lib").glob("clang/*/lib/linux/*")),
                  *sorted((prebuilt / "lib").glob("clang/*/lib/linux"))]
        kinds = set()
        for place in places:
            if (place / f"lib{name}.a").is_file():
                kinds.add("static")
            if (place / f"lib{name}.so").is_file():
                kinds.add("shared")
        return frozenset(kinds)

    def strong_runtime_references(
        self, abi_triple: str, symbols: frozenset[str], host: str = CONTAINER_HOST
    ) -> Path | None:
        """The NDK's ``libc++abi.a`` for the ABI when it references any of ``symbols`` strongly
        (see :mod:`tfbuild.toolchain.archive_symbols`); None when it references them weakly or
        not at all, or has no such archive (then the link itself says what is missing)."""
        prebuilt = self.prebuilt(host)
        if prebuilt is None:
            return None
        archive = prebuilt / "sysroot" / "usr" / "lib" / abi_triple / "libc++abi.a"
        try:
            references = undefined_references(archive)
        except (OSError, ValueError):
            return None
        return archive if any(references.get(name) == "strong" for name in symbols) else None

    def summary(self) -> str:
        """One line for the dry run: revision, API levels, ABIs, hosts."""
        hosts = ", ".join(self.hosts) or "no llvm prebuilt"
        gcc = "; GCC toolchains" if self.gcc_toolchains else ""
        return (f"{self.name}: API {levels_text(self.api_levels)}, ABIs {', '.join(self.abis) or 'none'}, "
                f"prebuilt {hosts}{gcc}")


def inspect_ndk(path: Path, *, origin: str | None = None) -> NdkInfo:
    """Read the NDK at ``path``; ``origin`` says where the path came from, for messages.

    A missing directory, a missing ``source.properties`` or one without ``Pkg.Revision``, and
    unreadable ``meta/*.json`` are each a :class:`ConfigError` naming the path."""
    path = Path(path)
    where = f"{path} (from {origin})" if origin else str(path)
    if not path.is_dir():
        raise ConfigError(f"{where}: Android NDK directory not found", hint=FIND_HINT)
    properties = path / SOURCE_PROPERTIES
    if not properties.is_file():
        raise ConfigError(
            f"{where}: no {SOURCE_PROPERTIES}, so this is not an Android NDK (r11 or newer)", hint=FIND_HINT
        )
    match = _PKG_REVISION.search(properties.read_text(errors="replace"))
    if match is None:
        raise ConfigError(
            f"{where}: its {SOURCE_PROPERTIES} has no 'Pkg.Revision = N...' line",
            hint="is this an Android NDK r11 or newer?",
        )
    api_levels, api_source = _api_levels(path)
    abis, abis_source = _abis(path)
    return NdkInfo(
        path=path,
        revision=match.group(1),
        major=int(match.group(2)),
        api_levels=api_levels,
        api_levels_source=api_source,
        abis=abis,
        abis_source=abis_source,
        hosts=_subdirectories(path / LLVM_PREBUILT),
        gcc_toolchains=tuple(name for name in _subdirectories(path / "toolchains") if _GCC_TOOLCHAIN.match(name)),
        origin=origin,
    )


def check_abi(ndk: NdkInfo, abi: str, *, target: str) -> None:
    """Refuse an NDK that has no ``abi`` (the target profile's ``arch``)."""
    if abi in ndk.abis:
        return
    raise ConfigError(
        f"{ndk.where}: {ndk.name} has ABIs {', '.join(ndk.abis) or 'none'} ({ndk.abis_source}); "
        f"target {target} needs {abi}",
        hint=f"use an NDK that has {abi}",
    )


def check_api_level(ndk: NdkInfo, level: int, *, needs: str, why: str, choosable: bool = True) -> None:
    """Refuse an NDK that cannot build for API ``level``. ``needs`` names what asks for it
    (``target android-arm64``), ``why`` where the level came from (``--ndk-api-level``, a
    default), ``choosable`` whether ``--ndk-api-level`` can change it."""
    if level in ndk.api_levels:
        return
    have = levels_text(ndk.api_levels)
    hint = f"use an NDK that has API level {level}"
    if choosable and ndk.api_levels:
        hint += f", or pass --ndk-api-level {_nearest(level, ndk.api_levels)}"
    raise ConfigError(
        f"{ndk.where}: {ndk.name} has API levels {have} ({ndk.api_levels_source}); "
        f"{needs} builds for API level {level} ({why})",
        hint=hint,
    )


def levels_text(levels: tuple[int, ...]) -> str:
    """``21-34``; ``16-19, 21, 28``; ``none``: runs of consecutive levels joined."""
    runs: list[list[int]] = []
    for level in sorted(levels):
        if runs and level == runs[-1][-1] + 1:
            runs[-1].append(level)
        else:
            runs.append([level])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs) or "none"


def _nearest(level: int, levels: tuple[int, ...]) -> int:
    return min(levels, key=lambda have: (abs(have - level), have))


def _api_levels(ndk: Path) -> tuple[tuple[int, ...], str]:
    meta = ndk / PLATFORMS_JSON
    if meta.is_file():
        data = _json_object(meta)
        low, high = data.get("min"), data.get("max")
        if not (isinstance(low, int) and isinstance(high, int) and 0 < low <= high):
            raise ConfigError(f"{meta}: expected whole numbers 'min' <= 'max', got {low!r} and {high!r}",
                              hint="is this file from an Android NDK?")
        return tuple(range(low, high + 1)), PLATFORMS_JSON
    platforms = ndk / "platforms"
    levels = sorted(int(m.group(1)) for name in _subdirectories(platforms) if (m := _PLATFORM_DIR.match(name)))
    if levels:
        return tuple(levels), "platforms/android-N"
    return (), f"no {PLATFORMS_JSON} and no platforms/android-N"


def _abis(ndk: Path) -> tuple[tuple[str, ...], str]:
    meta = ndk / ABIS_JSON
    if meta.is_file():
        return tuple(sorted(_json_object(meta))), ABIS_JSON
    found: set[str] = set()
    for level in _subdirectories(ndk / "platforms"):
        if _PLATFORM_DIR.match(level):
            arches = (name.removeprefix("arch-") for name in _subdirectories(ndk / "platforms" / level))
            found.update(ARCH_ABIS[arch] for arch in arches if arch in ARCH_ABIS)
    if found:
        return tuple(sorted(found)), "platforms/android-N/arch-*"
    return (), f"no {ABIS_JSON} and no platforms/android-N/arch-*"


def _json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"{path}: not readable JSON: {error}", hint="is this NDK complete?") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object", hint="is this file from an Android NDK?")
    return data


def _subdirectories(directory: Path) -> tuple[str, ...]:
    if not directory.is_dir():
        return ()
    return tuple(sorted(entry.name for entry in directory.iterdir() if entry.is_dir()))


def build_machine_host() -> str:
    """The ``toolchains/llvm/prebuilt/<host>`` name of this machine (``linux-x86_64``,
    ``darwin-x86_64``: NDKs ship x86_64 names only, universal binaries on Apple silicon)."""
    return f"{platform.system().lower()}-x86_64"
