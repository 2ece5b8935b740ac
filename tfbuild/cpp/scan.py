"""Reading one file of a TensorFlow tree: its CPU kernel registrations (or op definitions) and its includes.

A file is read the way the compiler would see it in a mobile CPU build, with only the macros
that matter: the file's own ``#define``s, those of the headers it includes from the kernels
directories and ``tensorflow/core/framework/register_types.h`` (so ``REGISTER6`` and
``TF_CALL_*`` mean what *this tree* says), and builtin fallbacks for trees that lack them.
Only invocations that can reach ``REGISTER_KERNEL_BUILDER`` are expanded (:mod:`cpp_macros`);
everything else is skipped unread. Regions a CPU build compiles out (``GOOGLE_CUDA``, SYCL,
MKL) are dropped; other conditions become the registration's ``guard`` (:mod:`cpp_conditions`).

The same reading serves op definition files (``TreeReader(root, reads="ops")``): there each
``REGISTER_OP`` statement is expanded whole, builder chain included, and read by
:mod:`tfbuild.cpp.op_def`, so an op in a comment, in a string or under ``#if GOOGLE_CUDA`` does
not count, and one behind a local wrapper macro (``REDUCTION_OP("Min")``) does.

Kernels are kept for the devices a CPU build runs them on: ``DEVICE_CPU`` and, since TF 1.15,
``DEVICE_DEFAULT`` (NoOp, Identity, Placeholder...: TensorFlow's lookup falls back to them on any
device that registers no kernel of its own for the node).

Real trees hold macros nobody foresaw: a registration this module cannot read is kept as an
:class:`UnreadRegistration` (file, line, reason, and the op name when the raw text shows one), so
the commands can name it instead of calling the op kernel-less; never an exception.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tfbuild.cpp import KERNELS_DIR
from tfbuild.cpp.conditions import DESKTOP_ONLY, KNOWN_UNDEFINED, ConditionStack, evaluate
from tfbuild.cpp.kernel_def import parse_builder
from tfbuild.cpp.macros import (
    Expander,
    Macro,
    MacroError,
    Token,
    join_arguments,
    lex_invocation,
    lex_statement,
    mask_literals,
    parse_define,
    spell,
    strip_comments,
    unclosed_parentheses,
)
from tfbuild.cpp.op_def import OP_TERMINALS, BuilderCall, parse_op_builders
from tfbuild.cpp.string_constants import merge, read_string_constants

TERMINALS = frozenset({"REGISTER_KERNEL_BUILDER", "REGISTER_SYSTEM_KERNEL_BUILDER"})
SCAN_ROOTS = (KERNELS_DIR, "tensorflow/contrib")
MACRO_HEADERS = frozenset({
    "tensorflow/core/framework/register_types.h",
    "tensorflow/core/framework/register_types_traits.h",
})
FALLBACK_MACROS = Path(__file__).resolve().parent / "tf_fallback_macros.h"

_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_DIRECTIVE = re.compile(r"([A-Za-z_]+)\s*(.*)", re.DOTALL)
_DEFINE_NAME = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_INCLUDE = re.compile(r'"([^"]+)"')
_NAME_LITERAL = re.compile(r'\bName\s*\(\s*"([A-Za-z_>][A-Za-z0-9_>]*)"')
CPU_DEVICES = frozenset({"CPU", "DEFAULT"})
"""The devices whose kernels a CPU build has: its own, and DEVICE_DEFAULT's (TF 1.15 on)."""


@dataclass(frozen=True)
class FoundRegistration:
    """A CPU kernel registration as read from a file (see kernel_index.KernelRegistration)."""

    op: str
    kernel_class: str
    device: str
    type_constraints: tuple[tuple[str, str], ...]
    file: str
    line: int
    guard: str | None


@dataclass(frozen=True)
class FoundOp:
    """An op definition as read from a file: ``REGISTER_OP("name")`` and its builder calls;
    ``guard`` as for kernel registrations."""

    op: str
    calls: tuple[BuilderCall, ...]
    file: str
    line: int
    guard: str | None


@dataclass(frozen=True)
class UnreadRegistration:
    """A ``REGISTER_KERNEL_BUILDER`` the scanner could not read. ``op`` is the op name when the
    raw text shows one (``Name("NoOp")``), else None: it may register a kernel of any op."""

    file: str
    line: int
    reason: str
    op: str | None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass
