"""The ops a TensorFlow source tree defines: each op's definition and the files registering it.

Two questions need it. The compatibility check asks what the tree's runtime will accept of a
NodeDef (:mod:`tfbuild.tree.compat`); the Makefile build asks which op files hold an op's
``REGISTER_OP``, since it compiles only the op files ``tf_op_files.txt`` names
(:mod:`tfbuild.tree.needs`). Both are answered from one pass over the tree:

- every ``.cc`` file under an ``ops`` directory of ``tensorflow/core`` or ``tensorflow/contrib``
  (tests left out) is read through the C preprocessor scanner (:mod:`tfbuild.cpp.scan`), so an
  op in a comment, a string or under ``#if GOOGLE_CUDA`` does not count and one behind a wrapper
  macro does; ``.Attr(GetPaddingAttrString())`` helpers are looked up in the ``.cc`` beside
  each header the file includes;
- the definitions come from ``tensorflow/core/ops/ops.pbtxt`` when the tree has it (the golden
  ``OpList``, exact by construction), completed by the ops it leaves out (``_Arg``, contrib ops);
  from the builder specs otherwise.

Files or definitions the index could not read are listed in :attr:`OpDefIndex.skipped`. The
result is cached by commit under ``$TFBUILD_CACHE_DIR/op-defs`` (beside the kernel index), with
a digest of any uncommitted op files in the key.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tfbuild.cache import cache_dir, read_through
from tfbuild.cpp.macros import strip_comments
from tfbuild.cpp.scan import FoundOp, TreeReader
from tfbuild.errors import SourceTreeError
from tfbuild.tree.kernel_index import PRUNED_DIRS, tree_cache_key
from tfbuild.tree.op_defs import AttrDef, OpDef, op_def_from_builder, op_defs_from_op_list
from tfbuild.tree.text_proto import TextProtoError

log = logging.getLogger(__name__)

SCHEMA = 1
OPS_PBTXT = "tensorflow/core/ops/ops.pbtxt"
OP_DEFINITION_DIRS = ("tensorflow/core/ops", "tensorflow/core/user_ops", "tensorflow/contrib")
_HELPER_DIRS = ("tensorflow/core/util", "tensorflow/core/framework")
_USER_OPS = "tensorflow/core/user_ops"
_LITERALS = r'((?:"(?:[^"\\\n]|\\.)*"\s*)+)'
_HELPERS = (
    re.compile(r"\b(?:std::)?string\s+(\w+)\s*\(\s*\)\s*\{\s*return\s+" + _LITERALS + r";\s*\}"),
    re.compile(r"\b(?:char|auto)\s*(?:\*\s*(?:const\s+)?)?(\w+)\s*(?:\[\s*\])?\s*=\s*" + _LITERALS + ";"),
)
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


@dataclass(frozen=True)
class OpDefIndex:
    """The tree's op definitions by name, the op files registering each op, and what could
    not be read. ``origin`` says where the definitions came from (``ops.pbtxt`` or the
    ``REGISTER_OP`` sources)."""

    tree_commit: str | None
    origin: str
    ops: Mapping[str, OpDef]
    files: Mapping[str, tuple[str, ...]]
    skipped: tuple[str, ...] = ()

    def get(self, op: str) -> OpDef | None:
        return self.ops.get(op)

    def files_for(self, ops: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """For each of ``ops`` the tree registers in an op file, those files (sorted)."""
        return {op: self.files[op] for op in sorted(set(ops)) if op in self.files}


@dataclass
class OpDefStats:
    """What one :func:`build_op_defs` call did, for tests and ``--debug`` output."""

    files_scanned: int = 0
    cache_hit: bool = False
    cache_path: Path | None = None


def default_cache_dir() -> Path:
    return cache_dir() / "op-defs"


def build_op_defs(tree: Path, *, cache_dir: Path | None = None, stats: OpDefStats | None = None) -> OpDefIndex:
    """The op definitions of the tree at ``tree``, from the cache when its commit (and the
    contents of any uncommitted op files) was read before."""
    root = Path(tree)
    stats = stats if stats is not None else OpDefStats()
    if not (root / OP_DEFINITION_DIRS[0]).is_dir():
        raise SourceTreeError(
            f"{root / OP_DEFINITION_DIRS[0]}: not found, so {root} is not a TensorFlow source tree",
            hint="pass the top directory of a TensorFlow checkout",
        )
    commit, key = tree_cache_key(root, (*OP_DEFINITION_DIRS, *_HELPER_DIRS), (".cc", ".h", ".pbtxt"),
                                 f"op-defs {SCHEMA}".encode())
    cache = (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / f"{key}.json" if key else None
    stats.cache_path = cache
    index, stats.cache_hit = read_through(
        cache, schema=SCHEMA, decode=_from_json, encode=_to_json, compute=lambda: _read_tree(root, commit, stats)
    )
    return index


def op_files(root: Path) -> list[str]:
    """Repository paths of the tree's op definition sources."""
    found: list[str] = []
    for top in OP_DEFINITION_DIRS:
        for directory, subdirs, files in os.walk(root / top):
            relative_dir = Path(directory).relative_to(root).as_posix()
            subdirs[:] = sorted(
                d for d in subdirs
                if not d.startswith((".", "bazel-")) and f"{relative_dir}/{d}" not in PRUNED_DIRS
            )
            found.extend(
                f"{relative_dir}/{name}" for name in files
                if name.endswith(".cc") and not name.endswith("_test.cc")
                and ("/ops/" in f"/{relative_dir}/" or relative_dir == _USER_OPS)
            )
    return sorted(set(found))


