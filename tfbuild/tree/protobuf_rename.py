"""Moving TensorFlow's protobuf into ``google::protobuf3``, as contrib/makefile/rename_protobuf.sh does.

An app that already links protobuf 2 cannot link TensorFlow's protobuf 3 next to it: both define
``google::protobuf::*`` and the linker sees duplicate symbols. TensorFlow's answer (TF 1.x
``tensorflow/contrib/makefile/rename_protobuf.sh``, run after ``download_dependencies.sh``) is to
rename, in the downloaded protobuf and in TensorFlow's own sources:

- the directory ``downloads/protobuf/src/google/protobuf`` to ``.../google/protobuf3``, and the
  ``#include <google/protobuf/...>`` paths with it (also where protobuf's own code generators
  write them as escaped string literals, as ``compiler/js/embed.cc`` does);
- the namespace: ``namespace protobuf`` declarations, ``protobuf::`` qualifiers and the
  ``namespace protobuf = ::google::protobuf;`` alias in TF's platform header, so
  ``google::protobuf::Message`` becomes ``google::protobuf3::Message`` everywhere (TF's own
  ``tensorflow::protobuf`` alias is renamed consistently, as the script does), including the
  ``"namespace google {\\nnamespace protobuf {"`` strings protoc's C++ generator prints;
- the protobuf build files that name those paths (configure.ac, autogen.sh, src/Makefile.am),
  and the imports in protobuf's own ``src/`` ``.proto`` files (its ``make`` runs protoc on its
  test protos, now ``google/protobuf3/unittest.proto`` and so on, with ``-I src``);
- a copy of protobuf's own ``.proto`` files, as released (imports not renamed), under
  ``google/protobuf/`` at the tree root, where protoc finds ``import "google/protobuf/any.proto"``;
- the Makefile's protoc and proto_text rules, so generated code gets the same rename.

Differences from the script, all deliberate: matches are whole words (the script's
``namespace protobuf[^3]`` also hits protobuf 3.6's ``namespace protobuf_google_2f..._2eproto``
declarations but not their uses, which breaks the build), where a word may also start right
after a ``\\n`` escape inside a string literal; ``using namespace google::protobuf;`` is renamed
too; the generated-code rename is an inline ``sed`` recipe line (the script's helper scripts use
``${${VAR}/...}``, which bash rejects); ``.proto`` imports are renamed only inside protobuf's
``src/``, never in TF's protos or the root copies: the prebuilt library registers its well-known
types as ``google/protobuf/any.proto``, and a TF proto importing ``google/protobuf3/any.proto``
would name a file that is not in the generated pool (file-level reflection on it crashes);
macros (``GOOGLE_PROTOBUF_*``) and proto package names (``google.protobuf.Any``) are left alone:
macros never reach the linker and type URLs must keep naming the proto package. A real TF 1.9
tree and its pinned protobuf (3.5.0, commit 396336eb) are what found the escaped-literal and
import cases, and that protobuf's own ``make`` needs its test protos' imports renamed.

Everything is computed as a :class:`RenamePlan` from the tree's current state, then applied with
atomic writes; a second run plans nothing, and a run interrupted half-way is finished by the next.
In a git checkout the rewritten tracked files are committed on tfbuild's work branch (see
:func:`apply_protobuf_rename`), so the tree stays clean and ``tfbuild edit --revert`` covers them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import SourceTreeError
from tfbuild.fileio import atomic_write_bytes, unified_diff
from tfbuild.templating import render
from tfbuild.tree.facts import MAKEFILE, MAKEFILE_DIR, open_repo
from tfbuild.tree.work_branch import check_can_commit, commit_files

NAMESPACE = "protobuf3"
PROTOBUF_DOWNLOAD = f"{MAKEFILE_DIR}/downloads/protobuf"
PROTOBUF_SRC = f"{PROTOBUF_DOWNLOAD}/src"
PROTOBUF_BUILD_FILES = (
    f"{PROTOBUF_DOWNLOAD}/configure.ac",
    f"{PROTOBUF_DOWNLOAD}/autogen.sh",
    f"{PROTOBUF_SRC}/Makefile.am",
)
_SKIP_DIRS = {".git"}

# A word starts after a non-word character, or right after a \n, \t or \r escape in a string
# literal (protoc's C++ generator prints "namespace google {\nnamespace protobuf {\n").
_WORD_START = r"(?:(?<!\w)|(?<=\\[ntr]))"
_INCLUDE = re.compile(r'(#[ \t]*include[ \t]*[<"])google/protobuf/')
# A header path written as an escaped literal by a generator: "#include \"google/protobuf/x.h\"".
_ESCAPED_INCLUDE = re.compile(r'(?<=\\")google/protobuf/(?=[\w/]+\.h\\")')
_NAMESPACE_DECL = re.compile(rf"{_WORD_START}namespace(\s+)protobuf\b")
_QUALIFIER = re.compile(rf"{_WORD_START}protobuf::")
_GOOGLE_PROTOBUF = re.compile(rf"{_WORD_START}(google\s*::\s*)protobuf\b")
_BUILD_FILE_PATH = re.compile(r"\bgoogle/protobuf/")
# An import line of a .proto file, up to the path (in protobuf's own src/ only).
_IMPORT_LINE = r'(?m)^([ \t]*import[ \t]+(?:(?:public|weak)[ \t]+)?")'
_PROTO_IMPORT = re.compile(_IMPORT_LINE + "google/protobuf/")
_RENAMED_PROTO_IMPORT = re.compile(_IMPORT_LINE + f"google/{NAMESPACE}/")
_GENERATED_PATH_ID = re.compile(f"google_2f{NAMESPACE}_2f")

# Makefile recipe lines that produce C++, and the files each rule's stem ($*) produces.
_GENERATING_RULES = (
    ("$(PROTOC) $(PROTOCFLAGS) $< --cpp_out $(PROTOGENDIR)", ("$(PROTOGENDIR)$*.pb.h", "$(PROTOGENDIR)$*.pb.cc")),
    ("$(PROTOC) $(PROTOCFLAGS) $< --cpp_out $(HOST_GENDIR)", ("$(HOST_GENDIR)$*.pb.h", "$(HOST_GENDIR)$*.pb.cc")),
    (
        "$(PROTO_TEXT) \\",
        ("$(PBTGENDIR)$*.pb_text.h", "$(PBTGENDIR)$*.pb_text.cc", "$(PBTGENDIR)$*.pb_text-impl.h"),
    ),
)


def rename_cpp(text: str) -> tuple[str, int]:
    """The rename of one C++ source or header; returns the new text and the number of changes."""
    total = 0
    for pattern, replacement in (
        (_INCLUDE, rf"\1google/{NAMESPACE}/"),
        (_ESCAPED_INCLUDE, f"google/{NAMESPACE}/"),
        (_NAMESPACE_DECL, rf"namespace\1{NAMESPACE}"),
        (_QUALIFIER, f"{NAMESPACE}::"),
        (_GOOGLE_PROTOBUF, rf"\1{NAMESPACE}"),
    ):
        text, count = pattern.subn(replacement, text)
        total += count
    return text, total


def rename_generated(text: str) -> str:
    """What the Makefile's fix-up recipe line does to protoc/proto_text output (for tests and
    for callers that generate code outside make): the C++ rename, with protoc's path-derived
    identifiers mapped back to the names the prebuilt protobuf library defines."""
    renamed, _ = rename_cpp(text)
    return _GENERATED_PATH_ID.sub("google_2fprotobuf_2f", renamed)


@dataclass(frozen=True)
class TextRewrite:
    """A file whose text changes; ``path`` is repository-relative, after any directory move."""

    path: str
    old_text: str
    new_text: str
    changes: int

    def diff(self) -> str:
        return unified_diff(self.path, self.old_text, self.new_text)


@dataclass(frozen=True)
class RenamePlan:
    root: Path
    move: tuple[str, str] | None
    """``(from, to)`` directory rename, repository-relative."""
    rewrites: tuple[TextRewrite, ...]
    copies: tuple[tuple[str, str], ...]
    """``(from, to)`` protobuf ``.proto`` files to copy, as released, to the root
    ``google/protobuf/`` (new or different), where protoc finds the imports of TF's protos."""

    @property
    def changed(self) -> bool:
        return bool(self.move or self.rewrites or self.copies)

    def summary_lines(self) -> list[str]:
        lines = [f"move {self.move[0]} -> {self.move[1]}"] if self.move else []
        lines += [f"rewrite {r.path} ({r.changes} change{'s' if r.changes != 1 else ''})" for r in self.rewrites]
        if self.copies:
            lines.append(f"copy {len(self.copies)} .proto file(s) of protobuf to google/protobuf/")
        return lines or ["nothing to do: the tree already uses google::protobuf3"]


