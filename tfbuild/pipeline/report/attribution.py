"""Whose bytes are they: each symbol of an artifact given to a kernel file and op, or to the
framework, protobuf or other code.

Two facts from the tree do it, both from the kernel index that the build itself used
(:mod:`tfbuild.tree.kernel_index`):

- an archive member is named after the ``.cc`` it was compiled from (``relu_op.o``), so every
  byte of a member belongs to that file; a file that registers CPU kernels, or any other source
  of a kernel directory (explicit instantiations, helpers), is a kernel file, and the other
  sources of the tree are framework (``*.pb``/``*.pb_text`` objects are protobuf);
- a kernel's code is named after its class: ``tensorflow::ReluOp<Eigen::ThreadPoolDevice,
  float>::Compute(...)``, ``vtable for tensorflow::ReluOp<...>``. The class of a demangled symbol,
  spelled as the tree's ``REGISTER_KERNEL_BUILDER`` spells it (``ReluOp<CPUDevice, float>``),
  names the op(s) registered with it, and the file when nothing else does (executables and
  shared libraries have no members). A class the tree registers under several ops (``Add`` and
  ``AddV2`` share one) is counted once, for those ops together.

Outside archives, kernel factories and ``tensorflow::functor::`` code are kernel code of no
known file. Symbols no rule names are protobuf (``google::protobuf``), framework
(``tensorflow::``) or other (the C++ library, Eigen, nsync, ...): in an executable, most of a
kernel's arithmetic is Eigen's, so there the kernel figures are a floor. The figures are those
of :mod:`.symbols`: code and initialised data, as ``nm`` sizes them; for an archive, each
member's own copies of inline and template code (a link keeps one of each).
"""

from __future__ import annotations

import functools
import os
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tfbuild.cpp.scan import is_kernel_source
from tfbuild.pipeline.report.symbols import DUPLICATE_MARK, Symbol, SymbolTable
from tfbuild.tree.facts import MAKEFILE_DIR
from tfbuild.tree.kernel_index import KernelIndex

GROUPS = ("kernels", "framework", "protobuf", "other")
UNKNOWN_FILE = "(kernel file not known)"
_SOURCE_SUFFIXES = (".cc", ".cpp", ".cxx", ".c")
_SKIPPED_DIRS = (f"{MAKEFILE_DIR}/gen",)  # the Makefile build's output


@dataclass(frozen=True)
class SourceMap:
    """What the tree says about the sources of an artifact's code."""

    kernel_ops: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Kernel file -> the ops it registers CPU kernels for."""
    sources_by_stem: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """``relu_op`` -> the tree's source files of that stem (an object file's name)."""
    classes: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Normalised kernel class (:func:`normalize_class`) -> its registrations' (op, file)."""
    bases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Class template name (``BinaryOp``) -> the normalised classes of that template."""

    @property
    def knows_tree(self) -> bool:
        return bool(self.sources_by_stem)

    def is_kernel(self, path: str) -> bool:
        """A kernel file: one that registers CPU kernels, or another source of a kernel
        directory (explicit instantiations such as ``strided_slice_op_inst_2.cc``, helpers)."""
        return path in self.kernel_ops or is_kernel_source(path)


def source_map(index: KernelIndex | None, root: Path | None) -> SourceMap:
    """The :class:`SourceMap` of the tree at ``root`` with kernel index ``index`` (both None: a
    build without a tree, whose symbols are grouped by name alone)."""
    if index is None or root is None:
        return SourceMap()
    ops: dict[str, set[str]] = defaultdict(set)
    classes: dict[str, set[tuple[str, str]]] = defaultdict(set)
    bases: dict[str, set[str]] = defaultdict(set)
    for registration in index.registrations:
        if registration.device.upper().removeprefix("DEVICE_") != "CPU":
            continue
        ops[registration.file].add(registration.op)
        key = normalize_class(registration.kernel_class)
        classes[key].add((registration.op, registration.file))
        bases[template_name(key)].add(key)
    stems: dict[str, set[str]] = defaultdict(set)
    for path in (*_tree_sources(root), *ops):
        stems[PurePosixPath(path).stem].add(path)
    return SourceMap(
        kernel_ops={file: tuple(sorted(found)) for file, found in ops.items()},
        sources_by_stem={stem: tuple(sorted(paths)) for stem, paths in stems.items()},
        classes={key: tuple(sorted(pairs)) for key, pairs in classes.items()},
        bases={name: tuple(sorted(keys)) for name, keys in bases.items()},
    )


def _tree_sources(root: Path) -> list[str]:
    """The tree's C and C++ sources under ``tensorflow/`` (with the Makefile's downloaded
    dependencies), repository-relative."""
    found: list[str] = []
    top = root / "tensorflow"
    for directory, subdirs, files in os.walk(top):
        relative = Path(directory).relative_to(root).as_posix()
        subdirs[:] = [
            d for d in subdirs if not d.startswith((".", "bazel-")) and f"{relative}/{d}" not in _SKIPPED_DIRS
        ]
        found.extend(f"{relative}/{name}" for name in files if name.endswith(_SOURCE_SUFFIXES))
    return found


@dataclass(frozen=True)
class FileBytes:
    """A kernel file's bytes; ``ops`` those of its ops whose kernel classes still have code."""

    file: str
    bytes: int
    ops: tuple[str, ...]


