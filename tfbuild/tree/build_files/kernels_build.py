"""The mobile filegroups of ``tensorflow/core/kernels/BUILD``: what they compile, and adding to them.

TensorFlow's Android/iOS Bazel targets compile the kernels listed in a few hand-kept filegroups
(``android_*`` until TF 2.3, ``portable_*`` from 2.4). A kernel file missing from them is not in
the binary, whatever ``ops_to_register.h`` says. This module knows those filegroups:

- :func:`mobile_sources` follows ``:label`` entries from the roots the mobile kernel library
  uses (``*_core_ops`` and ``*_extended_ops``, which names group1/group2/quantized) and returns
  the repository paths they hold; ``select()`` branches are not counted (they only compile under
  an optional ``--define``).
- :func:`add_kernel_sources` adds ``.cc`` entries to ``*_extended_ops_group1``/``group2`` and
  ``.h`` entries to ``*_extended_ops_headers``, editing those list literals in place.

Group choice: each new source goes to whichever of group1/group2 has fewer entries at that
moment (group1 on a tie), taking new sources in sorted order. TensorFlow split the extended ops
into two groups only to spread compile time, so keeping them balanced is the documented intent;
the rule depends only on the file's text and the sources asked for, so it is deterministic.
Files already in any mobile filegroup (core, group1, group2, quantized, headers) are skipped.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from tfbuild.cpp import KERNELS_DIR
from tfbuild.errors import SourceTreeError
from tfbuild.tree.build_files.filegroups import Filegroup, parse_build, read_filegroups
from tfbuild.tree.build_files.starlark_lists import apply_insertions, find_lists, insertions

KERNELS_PACKAGE = KERNELS_DIR
"""The kernels' directory as Bazel's package."""
KERNELS_BUILD = f"{KERNELS_PACKAGE}/BUILD"


@dataclass(frozen=True)
class MobileFilegroups:
    """The names one TensorFlow generation gives its mobile kernel filegroups."""

    family: str
    core: str
    group1: str
    group2: str
    quantized: str
    headers: str
    extended: str
    all_ops: str

    @property
    def roots(self) -> tuple[str, ...]:
        """What the mobile kernel library (``android_tensorflow_kernels``) compiles."""
        return (self.core, self.extended)

    @property
    def membership(self) -> tuple[str, ...]:
        """Lists a file may already be in, making an addition unnecessary."""
        return (self.core, self.group1, self.group2, self.quantized, self.headers)


def _family(prefix: str) -> MobileFilegroups:
    return MobileFilegroups(
        family=prefix,
        core=f"{prefix}_core_ops",
        group1=f"{prefix}_extended_ops_group1",
        group2=f"{prefix}_extended_ops_group2",
        quantized=f"{prefix}_quantized_ops",
        headers=f"{prefix}_extended_ops_headers",
        extended=f"{prefix}_extended_ops",
        all_ops=f"{prefix}_all_ops",
    )


FAMILIES: Mapping[str, MobileFilegroups] = {"android": _family("android"), "portable": _family("portable")}


def find_family(text: str, file_name: str = KERNELS_BUILD) -> str | None:
    """``portable`` or ``android``: which generation's mobile filegroups the kernels BUILD file
    defines (by its ``*_extended_ops_group1`` filegroup); the newer ``portable`` when it has both,
    None when it has neither. A file that does not parse is a :class:`SourceTreeError`."""
    groups = read_filegroups(text, file_name)
    for family in ("portable", "android"):
        if FAMILIES[family].group1 in groups:
            return family
    return None


def detect_family(text: str, file_name: str = KERNELS_BUILD) -> str:
    """:func:`find_family`, for callers that edit or read the filegroups and so need one."""
    family = find_family(text, file_name)
    if family is None:
        raise SourceTreeError(
            f"{file_name}: neither android_extended_ops_group1 nor portable_extended_ops_group1 is defined",
            hint="tfbuild supports TensorFlow trees with the android_* (TF 1.x-2.3) or portable_* (2.4+) filegroups",
        )
    return family


def filegroups_for(family: str) -> MobileFilegroups:
    try:
        return FAMILIES[family]
    except KeyError:
        raise SourceTreeError(
            f"unknown mobile filegroup family {family!r}",
            hint=f"use one of: {', '.join(FAMILIES)}",
        ) from None


@dataclass(frozen=True)
class KernelsBuildEdit:
    """The BUILD file's new text and the entries added to each filegroup."""

    text: str
    added: Mapping[str, tuple[str, ...]]
    skipped: tuple[str, ...]
    """Requested entries already in a mobile filegroup."""

    @property
    def changed(self) -> bool:
        return any(self.added.values())


