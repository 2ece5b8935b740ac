"""The figures a build is compared with: those of a stock (non-selective) build of the same tree,
target and flavour.

"Smaller" only means something against the build the user would otherwise ship: the same
checkout, for the same target, by the same flavour, with every kernel registered (``tfbuild
build --default-ops all``). Such a build records its figures in tfbuild's cache when its report
is made, under :class:`BaselineKey`:

    <cache>/size-baselines/<target>/<flavour>/<tree commit>.json

The tree commit is the one tfbuild's edits started from (:func:`~tfbuild.tree.work_branch.base_commit`),
not the work-branch commit the manifest names, so that a stock build and any number of
selective builds of one checkout meet under one key whatever tfbuild committed for each. An op
library (no tree) is keyed by the TensorFlow it was compiled against. A later stock build of
the same key replaces the record. ``tfbuild report --baseline OUT_DIR`` names another build's
output directory instead, which needs no cache and may be any build (the report says when it
is not a stock one, or not of the same tree, target or flavour).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tfbuild.cache import cache_dir
from tfbuild.fileio import atomic_write_text

SCHEMA = 1
SUBDIR = "size-baselines"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")
_GIT_SHA = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class BaselineKey:
    """Which stock build a build is compared with: same tree commit, target and flavour."""

    commit: str
    target: str
    flavour: str

    def path(self, root: Path | None = None) -> Path:
        """Where the record of this key lives under tfbuild's cache (or ``root``)."""
        base = (root if root is not None else cache_dir()) / SUBDIR
        return base / _SAFE.sub("_", self.target) / _SAFE.sub("_", self.flavour) / f"{_SAFE.sub('_', self.commit)}.json"

    def describe(self) -> str:
        """``tree 9a410368eeb3, linux-x86_64, makefile`` (an op library: ``TensorFlow v2.21.0-...``)."""
        what = f"tree {self.commit[:12]}" if _GIT_SHA.fullmatch(self.commit) else f"TensorFlow {self.commit}"
        return f"{what}, {self.target}, {self.flavour}"


@dataclass(frozen=True)
class ArtifactFigures:
    """One artifact's size, and its symbol bytes by group and kernel file (empty when they
    could not be read)."""

    name: str
    size: int
    sha256: str | None = None
    groups: Mapping[str, int] = field(default_factory=dict)
    files: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildFigures:
    """What a build measured: enough to be another build's baseline."""

    output_dir: str
    target: str
    flavour: str
    commit: str | None
    stock: bool
    """The build's header registers every kernel (no selection)."""
    created: str | None
    size_profile: str | None
    artifacts: tuple[ArtifactFigures, ...]

    def artifact(self, name: str) -> ArtifactFigures | None:
        return next((figures for figures in self.artifacts if figures.name == name), None)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Baseline:
    """The figures a report compares with, and where they came from: ``recorded`` (the cache
    record at ``where``) or ``given`` (``--baseline``, the output directory ``where``)."""

    figures: BuildFigures
    origin: str
    where: Path


def record_baseline(key: BaselineKey, figures: BuildFigures, *, root: Path | None = None) -> Path:
    """Keep a stock build's ``figures`` as the baseline of ``key`` (written atomically)."""
    data = {"schema": SCHEMA, "key": asdict(key), **figures.to_dict()}
    return atomic_write_text(key.path(root), json.dumps(data, indent=2, sort_keys=True) + "\n")


def recorded_baseline(key: BaselineKey, *, root: Path | None = None) -> Baseline | None:
    """The baseline recorded for ``key``, or None (none yet, another schema, unreadable: the
    report then says it has none, which is the truth)."""
    path = key.path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != SCHEMA or data.get("key") != asdict(key):
            return None
        return Baseline(figures_from_dict(data), "recorded", path)
    except (OSError, ValueError, RecursionError, KeyError, TypeError, AttributeError):
        return None


def figures_from_dict(data: Mapping[str, Any]) -> BuildFigures:
    """:class:`BuildFigures` from their JSON (a cache record, or a report.json's figures)."""
    return BuildFigures(
        output_dir=str(data["output_dir"]),
        target=str(data["target"]),
        flavour=str(data["flavour"]),
        commit=data.get("commit"),
        stock=bool(data["stock"]),
        created=data.get("created"),
        size_profile=data.get("size_profile"),
        artifacts=tuple(
            ArtifactFigures(
                name=str(item["name"]),
                size=int(item["size"]),
                sha256=item.get("sha256"),
                groups={str(k): int(v) for k, v in item.get("groups", {}).items()},
                files={str(k): int(v) for k, v in item.get("files", {}).items()},
            )
            for item in data["artifacts"]
        ),
    )


def mismatches(figures: BuildFigures, baseline: BuildFigures) -> tuple[str, ...]:
    """How a baseline differs from a fair one for ``figures``: not stock, or of another tree,
    target, flavour or size profile. Empty when it is the build the key would have found."""
    found = []
    if not baseline.stock:
        found.append("it is a selective build itself, not a stock one")
    for label, mine, theirs in (
        ("tree commit", figures.commit, baseline.commit),
        ("target", figures.target, baseline.target),
        ("flavour", figures.flavour, baseline.flavour),
        ("size profile", figures.size_profile, baseline.size_profile),
    ):
        if mine != theirs:
            found.append(f"its {label} is {theirs or 'unknown'}, this build's {mine or 'unknown'}")
    return tuple(found)
