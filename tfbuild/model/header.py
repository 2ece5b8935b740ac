"""ops_to_register.h: the header that makes a TensorFlow build keep only the kernels a model uses.

With ``-DSELECTIVE_REGISTRATION`` TensorFlow includes ``ops_to_register.h`` and registers an op
only when ``SHOULD_REGISTER_OP(name)`` holds, and a kernel only when
``SHOULD_REGISTER_OP_KERNEL("<class>")`` holds (on TF 2.x also ``SHOULD_REGISTER_OP(op)``);
kernels that are not registered are never referenced, so the linker drops them.

By default the header is the one TensorFlow's own ``selective_registration_header_lib`` writes
for the same models, line for line apart from tfbuild's leading ``//`` block (models, digests,
versions), so users can trust it the way they trust TF's tool. This module adds what that tool
lacks: every input format, name validation, an atomic write, op granularity, and a parser that
reads headers back for later steps (kernel-file resolution, preflight).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tfbuild import __version__
from tfbuild.errors import ConfigError, InputFileError
from tfbuild.fileio import atomic_write_text, read_input_bytes
from tfbuild.model.names import is_valid_kernel_class, is_valid_op_name

if TYPE_CHECKING:
    from tfbuild.model.analysis import Analysis

HEADER_NAME = "ops_to_register.h"
"""TensorFlow's registration header includes the selection by this exact name."""

DEFAULT_OPS = "NoOp:NoOp,_Recv:RecvOp,_Send:SendOp"
"""TF's default ``--default_ops``: ops every graph executor needs whatever the model holds."""

GRANULARITIES = ("kernel", "op")


@dataclass(frozen=True)
class HeaderOptions:
    """How the header selects.

    ``default_ops`` is TF's ``--default_ops``: comma-separated ``Op:KernelClass`` pairs always
    kept, ``""`` for none, or ``all`` to register everything (three ``true`` defines).

    ``granularity="kernel"`` (TF's behaviour) lists the exact kernel classes the installed
    TensorFlow's registry named. That is only right when the tree being built registers its
    kernels under the same class strings, and class strings change between TF versions (TF 2.21
    names MatMul's CPU kernel ``BatchMatMulOp<CPUDevice, float, float, float, true>``, TF 1.12
    ``MatMulOp<CPUDevice, float, false >``): a kernel-granular header from one version silently
    drops kernels in another. ``granularity="op"`` is for such trees: ``SHOULD_REGISTER_OP``
    lists the ops and ``SHOULD_REGISTER_OP_KERNEL(clz)`` accepts every class.
    ``register_kernel::Name`` (TF since 0.12) also checks ``SHOULD_REGISTER_OP(op)``, at run
    time, so that registers every kernel (all dtypes) of every needed op and nothing else:
    never wrong, but the code of every kernel class in the compiled files stays in the binary,
    since only the class check is made while compiling. Where the classes match, use kernel
    granularity with a header made by the matching TF version instead.
    """

    default_ops: str = DEFAULT_OPS
    granularity: str = "kernel"

    def __post_init__(self) -> None:
        if self.granularity not in GRANULARITIES:
            raise ConfigError(
                f"unknown header granularity {self.granularity!r}",
                hint=f"use one of: {', '.join(GRANULARITIES)}",
            )
        self.default_pairs()  # validates

    @property
    def registers_everything(self) -> bool:
        return self.default_ops == "all"

    def default_pairs(self) -> tuple[tuple[str, str], ...]:
        """The default ops parsed as TF parses them (``op, kernel = s.split(':')``), except that
        an empty kernel class (``NoOp:``) is refused: TensorFlow's tool takes it as "the op and
        none of its kernels", which for the ops default_ops names means the on-device failure
        the option exists to prevent, and is far likelier a typo than a wish."""
        if not self.default_ops or self.registers_everything:
            return ()
        pairs = []
        for entry in self.default_ops.split(","):
            parts = entry.split(":")
            bad_kernel = not is_valid_kernel_class(parts[-1])
            if len(parts) != 2 or not is_valid_op_name(parts[0]) or bad_kernel:
                empty = len(parts) == 2 and not parts[1]
                raise ConfigError(
                    f"default op {entry!r} is not OP:KERNEL_CLASS"
                    + (": it names no kernel class, so it would keep none of the op's kernels" if empty else ""),
                    hint=f"e.g. --default-ops {DEFAULT_OPS!r}, '' for none, or 'all'",
                )
            pairs.append((parts[0], parts[1]))
        return tuple(pairs)