def plan_protobuf_rename(root: Path) -> RenamePlan:
    """What renaming ``root`` needs now; raises :class:`SourceTreeError` for a tree it cannot do."""
    root = Path(root)
    if not (root / MAKEFILE).is_file():
        raise SourceTreeError(
            f"{root}: no {MAKEFILE}; the protobuf rename is for the contrib Makefile build (TF <= 2.0)",
            hint="use a TF 1.x/2.0 tree, or link the app's protobuf with the Bazel build instead",
        )
    google = root / PROTOBUF_SRC / "google"
    old_dir, new_dir = google / "protobuf", google / NAMESPACE
    if not old_dir.is_dir() and not new_dir.is_dir():
        raise SourceTreeError(
            f"{root}: protobuf is not downloaded ({PROTOBUF_SRC}/google/protobuf is missing)",
            hint=f"run {MAKEFILE_DIR}/download_dependencies.sh first",
        )
    if old_dir.is_dir() and new_dir.is_dir():
        raise SourceTreeError(
            f"{root}: both {PROTOBUF_SRC}/google/protobuf and google/{NAMESPACE} exist",
            hint="protobuf was downloaded again over a renamed tree; delete "
            f"{PROTOBUF_DOWNLOAD} and run download_dependencies.sh and tfbuild again",
        )
    move = (_rel(root, old_dir), _rel(root, new_dir)) if old_dir.is_dir() else None
    rewrites = [rewrite for path in _tree_files(root) if (rewrite := _rewrite(root, path, move))]
    makefile = _makefile_rewrite(root)
    if makefile:
        rewrites.append(makefile)
    planned = {rewrite.path: rewrite.new_text for rewrite in rewrites}
    return RenamePlan(root, move, tuple(rewrites), _copies(root, move, planned))