def _read_tree(root: Path, commit: str | None, stats: OpDefStats) -> OpDefIndex:
    reader = TreeReader(root, reads="ops")
    found: list[FoundOp] = []
    includes: dict[str, list[str]] = {}
    skipped: list[str] = []
    for relative in op_files(root):
        try:
            scan = reader.scan(relative)
        except Exception as error:
            skipped.append(f"{relative}: skipped ({type(error).__name__}: {error})")
            continue
        stats.files_scanned += 1
        found.extend(scan.ops)
        includes[relative] = scan.includes
        skipped.extend(scan.notes)
    files: dict[str, set[str]] = {}
    for op in found:
        files.setdefault(op.op, set()).add(op.file)
    golden, origin = _golden(root, skipped)
    ops: dict[str, OpDef] = dict(golden)
    helpers: dict[str, dict[str, str]] = {}
    # Unguarded definitions first (a plain build compiles them), core ones before contrib copies.
    for op in sorted(found, key=lambda f: (f.guard is not None, not f.file.startswith("tensorflow/core/"),
                                           f.file, f.line)):
        if op.op in ops:
            continue
        if op.file not in helpers:
            helpers[op.file] = _helper_strings(root, [op.file, *includes.get(op.file, [])])
        definition = op_def_from_builder(op.op, op.calls, helpers[op.file])
        ops[op.op] = definition
        skipped.extend(f"{op.file}:{op.line}: {op.op}: attr spec {spec!r} not read" for spec in definition.unread)
    for note in skipped:
        log.debug("op definitions: %s", note)
    return OpDefIndex(
        tree_commit=commit,
        origin=origin,
        ops=dict(sorted(ops.items())),
        files={op: tuple(sorted(paths)) for op, paths in sorted(files.items())},
        skipped=tuple(skipped),
    )


def _golden(root: Path, skipped: list[str]) -> tuple[dict[str, OpDef], str]:
    path = root / OPS_PBTXT
    if not path.is_file():
        return {}, "REGISTER_OP sources"
    try:
        return {op.name: op for op in op_defs_from_op_list(path.read_text(encoding="utf-8"))}, OPS_PBTXT
    except (OSError, UnicodeDecodeError, TextProtoError) as error:
        skipped.append(f"{OPS_PBTXT}: not read ({error}); the REGISTER_OP sources are used instead")
        return {}, "REGISTER_OP sources"


def _helper_strings(root: Path, files: Iterable[str]) -> dict[str, str]:
    """Functions returning a spec string (``string GetPaddingAttrString() { return "..."; }``)
    and string constants (``constexpr auto kRNNModeAttrs = "..."``) in ``files`` (the op file,
    then the headers it includes, each read through the ``.cc`` beside it)."""
    helpers: dict[str, str] = {}
    for relative in files:
        if not relative.endswith((".h", ".cc")):
            continue
        source = root / (relative[: -len(".h")] + ".cc" if relative.endswith(".h") else relative)
        try:
            text = strip_comments(source.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        for pattern in _HELPERS:
            for name, literals in pattern.findall(text):
                helpers.setdefault(name, "".join(_LITERAL.findall(literals)))
    return helpers


def _to_json(index: OpDefIndex) -> dict[str, object]:
    return {
        "tree_commit": index.tree_commit,
        "origin": index.origin,
        "ops": [asdict(op) for op in index.ops.values()],
        "files": {op: list(paths) for op, paths in index.files.items()},
        "skipped": list(index.skipped),
    }


def _from_json(data: dict[str, Any]) -> OpDefIndex:
    ops = {}
    for op in data["ops"]:
        attrs = tuple(
            AttrDef(a["name"], a["type"], a["default"], a["minimum"],
                    tuple(a["allowed"]) if a["allowed"] is not None else None)
            for a in op["attrs"]
        )
        ops[op["name"]] = OpDef(op["name"], tuple(op["inputs"]), tuple(op["outputs"]), attrs,
                                tuple(op["flags"]), tuple(op["unread"]))
    files = {op: tuple(paths) for op, paths in data["files"].items()}
    return OpDefIndex(data["tree_commit"], data["origin"], ops, files, tuple(data["skipped"]))