@dataclass(frozen=True)
class HeaderContents:
    """What an ops_to_register.h selects, read back from the file.

    ``kernel_classes`` are in file order without repeats; ``op_granularity`` means the header
    lists ops but accepts every kernel class.
    """

    ops: frozenset[str]
    kernel_classes: tuple[str, ...]
    registers_everything: bool
    op_granularity: bool

    def summary(self) -> str:
        """What the header registers, in a few words: ``4 ops, 5 kernel classes``."""
        if self.registers_everything:
            return "every op and kernel (no selection)"
        ops = f"{len(self.ops)} op{'s' if len(self.ops) != 1 else ''}"
        if self.op_granularity:
            return f"{ops}, every kernel class of each"
        count = len(self.kernel_classes)
        return f"{ops}, {count} kernel class{'es' if count != 1 else ''}"


def header_ops_and_kernels(
    analysis: Analysis, options: HeaderOptions = HeaderOptions()
) -> list[tuple[str, str | None]]:
    """TF's ``get_ops_and_kernels`` result: the models' pairs plus the default ops, sorted."""
    pairs = set(analysis.ops_and_kernels())
    pairs.update(options.default_pairs())
    from tfbuild.model.analysis import pair_sort_key

    return sorted(pairs, key=pair_sort_key)


def render_header(analysis: Analysis, options: HeaderOptions = HeaderOptions()) -> str:
    """The text of ops_to_register.h for ``analysis`` (see the module and HeaderOptions docs)."""
    ops, kernel_classes = _selection(analysis, options)
    from tfbuild.templating import render

    return render(
        "ops_to_register.h.j2",
        comment_lines=_comment_lines(analysis, options),
        registers_everything=options.registers_everything,
        op_granularity=options.granularity == "op",
        kernel_classes=kernel_classes,
        ops=ops,
        register_gradients="SymbolicGradient" in ops,
    )


def header_contents(analysis: Analysis, options: HeaderOptions = HeaderOptions()) -> HeaderContents:
    """What the header :func:`render_header` writes for ``analysis`` selects: the value
    :func:`parse_header` reads back from that file, for steps that run in the same process as
    the rendering and so need not read it back."""
    ops, kernel_classes = _selection(analysis, options)
    if options.registers_everything:
        return HeaderContents(frozenset(), (), registers_everything=True, op_granularity=False)
    op_granularity = options.granularity == "op"
    listed = () if op_granularity else tuple(dict.fromkeys(kernel_classes))
    return HeaderContents(frozenset(ops), listed, registers_everything=False, op_granularity=op_granularity)


def _selection(analysis: Analysis, options: HeaderOptions) -> tuple[list[str], list[str]]:
    """The header's ops (sorted) and kernel classes (in TF's order, one per op using them),
    checked to be safe to write and to select something."""
    pairs = header_ops_and_kernels(analysis, options)
    for op, kernel_class in pairs:
        if not is_valid_op_name(op):
            raise InputFileError(
                f"op name {op!r} is not a valid TensorFlow op name", hint="check the model"
            )
        if kernel_class and not is_valid_kernel_class(kernel_class):
            raise InputFileError(f"kernel class {kernel_class!r} of {op} contains a newline or NUL")
    kernel_classes = [k for _, k in pairs if k is not None]
    ops = sorted({op for op, _ in pairs})
    selects = ops if options.granularity == "op" else kernel_classes
    if not options.registers_everything and not selects:
        # TF's tool prints "Error reading graph!" here; an empty C array would not compile.
        models = ", ".join(str(m.path) for m in analysis.models) or "(no models)"
        if analysis.models and all(m.needs_no_kernels for m in analysis.models):
            raise InputFileError(
                f"{models}: TFLite builtin ops only, which need no TensorFlow kernels, so the header would "
                "register nothing",
                hint="the TFLite runtime alone runs such a model; no TensorFlow build is needed",
            )
        raise InputFileError(
            f"{models}: no TensorFlow op with a kernel found, so the header would register nothing",
            hint="a TFLite model without Flex ops needs no TensorFlow kernels",
        )
    return ops, kernel_classes


def write_header(analysis: Analysis, path: Path, options: HeaderOptions = HeaderOptions()) -> Path:
    """Render and write the header atomically; nothing is written if rendering fails."""
    return atomic_write_text(Path(path), render_header(analysis, options))


def write_ops_list(analysis: Analysis, path: Path) -> Path:
    """Write TF's JSON ops-list format (``[["Op", "KernelClass"], ...]``; null for no kernel),
    which TF's tool reads with ``--proto_fileformat=ops_list`` and tfbuild reads as a model."""
    text = json.dumps([[op, kernel] for op, kernel in analysis.ops_and_kernels()], indent=1)
    return atomic_write_text(Path(path), text + "\n")


