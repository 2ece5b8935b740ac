"""The page size an ELF file's LOAD segments are aligned to, and the check every Android build
makes of what it linked.

Google Play takes 64-bit native code only when its LOAD segments are aligned to 16 KB (apps that
target Android 15 and newer, since 2025-11-01): a device with 16 KB pages cannot map a library
linked for 4 KB ones. NDK r27 and older link with 4 KB unless told; tfbuild tells every link
(``NdkClangBuild.page_size``), and reads the result back here, from the program headers
themselves, so a toolchain that ignored the flag is caught on the build machine, not at upload.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tfbuild.errors import BuildError

ELF_MAGIC = b"\x7fELF"
"""How an ELF file starts."""


def load_alignment(path: Path) -> int | None:
    """The smallest ``p_align`` of the file's LOAD segments (read with pyelftools); None for a
    file that is not an ELF executable or shared object (an archive, a script) or has no LOAD
    segment."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as file:
            if file.read(len(ELF_MAGIC)) != ELF_MAGIC:
                return None
            file.seek(0)
            aligns = [int(segment["p_align"]) for segment in ELFFile(file).iter_segments()
                      if segment["p_type"] == "PT_LOAD"]
    except (OSError, ELFError):
        return None
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