def entry_for_path(path: str, package: str = KERNELS_PACKAGE) -> str:
    """The string a kernels/BUILD list uses for repository path ``path`` in Bazel package ``package``.

    Files of the kernels package itself are named relative to it (``"relu_op.cc"``,
    ``"image/resize_bilinear_op.cc"`` when ``image/`` has no BUILD file); files of another
    package by label (``"//tensorflow/core/kernels/image:resize_bilinear_op.cc"``).
    """
    relative = posixpath.relpath(path, package)
    if relative.startswith(".."):
        raise ValueError(f"{path} is not in package {package}")
    return relative if package == KERNELS_PACKAGE else f"//{package}:{relative}"


def path_for_entry(entry: str) -> str | None:
    """Repository path of a file entry, or None for a label naming a target."""
    if entry.startswith((":", "@")):
        return None
    if entry.startswith("//"):
        package, _, target = entry[2:].partition(":")
        if not target or not _looks_like_file(target):
            return None
        return f"{package}/{target}"
    return f"{KERNELS_PACKAGE}/{entry}"


def _looks_like_file(name: str) -> bool:
    return posixpath.splitext(name)[1] in (".cc", ".h", ".c", ".cpp", ".hpp", ".inc")


@dataclass(frozen=True)
class PackageFiles:
    """What :func:`mobile_sources` may read of a package other than the kernels one."""

    build_text: str
    files: tuple[str, ...]
    """File names relative to the package, for its ``glob()`` srcs."""


def mobile_sources(
    text: str,
    family: str,
    *,
    package_files: Iterable[str] = (),
    roots: Iterable[str] | None = None,
    load_package: Callable[[str], PackageFiles | None] | None = None,
    file_name: str = KERNELS_BUILD,
) -> frozenset[str]:
    """Repository paths the mobile build compiles from this BUILD file's filegroups.

    ``package_files`` (names relative to the kernels package) resolve ``glob()`` srcs such as
    ``android_all_ops``; ``roots`` defaults to the mobile kernel library's filegroups. Labels
    into other packages (TF 2.x moved kernels to ``kernels/image`` and others) are followed
    through ``load_package(package)``; without it, or when it returns None, they are not.
    """
    names = filegroups_for(family)
    kernels_groups = read_filegroups(text, file_name)
    packages: dict[str, tuple[dict[str, Filegroup], tuple[str, ...]] | None] = {
        KERNELS_PACKAGE: (kernels_groups, tuple(package_files)),
    }
    start = tuple(roots) if roots is not None else names.roots
    missing = [root for root in start if root not in kernels_groups]
    if missing:
        raise SourceTreeError(
            f"{file_name}: no filegroup {', '.join(missing)}",
            hint=f"tfbuild expected the {family}_* mobile filegroups; is --flavour right for this tree?",
        )
    paths: set[str] = set()
    seen: set[tuple[str, str]] = set()
    pending = [(KERNELS_PACKAGE, root) for root in start]
    while pending:
        package, name = pending.pop()
        if (package, name) in seen:
            continue
        seen.add((package, name))
        if package not in packages:
            loaded = load_package(package) if load_package else None
            packages[package] = (
                (read_filegroups(loaded.build_text, f"{package}/BUILD"), loaded.files) if loaded else None
            )
        known = packages[package]
        if known is None:
            continue
        groups, listing = known
        group = groups.get(name)
        if group is None:
            continue
        for entry in group.entries + _globbed(group, listing):
            if entry.startswith("@"):  # another repository's files are not TensorFlow kernels
                continue
            target = _target_label(entry, package)
            if target is not None:
                pending.append(target)
            else:
                paths.add(_file_path(entry, package))
    return frozenset(paths)


