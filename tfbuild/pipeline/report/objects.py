"""What an artifact is, read from its own bytes: ELF (and for which machine), Mach-O, or an ``ar``
archive of those.

The size report must read an aarch64 library with an ``nm`` that knows aarch64, whatever target
name the build was given; the file says what it holds, so it is asked, not the manifest. Only
headers are read: the ELF identification and ``e_machine``, the Mach-O magic, and an archive's
member headers up to its first object file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from tfbuild.pipeline.outputs.elf_pages import ELF_MAGIC
from tfbuild.toolchain.architectures import by_elf_machine
from tfbuild.toolchain.archive_symbols import AR_HEADER_SIZE, AR_MAGIC

ObjectFormat = Literal["elf", "mach-o", "unknown"]

_MACHO_MAGICS = frozenset(
    {b"\xfe\xed\xfa\xce", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"}
)


@dataclass(frozen=True)
class ObjectKind:
    """``format`` of the code in the file (of the first object member, for an archive); ``machine``
    the ELF ``e_machine`` (None for Mach-O and unknown files)."""

    format: ObjectFormat
    machine: int | None
    archive: bool

    def describe(self) -> str:
        """``ELF aarch64 archive``, ``Mach-O``, ``ELF machine 243``, ..."""
        if self.format == "elf":
            known = by_elf_machine(self.machine)
            what = f"ELF {known.name if known else f'machine {self.machine}'}"
        else:
            what = {"mach-o": "Mach-O", "unknown": "not an object file"}[self.format]
        return f"{what} archive" if self.archive else what


def object_kind(path: Path) -> ObjectKind:
    """The format and machine of ``path``: an object file, executable, shared library, or an
    archive whose first object member decides (an archive of none is ``unknown``)."""
    with open(path, "rb") as handle:
        start = handle.read(len(AR_MAGIC))
        if start != AR_MAGIC:
            handle.seek(0)
            return _identify(handle, archive=False)
        while True:
            header = handle.read(AR_HEADER_SIZE)
            if len(header) < AR_HEADER_SIZE:
                return ObjectKind("unknown", None, archive=True)
            name, size = header[:16].strip(), int(header[48:58].strip() or b"0")
            data_start = handle.tell()
            if name not in (b"/", b"//", b"/SYM64/", b"__.SYMDEF", b"__.SYMDEF SORTED"):
                if name.startswith(b"#1/"):  # BSD: the name is the first bytes of the data
                    handle.seek(int(name[3:]), 1)
                found = _identify(handle, archive=True)
                if found.format != "unknown":
                    return found
            handle.seek(data_start + size + (size & 1))  # members are 2-byte aligned


def _identify(handle: BinaryIO, *, archive: bool) -> ObjectKind:
    ident = handle.read(20)
    if ident[:4] == ELF_MAGIC and len(ident) == 20:
        order: Literal["little", "big"] = "big" if ident[5] == 2 else "little"
        return ObjectKind("elf", int.from_bytes(ident[18:20], order), archive)
    if ident[:4] in _MACHO_MAGICS:
        return ObjectKind("mach-o", None, archive)
    return ObjectKind("unknown", None, archive)