def _comment_lines(analysis: Analysis, options: HeaderOptions) -> list[str]:
    """Provenance for the ``//`` block: what decides the selection, and nothing of where the
    files lie (every kernel includes the header, so a model's directory in it would make two CI
    workers' checkouts miss each other's caches). Names are JSON-quoted: one holding a newline or
    a trailing backslash (which would continue the comment onto the next line) stays inert."""
    tensorflow = analysis.tensorflow_version or "unknown"
    lines = [
        f"This file was generated by tfbuild {__version__} with TensorFlow {tensorflow} "
        f"kernel names (granularity: {options.granularity}).",
        f"Default ops: {json.dumps(options.default_ops)}",
        "Models (file name, sha256):",
    ]
    lines += [
        f"  {json.dumps(Path(m.path).name)} {m.sha256}" + (f" scope {json.dumps(m.scope)}" if m.scope else "")
        for m in analysis.models
    ]
    return lines


# --- reading headers back -----------------------------------------------------------------

_STRING_LITERAL = r'"(?:[^"\\\n]|\\.)*"'
_KERNEL_ARRAY = re.compile(r"kNecessaryOpKernelClasses\[\]\s*=\s*\{(?P<body>.*?)\};", re.S)
_OP_TEST = re.compile(r"isequal\(\s*op\s*,\s*(?P<literal>" + _STRING_LITERAL + r")\s*\)")
_DEFINE = re.compile(
    r"^\s*#\s*define\s+(?P<name>SHOULD_REGISTER_OP(?:_KERNEL|_GRADIENT)?)\b"
    r"(?:\([^)]*\))?\s*(?P<value>.*)$",
    re.M,
)
_REQUIRED_DEFINES = {"SHOULD_REGISTER_OP", "SHOULD_REGISTER_OP_KERNEL", "SHOULD_REGISTER_OP_GRADIENT"}
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def parse_header(path: Path) -> HeaderContents:
    """Read an ops_to_register.h written by tfbuild or by TF's print_selective_registration_header
    (later steps resolve kernel files and check trees from it)."""
    path = Path(path)
    if not os.path.lexists(path):
        raise InputFileError(f"{path}: no such header", hint="run `tfbuild header` first")
    try:
        text = read_input_bytes(path).decode("utf-8")  # bounded; a FIFO or device refused
    except UnicodeDecodeError as error:
        raise InputFileError(f"{path}: cannot read the header ({error})") from error
    body = _strip_comments(text)
    defines = {m.group("name"): m.group("value").strip() for m in _DEFINE.finditer(body)}
    if set(defines) != _REQUIRED_DEFINES:
        raise InputFileError(
            f"{path}: not an ops_to_register.h (it must define SHOULD_REGISTER_OP, "
            "SHOULD_REGISTER_OP_KERNEL and SHOULD_REGISTER_OP_GRADIENT)",
            hint="generate it with `tfbuild header`",
        )
    registers_everything = defines["SHOULD_REGISTER_OP"] == "true"
    ops = frozenset(_c_string_value(m.group("literal")) for m in _OP_TEST.finditer(body))
    kernel_classes: list[str] = []
    array = _KERNEL_ARRAY.search(body)
    if array:
        for literal in re.findall(_STRING_LITERAL, array.group("body")):
            value = _c_string_value(literal)
            if value not in kernel_classes:
                kernel_classes.append(value)
    op_granularity = not registers_everything and defines["SHOULD_REGISTER_OP_KERNEL"] == "true"
    return HeaderContents(ops, tuple(kernel_classes), registers_everything, op_granularity)


def _strip_comments(text: str) -> str:
    """Drop ``//`` comment lines (as written by both tools) so names in them are not read."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def _c_string_value(literal: str) -> str:
    """The text of a C string literal such as the ``c_string`` filter writes (octal escapes
    encode UTF-8 bytes)."""
    out = bytearray()
    inner = literal[1:-1]
    i = 0
    while i < len(inner):
        char = inner[i]
        if char != "\\":
            out += char.encode("utf-8")
            i += 1
            continue
        nxt = inner[i + 1]
        octal = re.match(r"[0-7]{1,3}", inner[i + 1 :])
        if octal:
            out.append(int(octal.group(), 8) & 0xFF)
            i += 1 + len(octal.group())
        elif nxt == "x":
            hexa = re.match(r"[0-9a-fA-F]+", inner[i + 2 :])
            out.append(int(hexa.group(), 16) & 0xFF if hexa else ord("x"))
            i += 2 + (len(hexa.group()) if hexa else 0)
        else:
            out += _SIMPLE_ESCAPES.get(nxt, nxt).encode("utf-8")
            i += 2
    return out.decode("utf-8", errors="replace")