class FileScan:
    registrations: list[FoundRegistration] = field(default_factory=list)
    ops: list[FoundOp] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unread: list[UnreadRegistration] = field(default_factory=list)


Reads = Literal["kernels", "ops"]
_TERMINALS: dict[str, frozenset[str]] = {"kernels": TERMINALS, "ops": OP_TERMINALS}


def is_kernel_source(relative: str) -> bool:
    """Whether a repository path is a CPU kernel source the index reads: ``.cc`` files under
    ``tensorflow/core/kernels`` or a contrib ``kernels`` directory, without GPU/SYCL-only
    files (``*.cu.cc``, ``*_gpu*``) or tests."""
    if not relative.endswith(".cc"):
        return False
    if not (relative.startswith(KERNELS_DIR + "/")
            or (relative.startswith("tensorflow/contrib/") and "/kernels/" in relative)):
        return False
    name = relative.rsplit("/", 1)[-1]
    if ".cu." in name or "_gpu" in name or "_sycl" in name or "_rocm" in name:
        return False
    return not (name.endswith(("_test.cc", "_main.cc"))
                or "_testutil" in name or "test_util" in name or "_testlib" in name)


def follows_include(relative: str) -> bool:
    """Headers whose macros a kernel file gets: kernels directories and register_types*.h."""
    return relative.endswith(".h") and (
        relative.startswith(KERNELS_DIR + "/") or relative in MACRO_HEADERS
        or (relative.startswith("tensorflow/contrib/") and "/kernels/" in relative)
    )


class MacroTable:
    """The macros in force at a point of a file, and which of them can lead to a kernel
    registration (``relevant``): the terminals, macros whose bodies use a relevant name, and
    macros such as ``TF_CALL_float`` that call a macro passed to them. Relevance only grows;
    over-approximating it costs a few needless expansions, never a missed registration."""

    def __init__(self, terminals: frozenset[str] = TERMINALS) -> None:
        self.terminals = terminals
        self.macros: dict[str, Macro] = {}
        self.relevant: set[str] = set(terminals)
        self._mentioned_by: dict[str, frozenset[str]] = {}

    def copy(self) -> MacroTable:
        clone = MacroTable(self.terminals)
        clone.macros = dict(self.macros)
        clone.relevant = set(self.relevant)
        clone._mentioned_by = dict(self._mentioned_by)
        return clone

    def define(self, macro: Macro, *, tentative: bool = False) -> None:
        """Add ``macro``; a tentative definition (under an undecided ``#if``) does not replace
        one the tree already made, so the first branch of ``#if X / #else`` wins."""
        if macro.name in self.terminals:
            return
        existing = self.macros.get(macro.name)
        if tentative and existing is not None and existing.origin != "<builtin>":
            return
        self.macros[macro.name] = macro
        mentions = macro.mentions()
        for name in mentions:
            self._mentioned_by[name] = self._mentioned_by.get(name, frozenset()) | {macro.name}
        if macro.name not in self.relevant and (mentions & self.relevant or macro.calls_a_parameter()):
            self._mark_relevant(macro.name)

    def undefine(self, name: str) -> None:
        self.macros.pop(name, None)

    def _mark_relevant(self, name: str) -> None:
        todo = [name]
        while todo:
            current = todo.pop()
            if current in self.relevant:
                continue
            self.relevant.add(current)
            todo.extend(m for m in self._mentioned_by.get(current, ()) if m in self.macros)


