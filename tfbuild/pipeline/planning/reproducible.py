"""Reproducible artifacts: the same app built twice, clean, in other directories and
containers, gives the same bytes.

Three things leak into a build's output that have nothing to do with what it builds:
- the time (``__DATE__``/``__TIME__``, archive member dates): every step runs with
  ``SOURCE_DATE_EPOCH``, which gcc and clang use for the date macros. Its value is the one the
  user gives (``--source-date-epoch``, ``SOURCE_DATE_EPOCH``), else the commit time of the tree's
  checked-out commit (the sources are no newer than that), else 1980-01-01, the first day a zip
  (an AAR) can hold;
- paths: the contrib Makefile includes the downloaded headers and the generated ``.pb.cc`` by
  absolute paths under the tree, so every ``__FILE__`` in them (protobuf's ``GOOGLE_CHECK``) names
  the tree's directory. ``-ffile-prefix-map`` rewrites the tree's root (and the header's
  directory) in ``__FILE__`` and debug information;
- archive order and member dates: ``ar`` runs with ``D`` (zero dates, uids, modes), which GNU ar
  on Debian and llvm-ar default to, but other toolchains do not.

What is not made identical, and why, is in the plan's notes and the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.errors import ConfigError

ZIP_EPOCH = 315532800
"""1980-01-01 00:00 UTC: the earliest time a zip entry can hold, the AAR's fixed time too."""
EPOCH_VARIABLE = "SOURCE_DATE_EPOCH"


@dataclass(frozen=True)
class Reproducibility:
    """How a plan keeps its artifacts reproducible (recorded in the manifest)."""

    prefix_maps: tuple[str, ...] = ()  # the -ffile-prefix-map flags the compiles get
    ar_flags: str | None = None  # the ARFLAGS given to the tree's Makefile (None: not given)
    not_identical: tuple[str, ...] = ()  # what is known to differ between two builds, and why
    source_date_epoch: int | None = None  # set for every plan by plan_build (None: not yet chosen)
    epoch_from: str | None = None  # given, the tree's commit time, or fixed


def choose_epoch(given: int | None, tree_root: Path | None) -> tuple[int, str]:
    """The ``SOURCE_DATE_EPOCH`` of a build and where it came from."""
    if given is not None:
        return given, "given (--source-date-epoch, $TFBUILD_SOURCE_DATE_EPOCH or $SOURCE_DATE_EPOCH)"
    if tree_root is not None:
        from tfbuild.tree.facts import open_repo

        repo = open_repo(tree_root)
        if repo is not None:
            try:
                commit = repo.head.commit
            except ValueError:
                commit = None
            if commit is not None:
                return int(commit.committed_date), f"the commit time of the tree's {commit.hexsha[:12]}"
    return ZIP_EPOCH, "fixed: 1980-01-01 (no tree commit and none given)"


FILE_PREFIX_MAP = "-ffile-prefix-map="


def prefix_maps(mapping: Mapping[PurePosixPath, str]) -> tuple[str, ...]:
    """``-ffile-prefix-map=OLD=NEW`` for each directory as the compiler sees it. A path holding
    ``=`` cannot be given to that flag (gcc splits at the first one): refused, with a fix."""
    flags = []
    for old, new in mapping.items():
        if "=" in str(old) or " " in str(old):
            raise ConfigError(
                f"{old}: a build directory with '=' or a space cannot be mapped for a reproducible build",
                hint="move the tree or the output directory to a path without '=' or spaces",
            )
        flags.append(f"{FILE_PREFIX_MAP}{old}={new}")
    return tuple(flags)


def deterministic_ar_flags(tree_flags: str) -> str:
    """The tree's ``ARFLAGS`` with ``D`` (deterministic mode) added: ``-r`` -> ``-rD``."""
    words = tree_flags.split()
    if not words:
        return "-rD"
    if "D" in words[0]:
        return tree_flags
    return " ".join((words[0] + "D", *words[1:]))
