"""The contrib Makefile's variables, read the way make reads them, for one set of command-line
variables: what ``CXXFLAGS``, ``INCLUDES``, ``LDFLAGS`` and ``LIBS`` hold for ``TARGET=ANDROID``
``ANDROID_ARCH=arm64-v8a`` in *this* tree, so a build that replaces them on make's command line
(variables given there win over the Makefile's ``:=`` and suppress its ``+=``) starts from the
tree's own flags instead of a copy kept in tfbuild.

Only what TensorFlow's Makefile uses outside its rules is read: ``NAME := / = / += / ?= value``
with backslash continuations, and ``ifeq``/``ifneq``/``ifdef``/``ifndef``/``else``/``endif``.
References to variables are expanded where the reader knows the value; ``kept`` names, and
names it does not know (``$(MAKEFILE_DIR)``, set from ``$(shell ...)``), stay as ``$(NAME)``
references, which make expands when it uses the value. A condition the reader cannot decide
(it involves ``$(shell ...)``, ``$(origin ...)`` or an unknown variable) takes neither branch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_ASSIGNMENT = re.compile(r"^(?:override\s+)?([A-Za-z0-9_.-]+)\s*(::=|:=|\+=|\?=|=)\s*(.*)$", re.DOTALL)
_CONDITIONAL = re.compile(r"^(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$")
_REFERENCE = re.compile(r"\$(?:\(([^()$]*)\)|\{([^{}$]*)\})")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")
_RULE = re.compile(r"^[^=#]*:(?!=)")


class _Unresolved(Exception):
    """A condition refers to something the reader cannot evaluate."""


@dataclass
class _Variable:
    value: str
    recursive: bool


@dataclass
class _Branch:
    taking: bool  # this branch's lines are read
    taken: bool  # a branch of this conditional has been taken (else-branches stay closed)
    enclosing: bool  # the lines around the conditional are read


def makefile_variables(
    text: str, given: Mapping[str, str], names: Iterable[str], *, kept: Iterable[str] = ()
) -> dict[str, str]:
    """The values of ``names`` after reading ``text`` with ``given`` on make's command line,
    expanded, with ``kept`` names (and unknown ones) left as ``$(NAME)``."""
    reader = _Reader(given, frozenset(kept))
    reader.read(text)
    return {name: reader.value(name) for name in names}


class _Reader:
    def __init__(self, given: Mapping[str, str], kept: frozenset[str]) -> None:
        self.given = dict(given)
        self.kept = kept
        self.variables: dict[str, _Variable] = {}

    def read(self, text: str) -> None:
        branches: list[_Branch] = []
        in_recipe = False
        for line in _logical_lines(text):
            if line.startswith("\t") and in_recipe:
                continue
            stripped = _strip_comment(line).strip()
            if not stripped:
                continue
            in_recipe = False
            reading = not branches or branches[-1].taking
            if self._conditional(stripped, branches, reading):
                continue
            if not reading:
                continue
            match = _ASSIGNMENT.match(stripped)
            if match:
                self._assign(match.group(1), match.group(2), match.group(3).strip())
            elif not line.startswith(("\t", " ")) and _RULE.match(stripped):
                in_recipe = True

    def _conditional(self, line: str, branches: list[_Branch], reading: bool) -> bool:
        """Handle a conditional directive; False if ``line`` is none."""
        word = line.split(None, 1)[0]
        if word == "endif":
            branches.pop()
            return True
        if word == "else":
            branch = branches[-1]
            rest = line[len("else"):].strip()
            if rest and _CONDITIONAL.match(rest):
                decided = self._decide(rest) if branch.enclosing and not branch.taken else False
                branch.taking = bool(decided)
                branch.taken = branch.taken or bool(decided) or decided is None
            else:
                branch.taking = branch.enclosing and not branch.taken
                branch.taken = True
            return True
        if _CONDITIONAL.match(line):
            decided = self._decide(line) if reading else False
            # An undecidable condition takes neither branch.
            branches.append(_Branch(taking=bool(decided), taken=decided is not False, enclosing=reading))
            return True
        return False

    def _decide(self, line: str) -> bool | None:
        match = _CONDITIONAL.match(line)
        assert match is not None
        kind, argument = match.group(1), match.group(2).strip()
        try:
            if kind in ("ifdef", "ifndef"):
                name = self._expand(argument, strict=True).strip()
                defined = name in self.given or name in self.kept or bool(
                    name in self.variables and self.variables[name].value
                )
                return defined if kind == "ifdef" else not defined
            left, right = _split_pair(argument)
            same = self._expand(left, strict=True).strip() == self._expand(right, strict=True).strip()
        except _Unresolved:
            return None
        return same if kind == "ifeq" else not same

    def _assign(self, name: str, operator: str, value: str) -> None:
        if name in self.given or name in self.kept:
            return  # a command-line variable wins over the Makefile's assignments
        current = self.variables.get(name)
        if operator == "?=":
            if current is None:
                self.variables[name] = _Variable(value, recursive=True)
        elif operator == "+=":
            if current is None:
                self.variables[name] = _Variable(value, recursive=True)
            else:
                added = value if current.recursive else self._expand(value)
                current.value = f"{current.value} {added}".strip() if added else current.value
        elif operator == "=":
            self.variables[name] = _Variable(value, recursive=True)
        else:
            self.variables[name] = _Variable(self._expand(value), recursive=False)

    def value(self, name: str) -> str:
        if name in self.kept:
            return f"$({name})"
        if name in self.given:
            return self.given[name]
        variable = self.variables.get(name)
        if variable is None:
            return ""
        return " ".join(self._expand(variable.value).split())

    def _expand(self, text: str, *, strict: bool = False, depth: int = 0) -> str:
        if depth > 50:
            raise ValueError(f"recursive make variable in {text!r}")

        def replace(match: re.Match[str]) -> str:
            inner = match.group(1) if match.group(1) is not None else match.group(2)
            if not _PLAIN_NAME.match(inner) or inner in self.kept:
                if strict:
                    raise _Unresolved(inner)
                return match.group(0)
            if inner in self.given:
                return self.given[inner]
            variable = self.variables.get(inner)
            if variable is None:
                if strict:
                    raise _Unresolved(inner)
                return match.group(0)
            return self._expand(variable.value, strict=strict, depth=depth + 1)

        # $$ is a literal dollar sign; single-character automatic variables ($@, $<) stay.
        parts = text.split("$$")
        return "$$".join(_REFERENCE.sub(replace, part) for part in parts)


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined by a space, as make joins them."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        part = raw.lstrip() if pending else raw
        if raw.endswith("\\") and not raw.endswith("\\\\"):
            pending += part[:-1].rstrip() + " "
            continue
        lines.append(pending + part)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _strip_comment(line: str) -> str:
    at = line.find("#")
    while at > 0 and line[at - 1] == "\\":
        at = line.find("#", at + 1)
    return line if at < 0 else line[:at]


def _split_pair(argument: str) -> tuple[str, str]:
    """``(a,b)`` or ``"a" "b"``: the two operands of ``ifeq``, split at the top-level comma."""
    if argument.startswith("("):
        depth = 0
        for index, char in enumerate(argument):
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    inner = argument[1:index]
                    break
        else:
            raise _Unresolved(argument)
        depth = 0
        for index, char in enumerate(inner):
            if char in "({":
                depth += 1
            elif char in ")}":
                depth -= 1
            elif char == "," and depth == 0:
                return inner[:index], inner[index + 1:]
        raise _Unresolved(argument)
    quoted = re.match(r"""^(["'])(.*?)\1\s+(["'])(.*?)\3""", argument)
    if quoted is None:
        raise _Unresolved(argument)
    return quoted.group(2), quoted.group(4)