class TreeReader:
    """Reads kernel files (or, with ``reads="ops"``, op definition files) of one tree, parsing
    each included header once."""

    def __init__(self, root: Path, *, reads: Reads = "kernels", defines: Iterable[str] = ()):
        """``defines``: macros defined as ``1`` before every file, as ``-DNAME`` on a compiler's
        command line would (``__ANDROID_TYPES_SLIM__`` to see what a slim-typed build registers)."""
        self.root = Path(root)
        self.reads = reads
        self._headers: dict[str, tuple[tuple[Macro, ...], tuple[str, ...]]] = {}
        self._constants: dict[str, dict[str, str]] = {}
        self._in_progress: set[str] = set()
        self.base = MacroTable(_TERMINALS[reads])
        fallback = _Scanner(self, "<builtin>", self.base, collect=False)
        fallback.run(FALLBACK_MACROS.read_text(encoding="utf-8"))
        for name in defines:
            self.base.define(Macro(name, None, False, (Token("1", "num", False),), "<command line>"))

    def scan(self, relative: str) -> FileScan:
        """Registrations (or op definitions) and includes of the source ``relative``."""
        text = (self.root / relative).read_text(encoding="utf-8", errors="replace")
        scanner = _Scanner(self, relative, self.base.copy(), collect=True)
        scanner.run(text)
        return scanner.result

    def header(self, relative: str) -> tuple[tuple[Macro, ...], tuple[str, ...]]:
        """The macros a header defines (its own, in order) and the files it includes."""
        if relative in self._headers:
            return self._headers[relative]
        if relative in self._in_progress:
            return (), ()
        self._in_progress.add(relative)
        try:
            text = (self.root / relative).read_text(encoding="utf-8", errors="replace")
            scanner = _Scanner(self, relative, self.base.copy(), collect=False)
            scanner.run(text)
            own = tuple(m for m in scanner.table.macros.values() if m.origin == relative)
            found = (own, tuple(scanner.result.includes))
        except OSError:
            found = ((), ())
        finally:
            self._in_progress.discard(relative)
        self._headers[relative] = found
        return found

    def string_constants(self, relative: str) -> dict[str, str]:
        """The string constants ``relative`` defines (see :mod:`tfbuild.cpp.string_constants`)."""
        if relative not in self._constants:
            try:
                text = (self.root / relative).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._constants[relative] = read_string_constants(text)
        return self._constants[relative]

    def resolve_include(self, including: str, target: str) -> str | None:
        """Repository path of ``#include "target"`` from ``including``, if the tree has it."""
        candidates = []
        if "/" in including:
            candidates.append(f"{including.rsplit('/', 1)[0]}/{target}")
        candidates.append(target)
        for candidate in candidates:
            normal = _normalize(candidate)
            if normal and (self.root / normal).is_file():
                return normal
        return None

    def apply_header(self, table: MacroTable, relative: str, applied: set[str]) -> None:
        """Define in ``table`` what including ``relative`` brings: its macros and, first, those
        of the headers it includes in turn."""
        if relative in applied:
            return
        applied.add(relative)
        macros, includes = self.header(relative)
        for included in includes:
            if follows_include(included):
                self.apply_header(table, included, applied)
        for macro in macros:
            table.define(macro)


def _normalize(path: str) -> str | None:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


