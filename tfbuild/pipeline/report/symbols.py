"""The sized symbols of an artifact, read with an ``nm`` that understands it.

``nm --defined-only --size-sort -S -C`` lists every defined symbol with its size, demangled, and
for an archive under the name of the member (``relu_op.o:``) that holds it: the one listing the
attribution needs for static libraries, executables and shared libraries alike. The host's GNU
``nm`` reads the host's machine; a cross-built artifact is read with the matching binutils
(``aarch64-linux-gnu-nm``, ``arm-linux-gnueabihf-nm``) or LLVM's, which reads every machine.
Which one is decided from the artifact's own header (:mod:`.objects`), so a mislabelled file
cannot be misread.

Symbols in ``.bss`` (``b``/``B``) have a size but occupy no bytes of the file, so they are
left out: the figures are code and initialised data.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ToolchainError
from tfbuild.pipeline.report.objects import ObjectKind, object_kind
from tfbuild.toolchain.architectures import by_elf_machine, cross_tool_package, host_architecture

NM_FLAGS = ("--defined-only", "--size-sort", "-S", "-C")
NM_TIMEOUT = 900.0  # seconds; the nm of a 240 MB libtensorflow-core.a takes well under a minute

_LLVM_NM = ("llvm-nm-19", "llvm-nm")
_NO_FILE_BYTES = frozenset("bBuU")  # .bss, and anything undefined a listing might still show
DUPLICATE_MARK = "#"
"""Between an archive member's name and its number when the archive holds several of that name."""
_SYMBOL_LINE = re.compile(r"^[0-9a-fA-F]+\s+(?P<size>[0-9a-fA-F]+)\s+(?P<type>\S)\s+(?P<name>.*)$")
_MEMBER_LINE = re.compile(r"^(?P<member>[^\s].*):$")


@dataclass(frozen=True)
class Symbol:
    """A defined symbol with a size: ``member`` is the archive member holding it (None outside
    archives), ``name`` demangled."""

    member: str | None
    type: str
    size: int
    name: str


@dataclass(frozen=True)
class SymbolTable:
    """What ``nm`` listed for one artifact, in the order it listed it."""

    tool: str
    kind: ObjectKind
    symbols: tuple[Symbol, ...]
    members: tuple[str, ...]
    """An archive's members, each once, as nm named them (empty ones included)."""

    @property
    def bytes(self) -> int:
        return sum(symbol.size for symbol in self.symbols)


def nm_candidates(kind: ObjectKind, host_machine: str | None = None) -> tuple[str, ...]:
    """The ``nm`` programs that read ``kind``, best first: the host's own for the host's machine,
    the matching cross binutils (``<triple>-nm``, by its architecture's record), then LLVM's
    (which reads every machine)."""
    host = host_architecture(host_machine or platform.machine())
    if kind.format == "mach-o":
        return (("nm",) if platform.system() == "Darwin" else ()) + _LLVM_NM
    own = ("nm",) if kind.machine is not None and host is not None and kind.machine == host.elf_machine else ()
    known = by_elf_machine(kind.machine) if kind.machine is not None else None
    return own + ((f"{known.tool_prefix}nm",) if known else ()) + _LLVM_NM


def find_nm(kind: ObjectKind, path: Path) -> str:
    """The first of :func:`nm_candidates` installed here; none is a :class:`ToolchainError`."""
    candidates = nm_candidates(kind)
    for candidate in candidates:
        found = shutil.which(candidate)
        if found is not None:
            return found
    raise ToolchainError(
        f"{path}: no nm for {kind.describe()} is installed (looked for {', '.join(candidates)})",
        hint=f"install {_binutils(kind)} or llvm, or pass --nm",
    )


def _binutils(kind: ObjectKind) -> str:
    known = by_elf_machine(kind.machine) if kind.machine is not None else None
    return f"Debian's {cross_tool_package(known.tool_prefix + 'nm')}" if known else "the target's binutils"


def read_symbols(path: Path, *, nm: str | None = None, timeout: float = NM_TIMEOUT) -> SymbolTable:
    """The sized symbols of ``path`` as ``nm`` (given, or :func:`find_nm`'s) lists them.

    An artifact with no symbols at all (stripped) gives an empty table; nm failing outright
    (not an object file, a tool that does not know the machine) is a :class:`ToolchainError`.
    """
    kind = object_kind(path)
    tool = nm or find_nm(kind, path)
    try:
        done = subprocess.run(
            [tool, *NM_FLAGS, str(path)], capture_output=True, text=True, errors="replace", timeout=timeout, check=False
        )
    except FileNotFoundError as error:
        raise ToolchainError(f"{tool}: not found", hint="pass --nm PATH to an nm that reads the artifact") from error
    except subprocess.TimeoutExpired as error:
        raise ToolchainError(f"{tool} {path}: no answer after {timeout:.0f} s") from error
    symbols, members = parse_nm(done.stdout, archive=kind.archive)
    if done.returncode != 0 and not symbols:
        message = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        if "no symbols" not in message[0]:
            raise ToolchainError(f"{tool} could not read {path}: {message[0]}", hint="pass --nm PATH to another nm")
    return SymbolTable(tool=tool, kind=kind, symbols=symbols, members=members)


def parse_nm(text: str, *, archive: bool) -> tuple[tuple[Symbol, ...], tuple[str, ...]]:
    """The sized, file-occupying symbols of an ``nm -S -C`` listing, and (archives) the member
    names it announced (``\\nrelu_op.o:`` before each member's symbols), the second of a name
    as ``no_op.o#2``."""
    symbols: list[Symbol] = []
    members: dict[str, None] = {}
    member: str | None = None
    for line in text.splitlines():
        found = _SYMBOL_LINE.match(line)
        if found is not None:
            size = int(found.group("size"), 16)
            if size and found.group("type") not in _NO_FILE_BYTES:
                symbols.append(Symbol(member, found.group("type"), size, found.group("name")))
            continue
        header = _MEMBER_LINE.match(line) if archive else None
        if header is not None:
            member = header.group("member")
            if member in members:  # two sources of one name (kernels/no_op.cc, ops/no_op.cc)
                member = f"{member}{DUPLICATE_MARK}{sum(m.split(DUPLICATE_MARK)[0] == member for m in members) + 1}"
            members[member] = None
    return tuple(symbols), tuple(members)
