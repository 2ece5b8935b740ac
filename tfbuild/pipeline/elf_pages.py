"""The page size an ELF file's LOAD segments are aligned to, and the check every Android build
makes of what it linked.

Google Play takes 64-bit native code only when its LOAD segments are aligned to 16 KB (apps that
target Android 15 and newer, since 2025-11-01): a device with 16 KB pages cannot map a library
linked for 4 KB ones. NDK r27 and older link with 4 KB unless told; tfbuild tells every link
(``NdkClangBuild.page_size``), and reads the result back here, from the program headers
themselves, so a toolchain that ignored the flag is caught on the build machine, not at upload.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path

from tfbuild.errors import BuildError

_PT_LOAD = 1
_ELF_MAGIC = b"\x7fELF"


def load_alignment(path: Path) -> int | None:
    """The smallest ``p_align`` of the file's LOAD segments; None for a file that is not an ELF
    executable or shared object (an archive, a script) or has no LOAD segment."""
    try:
        with open(path, "rb") as file:
            ident = file.read(64)
            if len(ident) < 52 or ident[:4] != _ELF_MAGIC or ident[4] not in (1, 2) or ident[5] not in (1, 2):
                return None
            wide, order = ident[4] == 2, "<" if ident[5] == 1 else ">"
            if wide:
                phoff, = struct.unpack_from(order + "Q", ident, 32)
                phentsize, phnum = struct.unpack_from(order + "HH", ident, 54)
            else:
                phoff, = struct.unpack_from(order + "I", ident, 28)
                phentsize, phnum = struct.unpack_from(order + "HH", ident, 42)
            file.seek(phoff)
            table = file.read(phentsize * phnum)
    except OSError:
        return None
    aligns = []
    for index in range(phnum):
        entry = table[index * phentsize:(index + 1) * phentsize]
        if len(entry) < (56 if wide else 32):
            return None
        kind, = struct.unpack_from(order + "I", entry, 0)
        if kind == _PT_LOAD:
            aligns.append(struct.unpack_from(order + ("Q" if wide else "I"), entry, 48 if wide else 28)[0])
    return min(aligns) if aligns else None


def check_page_alignment(paths: Iterable[Path], page_size: int) -> None:
    """A :class:`BuildError` (exit 7) naming the first of ``paths`` whose LOAD segments are
    aligned to less than ``page_size``; files without LOAD segments (archives) are not checked."""
    for path in paths:
        alignment = load_alignment(path)
        if alignment is not None and alignment < page_size:
            raise BuildError(
                f"{path}: LOAD segments aligned to {alignment} bytes, below {page_size} "
                f"({page_size // 1024} KB pages, which Google Play requires of 64-bit native code)",
                hint=f"link with -Wl,-z,max-page-size={page_size}; an NDK whose linker ignores it cannot make "
                     "this library for Play",
            )