class _Scanner:
    """One pass over one file: directives update the macro table and the ``#if`` nest; code
    between directives is searched for invocations of relevant macros."""

    def __init__(self, tree: TreeReader, relative: str, table: MacroTable, *, collect: bool):
        self.tree = tree
        self.relative = relative
        self.table = table
        self.collect = collect
        self.conditions = ConditionStack()
        self.result = FileScan()
        self._file_defines: frozenset[str] = frozenset()
        self._applied: set[str] = set()
        self._string_constants: dict[str, str] | None = None
        self._unclosed: frozenset[int] | None = None
        """The offsets of the code run's unclosed ``(`` (:func:`unclosed_parentheses`), once one
        macro call was found unterminated."""

    def run(self, text: str) -> None:
        text = strip_comments(text)
        self._file_defines = frozenset(_DEFINE_NAME.findall(text))
        # Macro calls are searched for in a copy whose literals are blanked (same offsets), so
        # REGISTER_KERNEL_BUILDER written inside a string is never taken for a call.
        masked = _logical_lines(mask_literals(text)) if self.collect else None
        run: list[tuple[int, str, str]] = []
        for number, line in _logical_lines(text):
            masked_line = next(masked)[1] if masked is not None else line
            stripped = line.lstrip()
            if stripped.startswith("#"):
                if run:
                    self._code(run)
                    run = []
                self._directive(stripped[1:].strip(), number)
            elif self.collect and self.conditions.active and stripped:
                run.append((number, line, masked_line))
        if run:
            self._code(run)

    # --- directives -------------------------------------------------------------------

    def _directive(self, text: str, number: int) -> None:
        match = _DIRECTIVE.match(text)
        if match is None:
            return
        keyword, rest = match.group(1), match.group(2).strip()
        if keyword in ("if", "ifdef", "ifndef"):
            self._open_conditional(keyword, rest)
        elif keyword == "elif":
            parent_active = self.conditions.parent_active
            self.conditions.branch(self._evaluate(rest) if parent_active else False, " ".join(rest.split()))
        elif keyword == "else":
            self.conditions.branch(True, None)
        elif keyword == "endif":
            self.conditions.pop()
        elif self.conditions.active:
            self._active_directive(keyword, rest, number)

    def _open_conditional(self, keyword: str, rest: str) -> None:
        """``#if``, ``#ifdef`` or ``#ifndef``."""
        if not self.conditions.active:
            self.conditions.push(False, "")
        elif keyword == "if":
            self.conditions.push(self._evaluate(rest), " ".join(rest.split()))
        else:
            name = _first_word(rest)
            known = self._is_defined(name)
            if keyword == "ifndef":
                self.conditions.push(None if known is None else not known, f"!defined({name})")
            else:
                self.conditions.push(known, f"defined({name})")

    def _active_directive(self, keyword: str, rest: str, number: int) -> None:
        """A directive other than a conditional, in code the build compiles."""
        if keyword == "define":
            macro = parse_define(rest, origin=self.relative, guard=self.conditions.guard)
            if macro is not None:
                self.table.define(macro, tentative=self.conditions.guard is not None)
            else:
                self.result.notes.append(f"{self.relative}:{number}: unreadable #define skipped")
        elif keyword == "undef" and self.conditions.guard is None:
            self.table.undefine(_first_word(rest))
        elif keyword == "include":
            self._include(rest)

    def _include(self, rest: str) -> None:
        quoted = _INCLUDE.match(rest)
        if quoted is None:
            return
        resolved = self.tree.resolve_include(self.relative, quoted.group(1))
        if resolved is None:
            return
        if resolved not in self.result.includes:
            self.result.includes.append(resolved)
        if follows_include(resolved):
            self.tree.apply_header(self.table, resolved, self._applied)

    def _is_defined(self, name: str) -> bool | None:
        if name in DESKTOP_ONLY:
            return False
        if name in self.table.macros:
            return True
        if name in KNOWN_UNDEFINED or name in self._file_defines:
            return False
        return None

    def _value_of(self, name: str) -> int | None:
        if name in DESKTOP_ONLY:
            return 0
        macro = self.table.macros.get(name)
        if macro is None and name in KNOWN_UNDEFINED:
            return 0
        if macro is not None:
            body = macro.body
            if macro.params is None and len(body) == 1 and body[0].kind == "num":
                return int(body[0].text) if body[0].text.isdigit() else None
            return None
        return 0 if name in self._file_defines else None

    def _evaluate(self, expression: str) -> bool | None:
        return evaluate(expression, self._is_defined, self._value_of)

    # --- code ---------------------------------------------------------------------------

    def _code(self, run: list[tuple[int, str, str]]) -> None:
        text = "\n".join(line for _, line, _ in run)
        starts = [0]
        for _, line, _ in run[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        resume = 0
        self._unclosed = None
        for match in _CALL.finditer("\n".join(masked for _, _, masked in run)):
            if match.start() < resume or match.group(1) not in self.table.relevant:
                continue
            number = run[bisect.bisect_right(starts, match.start()) - 1][0]
            resume = self._invocation(text, match.start(), number, match.end() - 1)

    def _invocation(self, text: str, start: int, number: int, paren: int) -> int:
        if self.tree.reads == "ops":
            return self._op_statement(text, start, number)
        # After the first unterminated call, the unclosed parentheses are known (one pass):
        # each later one is recognised at once, not lexed to the end of the text again.
        lexed = None if self._unclosed is not None and paren in self._unclosed else lex_invocation(text, start)
        if lexed is None and self._unclosed is None:
            self._unclosed = unclosed_parentheses(text)
        if lexed is None:
            self.result.notes.append(f"{self.relative}:{number}: unterminated macro call skipped")
            self._unread(number, "unterminated macro call", text[start:start + 400])
            return start + 1
        tokens, end = lexed
        guard = self.conditions.guard
        expander = Expander(self.table.macros, TERMINALS,
                            lambda name, args, commas, exp: self._register(name, args, commas, exp, number, guard))
        try:
            expander.expand(tokens)
        except (MacroError, RecursionError, IndexError, ValueError) as error:
            self.result.notes.append(f"{self.relative}:{number}: {error}; macro call skipped")
            self._unread(number, f"macro call not expanded ({error})", text[start:end])
        return end

    def _unread(self, number: int, reason: str, raw: str) -> None:
        named = _NAME_LITERAL.search(raw)
        self.result.unread.append(UnreadRegistration(self.relative, number, reason, named.group(1) if named else None))

    def _constants(self) -> dict[str, str]:
        """String constants the file can name ops with: its own, its includes' and theirs."""
        if self._string_constants is None:
            files = [self.relative, *self.result.includes]
            for included in self.result.includes:
                if follows_include(included):
                    files.extend(self.tree.header(included)[1])
            self._string_constants = merge(self.tree.string_constants(f) for f in dict.fromkeys(files))
        return self._string_constants

    def _op_statement(self, text: str, start: int, number: int) -> int:
        """A statement starting with an op-defining macro, expanded whole: the builder chain
        after ``REGISTER_OP(...)`` is part of the definition."""
        tokens, end = lex_statement(text, start)
        guard = self.conditions.guard
        expander = Expander(self.table.macros, frozenset(), _no_terminal)
        try:
            builders, notes = parse_op_builders(expander.expand(tokens))
        except (MacroError, RecursionError, IndexError, ValueError) as error:
            self.result.notes.append(f"{self.relative}:{number}: {error}; op definition skipped")
            return end
        self.result.notes.extend(f"{self.relative}:{number}: {note}" for note in notes)
        guards = self._guards(expander, guard)
        self.result.ops.extend(
            FoundOp(op=builder.op, calls=builder.calls, file=self.relative, line=number, guard=guards)
            for builder in builders
        )
        return end

    def _guards(self, expander: Expander, guard: str | None) -> str | None:
        """The condition a registration depends on: the ``#if`` around it and those around
        the file's own macro definitions it went through."""
        local: set[str] = set()
        for used in expander.used:
            macro = self.table.macros.get(used)
            if macro is not None and macro.origin == self.relative and macro.guard:
                local.add(macro.guard)
        guards = ([guard] if guard else []) + [g for g in sorted(local) if g != guard]
        return " && ".join(guards) if guards else None

    def _register(self, name: Token, args: list[list[Token]], commas: list[Token],
                  expander: Expander, number: int, guard: str | None) -> None:
        if len(args) < 2:
            self.result.notes.append(f"{self.relative}:{number}: {name.text} without a kernel class")
            self._unread(number, f"{name.text} without a kernel class", spell(args[0]) if args else "")
            return
        builder = expander.expand(args[0])
        kernel_class = spell(expander.expand(join_arguments(args, commas, 1)))
        parsed = parse_builder(builder, self._constants())
        if parsed is None:
            note = f"kernel {kernel_class!r}: op name is not a string literal or known constant ({spell(builder)[:80]})"
            self.result.notes.append(f"{self.relative}:{number}: {note}")
            if _names_cpu_device(builder):
                self._unread(number, note, spell(builder))
            return
        op, device, constraints = parsed
        if not device:
            self._unread(number, f"kernel {kernel_class!r} of {op}: no device read", spell(builder))
            return
        if device not in CPU_DEVICES:
            return
        self.result.registrations.append(FoundRegistration(
            op=op, kernel_class=kernel_class, device=device, type_constraints=constraints,
            file=self.relative, line=number, guard=self._guards(expander, guard),
        ))


def _names_cpu_device(builder: list[Token]) -> bool:
    """Whether an unreadable builder may be a CPU build's: it names DEVICE_CPU/DEFAULT, or no
    device a CPU build lacks (a GPU-only kernel with an odd op name is not worth a report)."""
    words = {t.text for t in builder if t.kind == "id"}
    if words & {"DEVICE_CPU", "DEVICE_DEFAULT"}:
        return True
    return not any(w.startswith("DEVICE_") for w in words)


def _no_terminal(name: Token, args: list[list[Token]], commas: list[Token], expander: Expander) -> None:
    """Op statements are expanded with no terminal macros; never called."""


_CONTINUATION = re.compile(r"\\[ \t\r]*\n")


def _first_word(text: str) -> str:
    words = text.split(maxsplit=1)
    return words[0] if words else ""


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each line after joining backslash continuations."""
    number = 1
    for line in _CONTINUATION.sub("\x01", text).split("\n"):
        joined = line.count("\x01")
        yield number, line.replace("\x01", "") if joined else line
        number += 1 + joined
