"""Where the bytes of a linked shared library come from, read from the linker's map.

The size report attributes an archive by its members' symbols (:mod:`.attribution`), but an app
ships the JNI library, not the archive, and a size profile strips that library at link time, so
``nm`` finds nothing in it. The map lld writes (``-Wl,-Map=FILE``) says, for every input section
the link kept, which object or archive member it came from and how many bytes it takes in which
output section, whether the output is stripped or not. From it this module gives the library's
bytes to the same groups as an archive's (kernel files and their ops, framework, protobuf,
other), plus two that only a link has: the C++ runtime linked in statically (libc++, libc++abi,
libunwind) and what the linker makes itself (dynamic relocations, the dynamic symbol table and
hash tables, ``.eh_frame_hdr``, the GOT and PLT). It also totals the bytes of each output section,
which is what says why a shared library is larger than a static program of the same code: the
relative relocations of position-independent code (``.rela.dyn``) that a static link resolves.

lld's map is a table with the columns VMA, LMA, Size, Align (hexadecimal but the last) and then,
indented by how deep the row is, an output section (``.text``), an input section
(``lib.a(member.o):(.text._ZN...)``) or a symbol; only the first two are read here. Sections that
occupy no bytes of the file (``.bss``, ``.tbss``) are left out.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.pipeline.report.attribution import (
    UNKNOWN_FILE,
    Attribution,
    FileBytes,
    OpBytes,
    SourceMap,
    member_source,
    source_group,
)
from tfbuild.pipeline.report.symbols import Symbol

CXX_RUNTIME = "c++ runtime"
LINKER_MADE = "linker-made"
MAP_GROUPS = (CXX_RUNTIME, LINKER_MADE)
"""The groups a linked library has beside :data:`~.attribution.GROUPS`."""
_ROW = re.compile(r"^\s*[0-9a-fA-F]+\s+[0-9a-fA-F]+\s+(?P<size>[0-9a-fA-F]+)\s+\d+ (?P<indent>\s*)(?P<text>\S.*)$")
_INPUT = re.compile(r"^(?P<file>.*?):\((?P<section>[^()]*)\)$")
_ARCHIVE_MEMBER = re.compile(r"^(?P<archive>.*\.a)\((?P<member>[^()]*)\)$")
_NO_FILE_BYTES = (".bss", ".tbss")
_CXX_RUNTIME_ARCHIVES = ("libc++_static.a", "libc++abi.a", "libunwind.a", "libc++.a", "libstdc++.a", "libsupc++.a")
_TENSORFLOW_ARCHIVES = ("libtensorflow-core.a", "libtensorflow_core.a", "libtensorflow-lite.a")
_INPUT_INDENT = 8
"""How much deeper than an output section lld indents the input sections inside it."""


@dataclass(frozen=True)
class Piece:
    """One input section the link kept: ``file`` is the object or archive as the linker named it,
    ``member`` the archive member (None for a plain object and for what the linker made)."""

    file: str
    member: str | None
    section: str
    output_section: str
    size: int


@dataclass(frozen=True)
class LinkMap:
    """A linker map's output sections (bytes each) and the input sections inside them."""

    sections: dict[str, int]
    pieces: tuple[Piece, ...]


class LinkMapError(ValueError):
    """The file is not a map lld wrote."""