def apply_protobuf_rename(plan: RenamePlan) -> RenamePlan:
    """Carry out ``plan`` (move, then atomic rewrites, then copies) and return it.

    In a git checkout, the rewrites of tracked files (TensorFlow's own sources, the Makefile)
    are committed on tfbuild's work branch like the other source edits, so the tree stays clean
    for the next ``tfbuild edit`` and ``tfbuild edit --revert`` undoes them; the downloaded
    protobuf is not tracked and stays renamed (running the rename again is harmless).
    """
    root = plan.root
    for rewrite in plan.rewrites:
        current = root / (_before_move(rewrite.path, plan.move))
        if _read(current) != rewrite.old_text:
            raise SourceTreeError(
                f"{current}: changed since the rename was planned",
                hint="run tfbuild protobuf rename again",
            )
    tracked = _tracked(root, [rewrite.path for rewrite in plan.rewrites])
    if tracked:
        check_can_commit(root)  # before anything changes, so a refusal leaves the tree as it was
    if plan.move:
        os.rename(root / plan.move[0], root / plan.move[1])
    for rewrite in plan.rewrites:
        if rewrite.path not in tracked:
            atomic_write_bytes(
                root / rewrite.path, rewrite.new_text.encode("utf-8", "surrogateescape"), through_links=False
            )
    copied: dict[str, bytes] = {}
    for source, target in plan.copies:
        source_path, target_path = root / source, root / target
        copied[target] = _proto_as_released(source_path.read_bytes())
        atomic_write_bytes(target_path, copied[target], mode=source_path.stat().st_mode & 0o7777)
    if tracked:
        # The root copies are recorded too, so `tfbuild edit --revert` removes them.
        commit_files(
            root,
            {r.path: (r.old_text, r.new_text) for r in plan.rewrites if r.path in tracked},
            "tfbuild: rename protobuf to google::protobuf3 (as contrib/makefile/rename_protobuf.sh)",
            generated=copied,
        )
    return plan


def _before_move(path: str, move: tuple[str, str] | None) -> str:
    if move and path.startswith(move[1] + "/"):
        return move[0] + path[len(move[1]) :]
    return path


