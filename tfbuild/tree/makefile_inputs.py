"""The contrib Makefile's inputs, checked before the first build step.

TensorFlow's contrib Makefile compiles what its lists name: ``TF_CC_SRCS += $(shell cat
$(MAKEFILE_DIR)/tf_op_files.txt)``, ``PROTO_SRCS := $(shell cat .../tf_proto_files.txt)``,
``PBT_CC_SRCS := $(shell cat .../tf_pb_text_files.txt)``. A listed file that is not in the tree
(a proto directory a partial checkout or a cleanup left out) is found by make only when it
reaches it, after an hour or more of compiling: "No rule to make target
.../gen/proto/tensorflow/contrib/boosted_trees/proto/...". :func:`missing_makefile_inputs`
reads the lists the tree's own Makefile reads and names every listed input that is missing, so
the build (and its dry run) stops before it starts, naming all of them at once.

A generated file in a list (``x.pb.cc``, ``x.pb_text.cc`` and their headers) is made from its
``x.proto``: that is the input checked. A source entry stands for its object: the Makefile maps
``x.cc`` and ``x.c`` alike to ``x.o`` (``$(patsubst %.cc,%.o,$(patsubst %.c,%.o,...))``), which its
pattern rules make from ``x.cc`` or ``x.c``, whichever is there; r1.9 and 1.15 list
``sparse_reshape_op.c`` and ``initializable_lookup_table.c``, whose ``.cc`` is what compiles.
Wildcards (``$(wildcard tensorflow/core/*.cc)``) are not inputs that can be missing: make expands them to what is there.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import SourceTreeError
from tfbuild.fileio import read_input_bytes
from tfbuild.tree.facts import MAKEFILE_DIR

_LIST_READ = re.compile(r"\$\(shell\s+cat\s+(?:\$\(MAKEFILE_DIR\)|\$\{MAKEFILE_DIR\}|" + re.escape(MAKEFILE_DIR)
                        + r")/([A-Za-z0-9_.+-]+)\s*\)")
_GENERATED = re.compile(r"^(.*)\.(?:pb|pb_text|pb_text-impl)\.(?:cc|h)$")
SHOWN = 8
"""How many missing inputs the error names one by one before it counts the rest."""


@dataclass(frozen=True)
class MissingInput:
    path: str
    """Repository path of what is missing: a file, or the topmost missing directory above several."""
    lists: tuple[str, ...]
    """The lists (file names in the Makefile's directory) that name it or what is under it."""
    count: int = 1
    """How many listed inputs are missing under ``path``."""

    def describe(self) -> str:
        where = ", ".join(self.lists)
        if self.count > 1:
            return f"{self.path}/ ({self.count} inputs listed in {where})"
        return f"{self.path} (listed in {where})"


def lists_read(makefile_text: str) -> tuple[str, ...]:
    """The list files (names in the Makefile's directory) the Makefile reads with ``$(shell cat ...)``,
    in the order it reads them; commented-out lines do not count."""
    found: dict[str, None] = {}
    for line in makefile_text.splitlines():
        code = line.split("#", 1)[0]
        found.update((name, None) for name in _LIST_READ.findall(code))
    return tuple(found)


def input_of(entry: str) -> str:
    """The input behind a list entry: a generated protobuf source's ``.proto``, else the entry."""
    generated = _GENERATED.match(entry)
    return f"{generated.group(1)}.proto" if generated else entry


def missing_makefile_inputs(root: Path) -> list[MissingInput]:
    """Every input the tree's contrib Makefile compiles from its lists that is not in the tree
    (a missing list file included), grouped under the topmost missing directory; [] when all
    are there or the tree has no contrib Makefile."""
    root = Path(root)
    makefile = root / MAKEFILE_DIR / "Makefile"
    if not makefile.is_file():
        return []
    text = read_input_bytes(makefile, error=SourceTreeError).decode("utf-8", "surrogateescape")
    missing: dict[str, list[str]] = {}
    for name in lists_read(text):
        listing = root / MAKEFILE_DIR / name
        if not listing.is_file():
            missing.setdefault(f"{MAKEFILE_DIR}/{name}", []).append("the Makefile")
            continue
        entries = read_input_bytes(listing, error=SourceTreeError).decode("utf-8", "surrogateescape").split()
        for entry in dict.fromkeys(input_of(entry) for entry in entries):
            if not _inside(entry) or not any((root / source).exists() for source in _sources_of(entry)):
                missing.setdefault(entry, []).append(name)
    return _grouped(root, missing)


def _sources_of(entry: str) -> tuple[str, ...]:
    """The files make may build a listed entry's object from: ``x.cc`` or ``x.c`` for either."""
    stem, dot, suffix = entry.rpartition(".")
    if dot and suffix in ("cc", "c"):
        return (f"{stem}.cc", f"{stem}.c")
    return (entry,)


def _inside(path: str) -> bool:
    return not path.startswith("/") and not posixpath.normpath(path).startswith("../")


def _grouped(root: Path, missing: dict[str, list[str]]) -> list[MissingInput]:
    """``missing`` (path -> the lists naming it), paths under one missing directory as one entry."""
    groups: dict[str, tuple[list[str], int]] = {}
    for path, lists in missing.items():
        key = _topmost_missing_directory(root, path) if _inside(path) else path
        names, count = groups.get(key, ([], 0))
        groups[key] = ([*names, *(name for name in lists if name not in names)], count + 1)
    return [MissingInput(path, tuple(names), count) for path, (names, count) in groups.items()]


def _topmost_missing_directory(root: Path, path: str) -> str:
    """``path``'s topmost ancestor directory that is missing from the tree, or ``path`` itself
    when its directory is there."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        directory = "/".join(parts[:depth])
        if not (root / directory).exists():
            return directory
    return path


def require_makefile_inputs(root: Path) -> None:
    """Raise :class:`SourceTreeError` (exit 4) naming every missing input of the contrib
    Makefile (:func:`missing_makefile_inputs`) in one line."""
    missing = missing_makefile_inputs(root)
    if not missing:
        return
    total = sum(item.count for item in missing)
    shown = "; ".join(item.describe() for item in missing[:SHOWN])
    more = f"; and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    raise SourceTreeError(
        f"{Path(root) / MAKEFILE_DIR}: {total} input(s) the contrib Makefile compiles are missing from the tree: "
        f"{shown}{more}",
        hint="check out the whole tree, or remove those entries from the lists; then run again",
    )

