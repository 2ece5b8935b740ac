"""Machine architectures as data: one record per ``toolchains/architectures/<name>.toml``.

Everything tfbuild knows about a CPU architecture sits in one place: its word size, the ELF
``e_machine`` its object files carry, Debian's GNU triple (which names the cross compiler, its
binutils and its system root), how a program built for it runs on this x86_64 Linux machine
(directly, or under a qemu-user program), and the Debian packages that bring its compiler and
runner. The size report picks an ``nm`` by the ELF machine, ``tfbuild verify`` picks a runner by
the target's architecture, the install script and the tests read the packages and tools from
here: adding an architecture is adding a file.

A target profile names its architecture the way its platform does (``arm64-v8a`` on Android,
``arm64`` on iOS, ``aarch64`` on Linux); every spelling is listed in the record's ``names``.

Run as ``python3 -m tfbuild.toolchain.architectures packages`` (or ``zlib``) it prints what
``scripts/install-system-deps.sh`` installs; it needs nothing beyond Python's standard library.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from tfbuild.config import Check, did_you_mean, non_empty, read_toml
from tfbuild.errors import ConfigError
from tfbuild.resources import toolchains_dir

NATIVE = "native"
"""``runs`` of an architecture whose programs run on this machine as they are."""


def _runs(value: str) -> None:
    if value != NATIVE and not re.fullmatch(r"qemu-[a-z0-9_]+", value):
        raise ConfigError(f"'{value}' is neither \"{NATIVE}\" nor a qemu-user program (qemu-<arch>)")


def _bits(value: int) -> None:
    if value not in (32, 64):
        raise ConfigError(f"{value} bits: expected 32 or 64")


def _sha256(value: str) -> None:
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise ConfigError(f"'{value}' is not a SHA-256 in hex")


@dataclass(frozen=True)
class DebianArchive:
    """A Debian package file taken for one file in it: where it is, and its SHA-256."""

    url: str
    sha256: Annotated[str, Check(_sha256)]


@dataclass(frozen=True)
class Architecture:
    """One ``toolchains/architectures/<name>.toml``."""

    name: str
    names: Annotated[tuple[str, ...], Check(non_empty)]
    """Every spelling of it: targets' ``arch`` (``arm64-v8a``), ``platform.machine()`` (``armv7l``)."""
    bits: Annotated[int, Check(_bits)]
    elf_machine: int
    gnu_triple: str
    runs: Annotated[str, Check(_runs)]
    compiler_packages: tuple[str, ...]
    """The Debian packages of its compiler and binutils on this machine."""
    runner_packages: tuple[str, ...]
    """The Debian packages of :attr:`runs` (none for a native architecture)."""
    target_zlib: DebianArchive | None = None
    """Debian's ``zlib1g-dev`` for a cross architecture: its ``libz.a`` goes into the system root."""
    source: Path | None = None

    @property
    def tool_prefix(self) -> str:
        """What Debian's binutils and GCC for it are named with: ``aarch64-linux-gnu-``."""
        return f"{self.gnu_triple}-"

    @property
    def sysroot(self) -> str:
        """Debian's system root for the cross toolchain: the dynamic loader and libraries."""
        return f"/usr/{self.gnu_triple}"

    @property
    def native(self) -> bool:
        return self.runs == NATIVE

    def launcher(self, *, static: bool) -> tuple[str, ...]:
        """The argv prefix that runs its programs here: none natively; qemu-user, given the
        system root unless the program is linked ``-static``."""
        if self.native:
            return ()
        return (self.runs,) if static else (self.runs, "-L", self.sysroot)


def load_architectures(directory: Path | None = None) -> dict[str, Architecture]:
    """Every record in ``directory`` (default: tfbuild's ``toolchains/architectures``), by name;
    a spelling two records claim is a :class:`ConfigError`."""
    directory = directory or toolchains_dir() / "architectures"
    records: dict[str, Architecture] = {}
    claimed: dict[str, str] = {}
    for path in sorted(directory.glob("*.toml")):
        record = read_toml(Architecture, path, name=path.stem, source=path)
        for spelling in record.names:
            if spelling in claimed:
                raise ConfigError(f"{path}: names: '{spelling}' is already {claimed[spelling]}'s")
            claimed[spelling] = record.name
        records[record.name] = record
    return records


@functools.lru_cache(maxsize=1)
def architectures() -> dict[str, Architecture]:
    """tfbuild's own records, read once."""
    return load_architectures()


@functools.lru_cache(maxsize=1)
def _by_spelling() -> dict[str, Architecture]:
    return {spelling: record for record in architectures().values() for spelling in record.names}


def find_architecture(spelling: str) -> Architecture:
    """The record one of whose ``names`` is ``spelling``; none is a :class:`ConfigError`."""
    found = _by_spelling().get(spelling)
    if found is None:
        raise ConfigError(
            f"unknown architecture '{spelling}'{did_you_mean(spelling, _by_spelling())}",
            hint=f"known: {', '.join(sorted(_by_spelling()))} (toolchains/architectures)",
        )
    return found


def known_architecture(spelling: str) -> None:
    """A :class:`~tfbuild.config.Check` rule: ``spelling`` names a record."""
    find_architecture(spelling)


def by_elf_machine(machine: int | None) -> Architecture | None:
    """The record whose objects carry ``e_machine`` ``machine``, if any."""
    return next((record for record in architectures().values() if record.elf_machine == machine), None)


def host_architecture(machine: str) -> Architecture | None:
    """The record of a machine as ``platform.machine()`` names it (``x86_64``, ``aarch64``)."""
    return _by_spelling().get(machine.lower())


def debian_packages() -> tuple[str, ...]:
    """Every architecture's packages, each once, in file order."""
    records = architectures().values()
    return tuple(dict.fromkeys(p for record in records for p in (*record.compiler_packages, *record.runner_packages)))


def runner_package(program: str) -> str | None:
    """The Debian package of a qemu-user program some architecture runs under."""
    for record in architectures().values():
        if not record.native and program == record.runs and record.runner_packages:
            return record.runner_packages[0]
    return None


def cross_tool_package(program: str) -> str | None:
    """The Debian package of a cross tool as a build runs it: ``<triple>-g++`` (and ``gcc``) is
    in ``g++-<triple>``, the binutils' (``ar``, ``nm``, ...) in ``binutils-<triple>``."""
    for record in architectures().values():
        tool = program.removeprefix(record.tool_prefix)
        if tool != program:
            if tool in ("g++", "gcc"):
                return f"{tool}-{record.gnu_triple}"
            if tool in ("ar", "ld", "ranlib", "strip", "nm", "readelf", "objdump"):
                return f"binutils-{record.gnu_triple}"
    return None


def main(argv: list[str]) -> int:
    """``packages``: one Debian package a line; ``zlib``: ``triple url sha256`` a line."""
    if argv == ["packages"]:
        print("\n".join(debian_packages()))
        return 0
    if argv == ["zlib"]:
        for record in architectures().values():
            if record.target_zlib is not None:
                print(record.gnu_triple, record.target_zlib.url, record.target_zlib.sha256)
        return 0
    print("usage: python3 -m tfbuild.toolchain.architectures packages|zlib", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