@dataclass(frozen=True)
class OpBytes:
    """The bytes of the kernel classes registered for ``ops`` (one op, or the ops sharing a
    class), and the files they are in."""

    ops: tuple[str, ...]
    bytes: int
    files: tuple[str, ...]

    @property
    def label(self) -> str:
        return " + ".join(self.ops)


@dataclass(frozen=True)
class Attribution:
    """An artifact's symbol bytes by group, kernel file and op (largest first)."""

    tool: str
    object_kind: str
    symbol_bytes: int
    groups: Mapping[str, int]
    files: tuple[FileBytes, ...]
    ops: tuple[OpBytes, ...]
    empty_kernel_files: int = 0
    """Archive members compiled from kernel files that hold no code or data at all."""
    notes: tuple[str, ...] = ()
    sections: Mapping[str, int] = field(default_factory=dict)
    """Bytes by output section (``.text``, ``.rela.dyn``, ...), largest first: known only from a
    linker map (:mod:`.linker_map`); empty for what ``nm`` read."""

    @property
    def op_bytes(self) -> int:
        return sum(op.bytes for op in self.ops)


def attribute(table: SymbolTable, sources: SourceMap, *, artifact: str) -> Attribution:
    """Give every symbol of ``table`` (the artifact named ``artifact``) to a group, and those
    of kernel code to their file and ops."""
    by_member: dict[str | None, list[Symbol]] = defaultdict(list)
    for symbol in table.symbols:
        by_member[symbol.member].append(symbol)
    member_files = {member: member_source(member, by_member.get(member, []), sources) for member in table.members}
    library_group = _library_group(artifact)
    groups = dict.fromkeys(GROUPS, 0)
    files: dict[str, int] = defaultdict(int)
    file_ops: dict[str, set[str]] = defaultdict(set)
    ops: dict[tuple[str, ...], int] = defaultdict(int)
    op_files: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for symbol in table.symbols:
        source = member_files.get(symbol.member) if symbol.member is not None else None
        kernel_file = source if source is not None and sources.is_kernel(source) else None
        pairs = kernel_pairs(symbol.name, sources, within=kernel_file)
        if kernel_file is None and source is None:
            kernel_file = _file_of(symbol.name, pairs, sources)
        group = library_group or _group(symbol.name, source, kernel_file, pairs)
        groups[group] += symbol.size
        if group != "kernels":
            continue
        file = kernel_file or UNKNOWN_FILE
        files[file] += symbol.size
        if pairs:
            label = tuple(sorted({op for op, _ in pairs}))
            ops[label] += symbol.size
            op_files[label].update(f for _, f in pairs if kernel_file is None or f == kernel_file)
            file_ops[file].update(label)
    empty = sum(
        1 for member, file in member_files.items() if file and sources.is_kernel(file) and not by_member.get(member)
    )
    return Attribution(
        tool=table.tool,
        object_kind=table.kind.describe(),
        symbol_bytes=table.bytes,
        groups=groups,
        files=tuple(
            FileBytes(file, size, tuple(sorted(file_ops[file])))
            for file, size in sorted(files.items(), key=lambda item: (-item[1], item[0]))
        ),
        ops=tuple(
            OpBytes(label, size, tuple(sorted(op_files[label])))
            for label, size in sorted(ops.items(), key=lambda item: (-item[1], item[0]))
        ),
        empty_kernel_files=empty,
        notes=_notes(table, sources, member_files),
    )