def _target_label(entry: str, package: str) -> tuple[str, str] | None:
    """``(package, name)`` of an entry naming a target (not a file), else None."""
    if entry.startswith(":"):
        return package, entry[1:]
    if entry.startswith("//"):
        other, _, name = entry[2:].partition(":")
        name = name or posixpath.basename(other)
        return None if _looks_like_file(name) else (other, name)
    return None


def _file_path(entry: str, package: str) -> str:
    if entry.startswith("//"):
        other, _, name = entry[2:].partition(":")
        return f"{other}/{name}"
    return f"{package}/{entry}"


def _globbed(group: Filegroup, listing: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for glob in group.globs:
        for name in listing:
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in glob.include) and not any(
                fnmatch.fnmatchcase(name, pattern) for pattern in glob.exclude
            ):
                out.append(name)
    return tuple(out)


def add_kernel_sources(
    text: str,
    *,
    sources: Iterable[str],
    headers: Iterable[str] = (),
    family: str,
    file_name: str = KERNELS_BUILD,
) -> KernelsBuildEdit:
    """Add list entries (as :func:`entry_for_path` writes them) to the mobile filegroups.

    ``sources`` go to group1/group2, ``headers`` to the extended-ops headers filegroup. The
    result is parsed again and the edited lists re-read to prove the edit did what it says.
    """
    names = filegroups_for(family)
    groups = read_filegroups(text, file_name)
    missing = [name for name in names.membership if name not in groups]
    if missing:
        raise SourceTreeError(
            f"{file_name}: no filegroup {', '.join(missing)}",
            hint=f"tfbuild edits the {family}_* mobile filegroups; is this the right tree and flavour?",
        )
    # Compared as files, so "relu_op.cc" and "//tensorflow/core/kernels:relu_op.cc" are one.
    present = {_identity(entry) for name in names.membership for entry in groups[name].entries}
    wanted_sources = sorted(set(sources))
    wanted_headers = sorted(set(headers))
    skipped = tuple(sorted({e for e in wanted_sources + wanted_headers if _identity(e) in present}))

    spans = find_lists(
        text, function="filegroup", names=(names.group1, names.group2, names.headers),
        attribute="srcs", file_name=file_name,
    )
    added: dict[str, list[str]] = {names.group1: [], names.group2: [], names.headers: []}
    sizes = {name: len(spans[name].entries) for name in (names.group1, names.group2)}
    for entry in wanted_sources:
        if _identity(entry) in present:
            continue
        target = names.group1 if sizes[names.group1] <= sizes[names.group2] else names.group2
        added[target].append(entry)
        sizes[target] += 1
        present.add(_identity(entry))
    added[names.headers] = [entry for entry in wanted_headers if _identity(entry) not in present]

    edits = [edit for name, values in added.items() for edit in insertions(text, spans[name], values)]
    new_text = apply_insertions(text, edits) if edits else text
    result = {name: tuple(values) for name, values in added.items()}
    if edits:
        _verify(text, new_text, result, file_name)
    return KernelsBuildEdit(text=new_text, added=result, skipped=skipped)


def _identity(entry: str) -> str:
    return path_for_entry(entry) or entry


def _verify(old: str, new: str, added: Mapping[str, tuple[str, ...]], file_name: str) -> None:
    """Re-parse the edited file and check each edited list is the old one plus exactly ``added``."""
    parse_build(new, file_name)
    before = read_filegroups(old, file_name)
    after = read_filegroups(new, file_name)
    for name, values in added.items():
        kept = [entry for entry in after[name].entries if entry not in values]
        grown = sorted(entry for entry in after[name].entries if entry in values)
        if kept != list(before[name].entries) or grown != sorted(values):
            raise SourceTreeError(
                f"{file_name}: editing filegroup {name!r} did not give the expected list",
                hint="this is a tfbuild bug; please report it with the BUILD file",
            )