def read_link_map(path: Path) -> LinkMap:
    """The output and input sections of lld's map at ``path``; a file of another shape (GNU ld's
    map, anything else) is a :class:`LinkMapError`, an unreadable one an OSError."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    if not lines or lines[0].split()[:4] != ["VMA", "LMA", "Size", "Align"]:
        raise LinkMapError(f"{path}: not a map lld wrote (its first line is not VMA LMA Size Align ...)")
    sections: dict[str, int] = {}
    pieces: list[Piece] = []
    output: str | None = None
    for line in lines[1:]:
        row = _ROW.match(line)
        if row is None:
            continue
        depth, text, size = len(row.group("indent")), row.group("text"), int(row.group("size"), 16)
        if depth == 0:
            output = None if text.startswith(_NO_FILE_BYTES) else text
            if output is not None:
                sections[output] = sections.get(output, 0) + size
        elif depth == _INPUT_INDENT and output is not None and size:
            found = _INPUT.match(text)
            if found is None:
                continue  # a linker-script assignment such as ". = ALIGN(8)"
            file = found.group("file")
            member = _ARCHIVE_MEMBER.match(file)
            pieces.append(Piece(
                file=member.group("archive") if member else file,
                member=member.group("member") if member else None,
                section=found.group("section"), output_section=output, size=size,
            ))
    return LinkMap(sections, tuple(pieces))


def attribute_link_map(link_map: LinkMap, sources: SourceMap, *, tool: str) -> Attribution:
    """Give every byte the link kept to a group, and kernel code to its file and the ops that
    file registers (a kernel file's bytes are its ops' together: a map names sections, not
    classes)."""
    by_member: dict[tuple[str, str], list[Piece]] = defaultdict(list)
    for piece in link_map.pieces:
        if piece.member is not None:
            by_member[(piece.file, piece.member)].append(piece)
    sources_of = {
        key: member_source(key[1], [_pseudo_symbol(piece) for piece in pieces], sources)
        for key, pieces in by_member.items() if _archive_name(key[0]) in _TENSORFLOW_ARCHIVES
    }
    groups: dict[str, int] = defaultdict(int)
    files: dict[str, int] = defaultdict(int)
    for piece in link_map.pieces:
        source = sources_of.get((piece.file, piece.member)) if piece.member is not None else None
        group = _piece_group(piece, source, sources)
        groups[group] += piece.size
        if group == "kernels":
            files[source or UNKNOWN_FILE] += piece.size
    ops: dict[tuple[str, ...], int] = defaultdict(int)
    op_files: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for file, size in files.items():
        label = sources.kernel_ops.get(file, ())
        if label:
            ops[label] += size
            op_files[label].add(file)
    return Attribution(
        tool=tool,
        object_kind="shared library, by its linker map",
        symbol_bytes=sum(piece.size for piece in link_map.pieces),
        groups=dict(groups),
        files=tuple(
            FileBytes(file, size, sources.kernel_ops.get(file, ()))
            for file, size in sorted(files.items(), key=lambda item: (-item[1], item[0]))
        ),
        ops=tuple(
            OpBytes(label, size, tuple(sorted(op_files[label])))
            for label, size in sorted(ops.items(), key=lambda item: (-item[1], item[0]))
        ),
        sections=dict(sorted(link_map.sections.items(), key=lambda item: (-item[1], item[0]))),
    )


def _piece_group(piece: Piece, source: str | None, sources: SourceMap) -> str:
    archive = _archive_name(piece.file)
    if piece.file == "<internal>":
        return LINKER_MADE
    if archive in _CXX_RUNTIME_ARCHIVES:
        return CXX_RUNTIME
    if "protobuf" in archive:
        return "protobuf"
    if archive in _TENSORFLOW_ARCHIVES:
        if source is None:
            stem = PurePosixPath(piece.member or "").stem
            return "protobuf" if stem.endswith((".pb", ".pb_text")) else "framework"
        return "kernels" if sources.is_kernel(source) else source_group(source)
    return "other"  # nsync, bionic's startup objects, compiler-rt, the JNI glue


def _archive_name(file: str) -> str:
    return PurePosixPath(file).name


def _pseudo_symbol(piece: Piece) -> Symbol:
    """An input section as :func:`~.attribution.member_source` reads symbols: its name after the
    section kind (``.text._ZN10tensorflow8OpKernel...``), mangled, which still says OpKernel."""
    return Symbol(piece.member, "t", piece.size, piece.section)