def _library_group(artifact: str) -> str | None:
    """The group of every byte of a library that is all one thing (libprotobuf.a, nsync)."""
    name = artifact.lower()
    if "protobuf" in name:
        return "protobuf"
    if "nsync" in name:
        return "other"
    return None


def _group(name: str, source: str | None, kernel_file: str | None, pairs: tuple[tuple[str, str], ...]) -> str:
    if kernel_file is not None or pairs:
        return "kernels"
    if source is None and ("registrar__body__" in name or "tensorflow::functor::" in name.split("(", 1)[0]):
        return "kernels"  # a kernel factory, or a kernel's functor, whose file the name does not say
    if source is not None:
        return source_group(source)
    if "google::protobuf" in name:
        return "protobuf"
    if name.startswith(("tensorflow::", "TF_", "Tf")) or "tensorflow::" in name.split("(", 1)[0]:
        return "framework"
    return "other"


@functools.lru_cache(maxsize=4096)
def source_group(source: str) -> str:
    """The group of a source file that registers no kernels: generated protobuf code, protobuf,
    the Makefile's other downloaded dependencies, or TensorFlow's framework."""
    if PurePosixPath(source).stem.endswith((".pb", ".pb_text")) or "/protobuf/" in source:
        return "protobuf"
    return "framework" if source.startswith("tensorflow/") and "/downloads/" not in source else "other"


def member_source(member: str, symbols: list[Symbol], sources: SourceMap) -> str | None:
    """The tree's source file an archive member was compiled from, by its stem; among several
    of that stem (``no_op.cc`` is both a kernel and an op definition), the kernel file when
    the member holds kernel code."""
    stem = _object_stem(member)
    candidates = sources.sources_by_stem.get(stem, ())
    if len(candidates) <= 1:
        return candidates[0] if candidates else (f"{stem}.cc" if stem.endswith((".pb", ".pb_text")) else None)
    kernels = [path for path in candidates if sources.is_kernel(path)]
    holds_kernels = any(
        "OpKernel" in symbol.name or "registrar__body__" in symbol.name or kernel_pairs(symbol.name, sources)
        for symbol in symbols
    )
    preferred = kernels if holds_kernels and kernels else [path for path in candidates if path not in kernels]
    preferred = preferred or list(candidates)
    core = [path for path in preferred if path.startswith("tensorflow/core/")]
    return (core or preferred)[0]


def _object_stem(member: str) -> str:
    """``relu_op`` for ``relu_op.o``, ``relu_op.cc.o`` (CMake) or ``relu_op.pic.o`` (Bazel)."""
    name = PurePosixPath(member.split(DUPLICATE_MARK, 1)[0]).name
    for suffix in (".o", ".obj", ".pic", ".cc", ".cpp", ".c"):
        name = name.removesuffix(suffix)
    return name


def _file_of(name: str, pairs: tuple[tuple[str, str], ...], sources: SourceMap) -> str | None:
    """The kernel file of a symbol outside any archive member: the one file its class is
    registered in, or the file whose static initialiser it is (``_GLOBAL__sub_I_relu_op.cc``)."""
    files = {file for _, file in pairs}
    if len(files) == 1:
        return files.pop()
    initialiser = re.match(r"_GLOBAL__sub_I_(?P<file>.+?)(?:\.\w+)?$", name)
    if initialiser is not None:
        for path in sources.sources_by_stem.get(initialiser.group("file"), ()):
            if path in sources.kernel_ops:
                return path
    return None