def _tracked(root: Path, paths: list[str]) -> frozenset[str]:
    """Which of ``paths`` git tracks in ``root`` (none when it is not a git checkout)."""
    repo = open_repo(root) if paths else None
    if repo is None:
        return frozenset()
    listed: str = repo.git.ls_files("-z", "--", *paths)
    return frozenset(entry for entry in listed.split("\0") if entry)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _tree_files(root: Path) -> Iterator[Path]:
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(
            d for d in subdirs if d not in _SKIP_DIRS and not os.path.islink(os.path.join(directory, d))
        )
        for name in sorted(files):
            path = Path(directory, name)
            if not path.is_symlink():
                yield path


def _rewrite(root: Path, path: Path, move: tuple[str, str] | None) -> TextRewrite | None:
    relative = _rel(root, path)
    if relative.endswith((".cc", ".h")):
        rename = rename_cpp
    elif relative in PROTOBUF_BUILD_FILES:
        rename = _rename_build_file
    elif relative.endswith(".proto") and relative.startswith(f"{PROTOBUF_SRC}/"):
        rename = _rename_proto_imports
    else:
        return None
    old = _read(path)
    if "protobuf" not in old:
        return None
    new, changes = rename(old)
    if not changes:
        return None
    if move and relative.startswith(move[0] + "/"):
        relative = move[1] + relative[len(move[0]) :]
    return TextRewrite(relative, old, new, changes)


def _rename_build_file(text: str) -> tuple[str, int]:
    return _BUILD_FILE_PATH.subn(f"google/{NAMESPACE}/", text)


def _rename_proto_imports(text: str) -> tuple[str, int]:
    """protobuf's ``src/`` protos import each other by path; its ``make`` (BUILT_SOURCES) runs
    protoc on the test protos as ``google/protobuf3/...`` with ``-I src``, so those imports must
    follow the move, or protoc finds neither ``google/protobuf/any.proto`` nor the test protos."""
    return _PROTO_IMPORT.subn(rf"\1google/{NAMESPACE}/", text)


def _proto_as_released(data: bytes) -> bytes:
    """A protobuf ``.proto`` file with :func:`_rename_proto_imports` undone (exact: protobuf's
    own files never name ``google/protobuf3/``), for the root copies."""
    text = data.decode("utf-8", "surrogateescape")
    return _RENAMED_PROTO_IMPORT.sub(r"\1google/protobuf/", text).encode("utf-8", "surrogateescape")


def _makefile_rewrite(root: Path) -> TextRewrite | None:
    """Add the generated-code fix-up line after each protoc/proto_text command (once)."""
    old = _read(root / MAKEFILE)
    newline = "\r\n" if "\r\n" in old else "\n"
    lines = old.split(newline)
    changes = 0
    for command, files in _GENERATING_RULES:
        fixup = render("protobuf3_generated_fixup.mk.j2", namespace=NAMESPACE, files=files, newline="")
        for index in [i for i, line in enumerate(lines) if line.strip() == command.strip()]:
            end = index
            while lines[end].endswith("\\") and end + 1 < len(lines):
                end += 1
            if end + 1 < len(lines) and lines[end + 1] == fixup:
                continue
            lines.insert(end + 1, fixup)
            changes += 1
    if not changes:
        return None
    return TextRewrite(MAKEFILE, old, newline.join(lines), changes)


def _copies(root: Path, move: tuple[str, str] | None, planned: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """protobuf's ``.proto`` files (wherever the move leaves them) missing or stale under the
    root ``google/protobuf/``, compared as released (:func:`_proto_as_released`), so the
    planned import rewrites do not matter."""
    del planned
    source_dir = root / PROTOBUF_SRC / "google"
    out = []
    for path in _tree_files(source_dir):
        if path.suffix != ".proto":
            continue
        relative = _rel(root, path)
        inside = relative[len(f"{PROTOBUF_SRC}/google/") :].split("/", 1)[1]  # below protobuf[3]/
        if move and relative.startswith(move[0] + "/"):
            relative = move[1] + relative[len(move[0]) :]
        target = f"google/protobuf/{inside}"
        target_path = root / target
        if not target_path.is_file() or target_path.read_bytes() != _proto_as_released(path.read_bytes()):
            out.append((relative, target))
    return tuple(out)
