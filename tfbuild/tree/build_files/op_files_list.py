"""Adding kernel sources to the contrib Makefile's ``tf_op_files.txt``, and reading it.

The Makefile compiles exactly the files this list names (``TF_CC_SRCS += $(shell cat
tf_op_files.txt)``): one repository-relative path per line, nothing else. A kernel file that is
not listed is not in ``libtensorflow-core.a``, and the device says "No OpKernel was registered".

Order policy (the real file is only partly sorted: TF 1.12's is mostly reverse-alphabetical with
later additions appended): if the listed paths are in ascending order, each new path is inserted
where it sorts among its neighbours, so the file stays sorted; otherwise the new paths are
appended after the last listed path, in ascending order among themselves, which is how the file
grew upstream. Either way every existing line, the line ending (LF or CRLF) and whether the file
ends with a newline are kept, so the diff shows only the added lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tfbuild.errors import SourceTreeError

MAKEFILE_DIR = "tensorflow/contrib/makefile"
"""The contrib Makefile's directory in a tree (TF 1.x to 2.0), named here, the lowest module
that names a path in it (:mod:`tfbuild.tree.facts` hands it on)."""
OP_FILES_LIST = f"{MAKEFILE_DIR}/tf_op_files.txt"

# What ``$(shell cat ...)`` can carry through make as one word: no spaces, quotes or '$'.
_SAFE_PATH = re.compile(r"[A-Za-z0-9_.+\-]+(/[A-Za-z0-9_.+\-]+)*")


@dataclass(frozen=True)
class OpFilesEdit:
    """The list's new text, the paths added to it, and how they were placed."""

    text: str
    added: tuple[str, ...]
    placement: str  # "sorted" (inserted in order) or "appended"

    @property
    def changed(self) -> bool:
        return bool(self.added)


def listed_paths(text: str) -> tuple[str, ...]:
    """The paths the list names, in file order (blank lines skipped, surrounding spaces ignored)."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def add_op_files(text: str, paths: Iterable[str], *, file_name: str = OP_FILES_LIST) -> OpFilesEdit:
    """Return ``text`` with every path of ``paths`` that it does not list yet added once.

    Raises :class:`SourceTreeError` (naming ``file_name``) for a path make could not carry as one
    word, or one that is absolute or climbs out of the tree.
    """
    wanted = sorted({_checked(path, file_name) for path in paths})
    already = set(listed_paths(text))
    new = [path for path in wanted if path not in already]
    if not new:
        return OpFilesEdit(text=text, added=(), placement="unchanged")

    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline) if text else [""]
    ends_with_newline = lines[-1] == "" if text else True
    if lines[-1] == "":
        lines.pop()

    entries = [line.strip() for line in lines if line.strip()]
    if entries == sorted(entries):
        for path in new:
            lines.insert(_sorted_position(lines, path), path)
        placement = "sorted"
    else:
        at = _after_last_entry(lines)
        lines[at:at] = new
        placement = "appended"

    new_text = newline.join(lines) + (newline if ends_with_newline else "")
    return OpFilesEdit(text=new_text, added=tuple(new), placement=placement)


def _checked(path: str, file_name: str) -> str:
    if not _SAFE_PATH.fullmatch(path) or ".." in path.split("/"):
        raise SourceTreeError(
            f"{file_name}: cannot list {path!r}: the Makefile needs a repository-relative path "
            "without spaces, quotes or '..'",
            hint="rename the kernel file, or add it to the Makefile by hand",
        )
    return path


def _sorted_position(lines: list[str], path: str) -> int:
    """Index before the first listed path that sorts after ``path`` (else after the last one)."""
    for index, line in enumerate(lines):
        if line.strip() and line.strip() > path:
            return index
    return _after_last_entry(lines)


def _after_last_entry(lines: list[str]) -> int:
    """Index just after the last non-blank line, so trailing blank lines stay at the end."""
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].strip():
            return index + 1
    return 0