def _notes(table: SymbolTable, sources: SourceMap, member_files: Mapping[str, str | None]) -> tuple[str, ...]:
    notes = []
    if not table.symbols and table.kind.format == "mach-o":
        notes.append("Mach-O symbols carry no sizes, so its bytes cannot be attributed by symbol")
    elif not table.symbols:
        notes.append("no symbols with sizes: the artifact is stripped or holds no code")
    if not sources.knows_tree:
        notes.append("no source tree to read: kernel files and ops are not named, symbols are grouped by name alone")
    unknown = sorted(member for member, file in member_files.items() if file is None)
    if unknown and sources.knows_tree:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        notes.append(f"{len(unknown)} archive member(s) match no source of the tree ({shown}): grouped by symbol name")
    return tuple(notes)


# --- kernel classes in demangled symbols --------------------------------------------------

_TYPE_SPELLINGS = tuple(
    (re.compile(pattern), canonical)
    for pattern, canonical in (
        (r"\bunsigned long long\b", "uint64"),
        (r"\bunsigned long\b", "uint64"),
        (r"\blong long\b", "int64"),
        (r"\blong\b", "int64"),
        (r"\bunsigned int\b", "uint32"),
        (r"\bunsigned short\b", "uint16"),
        (r"\bshort\b", "int16"),
        (r"\bunsigned char\b", "uint8"),
        (r"\bsigned char\b", "int8"),
        (r"\bint\b", "int32"),
        (r"\bstd::complex<float>", "complex64"),
        (r"\bstd::complex<double>", "complex128"),
        (r"\bstd::(?:__cxx11::)?basic_string<char,\s*std::char_traits<char>,\s*std::allocator<char>\s*>", "string"),
        (r"\bstd::string\b", "string"),
        (r"\bEigen::ThreadPoolDevice\b", "CPUDevice"),
        (r"\bEigen::GpuDevice\b", "GPUDevice"),
        (r"\bEigen::(?=half\b|bfloat16\b|Q)", ""),
        (r"(?<![\w:])(?:::)?tensorflow::", ""),
    )
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_QUANTIZED = re.compile(r"\bQ(U?)Int(8|16|32)\b")
_CLASS_PREFIXES = ("vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "construction vtable for ")
_FUNCTION_PREFIXES = (
    "guard variable for ", "non-virtual thunk to ", "virtual thunk to ", "covariant return thunk to ",
    "TLS init function for ", "TLS wrapper function for ",
)
_CLONE = re.compile(r"(?: \[clone [^\]]*\])+$")
_OPERATOR = re.compile(
    r"operator\s*(?:\(\)|\[\]|<=>|<<=|>>=|<<|>>|->\*|->|&&|\|\||\+\+|--|new\[\]|delete\[\]|new|delete|[-+*/%^&|~!=<>,]=?)"
)
_QUALIFIERS = (" const", " volatile", " &&", " &")
_OPEN, _CLOSE = "<([{", ">)]}"


@functools.lru_cache(maxsize=1 << 16)
def normalize_class(text: str) -> str:
    """A kernel class as both the tree's registrations and a demangler spell it, compared
    without spaces: ``tensorflow::ReluOp<Eigen::ThreadPoolDevice, long long>`` and
    ``ReluOp<CPUDevice, int64>`` are both ``ReluOp<CPUDevice,int64>``."""
    for pattern, canonical in _TYPE_SPELLINGS:
        text = pattern.sub(canonical, text)
    text = _QUANTIZED.sub(lambda m: f"q{m.group(1).lower()}int{m.group(2)}", text)
    return "".join(text.split())


def template_arity(normalized: str) -> int:
    """How many arguments the outermost template of a normalised class takes (0: not a template)."""
    start = normalized.find("<")
    if start < 0:
        return 0
    depth, count = 0, 1
    for char in normalized[start:]:
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char == "," and depth == 1:
            count += 1
    return count


def template_name(normalized: str) -> str:
    """``BinaryOp`` of ``BinaryOp<CPUDevice,functor::add<float>>``."""
    return normalized.split("<", 1)[0].rsplit("::", 1)[-1]


def kernel_pairs(name: str, sources: SourceMap, *, within: str | None = None) -> tuple[tuple[str, str], ...]:
    """The (op, file) registrations of the kernel class a demangled symbol belongs to, if any.

    The class is matched exactly (after :func:`normalize_class`), else by its template among the
    tree's classes of that template (those in ``within``, the symbol's file, when known), keeping
    the ones that agree with it longest (``BinaryOp<CPUDevice,functor::add<int64>>`` against
    ``functor::add<float>`` rather than ``functor::sub<float>``): a dtype spelt differently must
    not lose the op."""
    if sources.bases.keys().isdisjoint(_IDENTIFIER.findall(name)):
        return ()  # names no kernel class template: most symbols, decided without parsing
    owners = symbol_owners(name)
    for owner in owners:
        found = sources.classes.get(normalize_class(owner))
        if found:
            return found
    for owner in owners:
        key = normalize_class(owner)
        arity = template_arity(key)  # numeric_op.h's BinaryOp<T> is not cwise's BinaryOp<Device, Functor>
        candidates = tuple(c for c in sources.bases.get(template_name(key), ()) if template_arity(c) == arity)
        if within is not None:
            candidates = tuple(c for c in candidates if any(file == within for _, file in sources.classes[c]))
        if candidates:
            best = max(_common_prefix(key, candidate) for candidate in candidates)
            closest = [candidate for candidate in candidates if _common_prefix(key, candidate) == best]
            return tuple(sorted({pair for candidate in closest for pair in sources.classes[candidate]}))
    return ()


def symbol_owners(name: str) -> list[str]:
    """The classes a demangled symbol is a member of, innermost first: ``tensorflow::A<int>::B``
    and ``tensorflow::A<int>`` for ``tensorflow::A<int>::B::run(int) const``, the class itself
    for ``vtable for ...``. Empty for a free function or a name that cannot be read."""
    text = name
    is_class = False
    for prefix in (*_CLASS_PREFIXES, *_FUNCTION_PREFIXES):
        if text.startswith(prefix):
            text, is_class = text[len(prefix):], prefix in _CLASS_PREFIXES
            break
    text = _OPERATOR.sub("operator_", _CLONE.sub("", text.split("-in-", 1)[0] if is_class else text))
    if not is_class:
        while text.endswith(_QUALIFIERS):
            text = text[: text.rfind(" ")]
        if text.endswith(")"):
            start = _matching_open(text)
            if start is None:
                return []
            text = text[:start]
        text = _after_return_type(text)
    parts = _split_scopes(text)
    if parts is None:
        return []
    if not is_class:
        parts = parts[:-1]
    return ["::".join(parts[:end]) for end in range(len(parts), 0, -1)]


def _matching_open(text: str) -> int | None:
    """Index of the ``(`` that opens the parameter list ending ``text``."""
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        if text[index] == ")":
            depth += 1
        elif text[index] == "(":
            depth -= 1
            if depth == 0:
                return index
    return None


def _after_return_type(text: str) -> str:
    """``ns::f<int>`` of ``void ns::f<int>``: what follows the last space outside brackets."""
    depth, cut = 0, 0
    for index, char in enumerate(text):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char == " " and depth == 0:
            cut = index + 1
    return text[cut:]


def _split_scopes(text: str) -> list[str] | None:
    """``a<b::c>::d`` -> ``['a<b::c>', 'd']``; None when the brackets do not balance."""
    parts, depth, start, index = [], 0, 0, 0
    while index < len(text):
        char = text[index]
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and text.startswith("::", index):
            parts.append(text[start:index])
            start = index + 2
            index += 1
        index += 1
    if depth != 0:
        return None
    parts.append(text[start:])
    return [part for part in parts if part]


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    return next((index for index, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
