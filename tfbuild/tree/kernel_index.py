"""The CPU kernels a TensorFlow source tree registers: for each op, the files and class strings.

Everything that edits or checks a tree's build lists asks this index which ``.cc`` files hold
an op's CPU kernels, which kernel-directory headers they include, and which class strings the
tree's ``REGISTER_KERNEL_BUILDER`` calls produce (they differ between TensorFlow versions, so
they are read from the tree, never from the installed TensorFlow). Reading a tree costs one
pass over its kernel files (:mod:`kernel_scan`), whatever the number of ops asked about; the
result is cached by commit under ``~/.cache/tfbuild/kernel-index``. A tree with uncommitted
changes to kernel sources is cached under its commit *and* a digest of those files' contents,
so an edit is never answered from a stale entry; changes elsewhere (the BUILD files and op
lists tfbuild itself edits) do not affect the index or its key.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfbuild import __version__
from tfbuild.cache import cache_dir, read_through
from tfbuild.cpp import KERNELS_DIR
from tfbuild.cpp.scan import (
    CPU_DEVICES,
    FALLBACK_MACROS,
    MACRO_HEADERS,
    SCAN_ROOTS,
    TreeReader,
    UnreadRegistration,
    follows_include,
    is_kernel_source,
)
from tfbuild.errors import SourceTreeError
from tfbuild.tree.facts import MAKEFILE_DIR, head_commit, open_repo

log = logging.getLogger(__name__)

SCHEMA = 3
PRUNED_DIRS = (MAKEFILE_DIR,)


@dataclass(frozen=True)
class KernelRegistration:
    """One ``REGISTER_KERNEL_BUILDER`` of the tree that a CPU build has: ``device`` is ``CPU``
    or ``DEFAULT`` (TF 1.15 on: TensorFlow's lookup uses a DEFAULT kernel for a node when no
    kernel of the node's own device matches, see :meth:`KernelIndex.lookup_order`).

    ``kernel_class`` is the string TensorFlow's ``#__VA_ARGS__`` gives the class argument after
    macro expansion (``BinaryOp<CPUDevice, functor::add<float>>``), spaces included.
    ``type_constraints`` are ``(attr, C++ type)`` pairs without ``::tensorflow::``; an attr
    listed more than once names alternatives (``TypeConstraint("T", {DT_FLOAT, DT_HALF})``).
    ``guard`` is the preprocessor condition the registration depends on, when the build's
    flags decide it (``defined(USE_GEMM_FOR_CONV)``); regions no CPU build compiles
    (``GOOGLE_CUDA``, SYCL, MKL) are not in the index at all.
    """

    op: str
    kernel_class: str
    device: str
    type_constraints: tuple[tuple[str, str], ...]
    file: str  # repository-relative POSIX path
    line: int
    guard: str | None


@dataclass(frozen=True)
class KernelIndex:
    """The tree's CPU kernel registrations and the include graph of its kernel files."""

    tree_commit: str | None
    registrations: tuple[KernelRegistration, ...]
    includes: Mapping[str, tuple[str, ...]]
    unread: tuple[UnreadRegistration, ...] = ()
    """Registrations the scanner could not read, by file and line: reported, never taken as
    "no kernel"."""

    @functools.cached_property
    def _by_op(self) -> dict[str, tuple[KernelRegistration, ...]]:
        grouped: dict[str, list[KernelRegistration]] = {}
        for registration in self.registrations:
            grouped.setdefault(registration.op, []).append(registration)
        return {op: tuple(found) for op, found in grouped.items()}

    def registrations_for_op(self, op: str) -> tuple[KernelRegistration, ...]:
        """``op``'s CPU and DEFAULT registrations, in file order."""
        return self._by_op.get(op, ())

    def unread_for_op(self, op: str) -> tuple[UnreadRegistration, ...]:
        """Unread registrations that name ``op`` in their raw text, or that name no op at all
        (they could be ``op``'s)."""
        return tuple(u for u in self.unread if u.op in (op, None))

    def files_for_op(self, op: str) -> tuple[str, ...]:
        """The ``.cc`` files registering a CPU kernel for ``op``, sorted."""
        return tuple(sorted({r.file for r in self.registrations_for_op(op)}))

    def classes_for_op(self, op: str) -> frozenset[str]:
        return frozenset(r.kernel_class for r in self.registrations_for_op(op))

    def headers_for(self, files: Iterable[str]) -> tuple[str, ...]:
        """Kernel-directory headers ``files`` include, directly or through other such
        headers, sorted."""
        found: set[str] = set()
        todo = list(files)
        while todo:
            for included in self.includes.get(todo.pop(), ()):
                if included.endswith(".h") and _in_kernel_dirs(included) and included not in found:
                    found.add(included)
                    todo.append(included)
        return tuple(sorted(found))

    def ops(self) -> frozenset[str]:
        return frozenset(self._by_op)


@dataclass
class IndexStats:
    """What one :func:`build_kernel_index` call did, for tests and ``--debug`` output."""

    files_scanned: int = 0
    cache_hit: bool = False
    cache_path: Path | None = None
    notes: list[str] = field(default_factory=list)


def default_cache_dir() -> Path:
    return cache_dir() / "kernel-index"


def build_kernel_index(tree: Path, *, cache_dir: Path | None = None,
                       stats: IndexStats | None = None) -> KernelIndex:
    """The kernel index of the tree at ``tree``, from the cache when its commit (and the
    contents of any uncommitted kernel sources) was indexed before."""
    root = Path(tree)
    stats = stats if stats is not None else IndexStats()
    if not root.is_dir():
        raise SourceTreeError(f"{root}: source tree not found", hint="pass --source DIR, a TensorFlow checkout")
    if not (root / KERNELS_DIR).is_dir():
        raise SourceTreeError(
            f"{root / KERNELS_DIR}: not found, so {root} is not a TensorFlow source tree",
            hint="pass the top directory of a TensorFlow checkout",
        )
    commit, key = _cache_key(root)
    cache = (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / f"{key}.json" if key else None
    stats.cache_path = cache

    def scan() -> tuple[KernelIndex, list[str]]:
        return _scan_tree(root, commit, stats), stats.notes

    (index, notes), stats.cache_hit = read_through(
        cache, schema=SCHEMA, decode=_from_json, encode=lambda found: _to_json(*found), compute=scan
    )
    if stats.cache_hit:
        stats.notes.extend(notes)
    return index


def describe_ops(index: KernelIndex, ops: Iterable[str]) -> tuple[OpKernels, ...]:
    """What the ``tfbuild kernels`` report says about each op."""
    described = []
    for op in ops:
        found = index.registrations_for_op(op)
        files = tuple(sorted({r.file for r in found}))
        described.append(OpKernels(
            op=op,
            files=files,
            headers=index.headers_for(files),
            kernel_classes=tuple(sorted({r.kernel_class for r in found})),
            guards=tuple(sorted({r.guard for r in found if r.guard})),
            devices=tuple(sorted({r.device for r in found})),
            unread=tuple(str(u) for u in index.unread_for_op(op)) if not found else (),
        ))
    return tuple(described)


def unread_notes(index: KernelIndex, *, most: int = 5) -> list[str]:
    """One line naming the registrations the index could not read (the first ``most`` of them),
    for every command that reads a tree's kernels; none when it read them all."""
    if not index.unread:
        return []
    shown = "; ".join(str(u) for u in index.unread[:most])
    more = f" (and {len(index.unread) - most} more)" if len(index.unread) > most else ""
    return [f"{len(index.unread)} kernel registration(s) of the tree could not be read, so their ops may be "
            f"missing from its index: {shown}{more}"]


def lookup_order(registrations: Iterable[KernelRegistration],
                 fits: Callable[[KernelRegistration], bool] = lambda _: True) -> tuple[KernelRegistration, ...]:
    """The registrations TensorFlow's CPU lookup would take among those that ``fits`` a node:
    the CPU ones, else (none fits) the DEFAULT ones (``FindKernelRegistration``)."""
    fitting = [r for r in registrations if fits(r)]
    cpu = tuple(r for r in fitting if r.device == "CPU")
    return cpu or tuple(r for r in fitting if r.device in CPU_DEVICES)


@dataclass(frozen=True)
class OpKernels:
    op: str
    files: tuple[str, ...]
    headers: tuple[str, ...]
    kernel_classes: tuple[str, ...]
    guards: tuple[str, ...]
    devices: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    """For an op without kernels: the tree's unread registrations that may be its."""

    @property
    def registered(self) -> bool:
        return bool(self.files)


def _in_kernel_dirs(relative: str) -> bool:
    return relative.startswith(KERNELS_DIR + "/") or (
        relative.startswith("tensorflow/contrib/") and "/kernels/" in relative)


def _kernel_sources(root: Path) -> list[str]:
    found: list[str] = []
    for scan_root in SCAN_ROOTS:
        top = root / scan_root
        for directory, subdirs, files in os.walk(top):
            relative_dir = Path(directory).relative_to(root).as_posix()
            subdirs[:] = sorted(
                d for d in subdirs
                if not d.startswith((".", "bazel-")) and f"{relative_dir}/{d}" not in PRUNED_DIRS
            )
            found.extend(f"{relative_dir}/{name}" for name in files if is_kernel_source(f"{relative_dir}/{name}"))
    return sorted(set(found))


def _scan_tree(root: Path, commit: str | None, stats: IndexStats) -> KernelIndex:
    reader = TreeReader(root)
    registrations = []
    unread: list[UnreadRegistration] = []
    includes: dict[str, tuple[str, ...]] = {}
    for relative in _kernel_sources(root):
        try:
            scan = reader.scan(relative)
        except Exception as error:
            stats.notes.append(f"{relative}: skipped ({type(error).__name__}: {error})")
            continue
        stats.files_scanned += 1
        registrations.extend(scan.registrations)
        unread.extend(scan.unread)
        includes[relative] = tuple(scan.includes)
        stats.notes.extend(scan.notes)
    todo = [h for included in includes.values() for h in included]
    while todo:
        header = todo.pop()
        if header in includes or not (follows_include(header) or _in_kernel_dirs(header)):
            continue
        try:
            includes[header] = reader.header(header)[1]
        except Exception as error:
            stats.notes.append(f"{header}: skipped ({type(error).__name__}: {error})")
            includes[header] = ()
        todo.extend(includes[header])
    for note in stats.notes:
        log.debug("kernel index: %s", note)
    unique = sorted(set(registrations), key=lambda r: (r.file, r.line, r.op, r.kernel_class, r.type_constraints))
    return KernelIndex(
        tree_commit=commit,
        registrations=tuple(KernelRegistration(**vars(r)) for r in unique),
        includes=includes,
        unread=tuple(unread),
    )


def _cache_key(root: Path) -> tuple[str | None, str | None]:
    """(commit, cache key); the key is None when the tree is not a git checkout."""
    return tree_cache_key(root, (*SCAN_ROOTS, *MACRO_HEADERS), (".cc", ".h"), f"{SCHEMA}".encode())


def tree_cache_key(root: Path, pathspecs: tuple[str, ...], suffixes: tuple[str, ...],
                   salt: bytes) -> tuple[str | None, str | None]:
    """(commit, cache key) of what a tree's files under ``pathspecs`` say, for an index read
    from them: the commit, plus a digest of the uncommitted files among them whose names end
    in ``suffixes``; ``salt`` (the index's schema) and tfbuild's version and fallback macros
    are in the digest too. The key is None when the tree is not a git checkout."""
    repo = open_repo(root)
    commit = head_commit(repo) if repo is not None else None
    if repo is None or commit is None or repo.working_tree_dir is None:
        return None, None
    top = Path(repo.working_tree_dir)  # open_repo(root) only opens the top of a checkout
    status: str = repo.git.status("--porcelain=v1", "-z", "--untracked-files=all", "--", *pathspecs)
    changed = sorted({entry[3:] for entry in status.split("\0") if len(entry) > 3 and entry[2] == " "
                      and entry[3:].endswith(suffixes)})
    identity = hashlib.sha256(salt + f"\0{__version__}\0".encode())
    identity.update(FALLBACK_MACROS.read_bytes())
    for path in changed:
        file = top / path
        identity.update(path.encode() + b"\0")
        identity.update(hashlib.sha256(file.read_bytes()).digest() if file.is_file() else b"deleted")
    suffix = f"-dirty-{identity.hexdigest()[:16]}" if changed else f"-{identity.hexdigest()[:12]}"
    return commit, f"{commit}{suffix}"


def _to_json(index: KernelIndex, notes: list[str]) -> dict[str, object]:
    return {
        "notes": notes,
        "tree_commit": index.tree_commit,
        "registrations": [
            [r.op, r.kernel_class, r.device, [list(c) for c in r.type_constraints], r.file, r.line, r.guard]
            for r in index.registrations
        ],
        "includes": {k: list(v) for k, v in sorted(index.includes.items())},
        "unread": [[u.file, u.line, u.reason, u.op] for u in index.unread],
    }


def _from_json(data: dict[str, Any]) -> tuple[KernelIndex, list[str]]:
    registrations = tuple(
        KernelRegistration(op, cls, device, tuple(tuple(c) for c in constraints), file, line, guard)
        for op, cls, device, constraints, file, line, guard in data["registrations"]
    )
    includes = {k: tuple(v) for k, v in data["includes"].items()}
    unread = tuple(UnreadRegistration(file, line, reason, op) for file, line, reason, op in data["unread"])
    return KernelIndex(data["tree_commit"], registrations, includes, unread), [str(n) for n in data["notes"]]
