"""What a static archive (``lib*.a``) needs from the libraries linked after it: the symbols its
ELF members leave undefined, and whether each reference is strong or weak.

The difference decides whether a shared library links at all: a strong undefined reference that
no later library defines is a link error (``--no-undefined``), a weak one resolves to null and the
code that made it checks for that at run time. Android NDK r14 and newer build libc++abi with a
weak reference to ``__cxa_thread_atexit_impl`` (bionic has it from API 23 only, and libc++abi
falls back to its own implementation below that); an NDK whose libc++abi references it strongly
cannot link, for API 21, a library with ``thread_local`` objects that have destructors.

The members' symbol tables are read with pyelftools; the ``ar`` container around them is simple
enough (a global header, then 60-byte member headers) to walk here.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

AR_MAGIC = b"!<arch>\n"
"""How an ``ar`` archive starts."""
AR_HEADER_SIZE = 60
"""The size of the header before each member of an ``ar`` archive."""
_BINDINGS = {"STB_GLOBAL": "strong", "STB_WEAK": "weak"}


def undefined_references(archive: Path) -> dict[str, str]:
    """Each symbol the archive's members reference and none of them defines, with ``strong``
    or ``weak`` (strong when any member references it strongly). Raises OSError when the file
    cannot be read and ValueError when it is not an ``ar`` archive."""
    referenced: dict[str, str] = {}
    defined: set[str] = set()
    for member in _members(archive.read_bytes(), archive):
        try:
            elf = ELFFile(io.BytesIO(member))
        except ELFError:
            continue  # the symbol index or a non-ELF member
        for section in elf.iter_sections():
            if not isinstance(section, SymbolTableSection):
                continue
            for symbol in section.iter_symbols():
                binding = _BINDINGS.get(symbol["st_info"]["bind"])
                if binding is None or not symbol.name:
                    continue
                if symbol["st_shndx"] == "SHN_UNDEF":
                    if referenced.get(symbol.name) != "strong":
                        referenced[symbol.name] = binding
                else:
                    defined.add(symbol.name)
    return {name: binding for name, binding in referenced.items() if name not in defined}


def _members(data: bytes, archive: Path) -> Iterator[bytes]:
    """The contents of the archive's members, in order (the symbol index and GNU's long-name
    table included: they are not ELF and the caller skips them)."""
    if not data.startswith(AR_MAGIC):
        raise ValueError(f"{archive}: not an ar archive")
    offset = len(AR_MAGIC)
    while offset + AR_HEADER_SIZE <= len(data):
        header = data[offset:offset + AR_HEADER_SIZE]
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            raise ValueError(f"{archive}: damaged ar member header at byte {offset}") from None
        start = offset + AR_HEADER_SIZE
        yield data[start:start + size]
        offset = start + size + (size % 2)
