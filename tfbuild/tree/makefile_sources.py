"""How many objects the contrib Makefile compiles for a target, and how many are already there.

A cold TF 1.x Makefile build runs for an hour and more on a small machine; a rebuild with the
same flags takes minutes. A dry run says which it is before the user starts, so it counts, from
the Makefile's own lists, what ``make`` would compile: ``TF_CC_SRCS`` (its ``$(wildcard ...)``
lists less the exclusions, plus ``tf_op_files.txt`` as the build's edits leave it), the protos
(``PROTO_SRCS``, ``PBT_CC_SRCS``) and the benchmark's sources; and which of those objects exist
under the target's ``OBJDIR``. Variables and conditionals are read by
:mod:`tfbuild.tree.contrib_makefile`; the functions the lists use (``wildcard``, ``filter-out``,
``sort``, ``shell cat``) are evaluated here, against the tree. A function it cannot evaluate
(``$(shell find ...)`` over the downloads) counts nothing and makes the count a lower bound.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.tree.contrib_makefile import makefile_variables
from tfbuild.tree.facts import MAKEFILE_DIR

_LISTS = ("TF_CC_SRCS", "PROTO_SRCS", "PBT_CC_SRCS", "BENCHMARK_SRCS", "OBJDIR")


@dataclass(frozen=True)
class ObjectCount:
    """What the Makefile's lists compile for one target, and what is already built."""

    sources: tuple[str, ...]
    """Repository paths of the sources (``.proto`` for the protos), each once."""
    objects: tuple[str, ...]
    """The objects they become, relative to the tree's root."""
    built: int
    """How many of ``objects`` exist."""
    complete: bool
    """False when a list used a function this reader cannot evaluate: ``sources`` is a lower bound."""


def count_objects(root: Path, makefile_text: str, given: Mapping[str, str], *,
                  op_files_text: str | None = None) -> ObjectCount:
    """The objects ``make -f Makefile`` with ``given`` on its command line compiles in ``root``;
    ``op_files_text`` is ``tf_op_files.txt`` as the build will have it (None: as it is)."""
    values = makefile_variables(makefile_text, {"MAKEFILE_DIR": MAKEFILE_DIR, **given}, _LISTS)
    files = {f"{MAKEFILE_DIR}/tf_op_files.txt": op_files_text} if op_files_text is not None else {}
    evaluator = _Evaluator(Path(root), files)
    sources: dict[str, None] = {}
    for name in ("TF_CC_SRCS", "PBT_CC_SRCS", "BENCHMARK_SRCS", "PROTO_SRCS"):
        sources.update((word, None) for word in evaluator.expand(values[name]).split())
    objdir = evaluator.expand(values["OBJDIR"]).strip()
    objects = tuple(f"{objdir}{_object(source)}" for source in sources)
    built = sum(1 for path in objects if (Path(root) / path).is_file())
    return ObjectCount(tuple(sources), objects, built, evaluator.complete and bool(objdir))


def _object(source: str) -> str:
    path = PurePosixPath(source)
    stem = source[: -len(path.suffix)] if path.suffix else source
    return f"{stem}.pb.o" if path.suffix == ".proto" else f"{stem}.o"


class _Evaluator:
    """make's functions the Makefile's source lists use, evaluated against the tree."""

    def __init__(self, root: Path, files: Mapping[str, str]) -> None:
        self.root = root
        self.files = files
        self.complete = True

    def expand(self, text: str) -> str:
        out, at = [], 0
        while True:
            start = text.find("$(", at)
            if start < 0:
                out.append(text[at:])
                return "".join(out)
            end = _closing(text, start + 2)
            if end < 0:
                out.append(text[at:])
                return "".join(out)
            out.append(text[at:start])
            out.append(self._call(text[start + 2: end]))
            at = end + 1

    def _call(self, content: str) -> str:
        name, _, arguments = content.partition(" ")
        arguments = self.expand(arguments)
        if name == "wildcard":
            return " ".join(self._glob(pattern) for pattern in arguments.split())
        if name == "sort":
            return " ".join(sorted(set(arguments.split())))
        if name == "filter-out":
            patterns, _, words = arguments.partition(",")
            return " ".join(word for word in words.split()
                            if not any(_matches(pattern, word) for pattern in patterns.split()))
        if name == "shell" and arguments.split()[:1] == ["cat"]:
            return " ".join(self._read(path) for path in arguments.split()[1:])
        self.complete = False  # $(shell find ...), an unknown variable: counted as nothing
        return ""

    def _glob(self, pattern: str) -> str:
        return " ".join(sorted(path.relative_to(self.root).as_posix() for path in self.root.glob(pattern)
                               if path.is_file()))

    def _read(self, path: str) -> str:
        if path in self.files:
            return self.files[path]
        file = self.root / path
        return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else ""


def _closing(text: str, at: int) -> int:
    """The index of the ``)`` that closes the ``$(`` whose content starts at ``at``; -1 if none."""
    depth = 1
    for index in range(at, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _matches(pattern: str, word: str) -> bool:
    """make's ``%`` pattern (one wildcard), or the word itself."""
    return fnmatch.fnmatchcase(word, pattern.replace("*", "[*]").replace("%", "*", 1)) if "%" in pattern \
        else word == pattern
