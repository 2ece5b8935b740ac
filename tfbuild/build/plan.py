"""A build as data: what image, which mounts, which commands, which files to generate, what comes out.

Flavour modules (Makefile, Bazel, ops-library) compute a :class:`BuildPlan` without touching
Docker, so ``tfbuild build --dry-run`` and golden tests can show every command; the executor runs
the same plan in a toolchain container (or locally with ``--local``). Keeping the two apart is
what makes the Android and iOS plans testable on a machine that has neither an NDK nor Xcode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tfbuild.flavour import Flavour
from tfbuild.toolchain.image_spec import ImageSpec, Mount

__all__ = ["Artifact", "BuildPlan", "GeneratedFile", "ImageSpec", "Mount", "Step"]


@dataclass(frozen=True)
class Step:
    """One command of the build, as an argv list (never a shell string built from user input)."""

    name: str
    argv: tuple[str, ...]
    workdir: PurePosixPath
    env: Mapping[str, str] = field(default_factory=dict)
    skip_if_exists: PurePosixPath | None = None
    """Skip the step when this path already exists (e.g. a filled ``downloads/`` for offline CI)."""
    log: Path | None = None
    """A file on this machine that gets this step's output on its own (one compiler log per
    source), besides the build's log, which gets every step's."""
    parallel: bool = False
    """The step may run at the same time as the parallel steps next to it (one compile per source)."""


@dataclass(frozen=True)
class GeneratedFile:
    """A file tfbuild writes on the host before the build (header, WORKSPACE block, ...)."""

    path: Path
    content: str


@dataclass(frozen=True)
class Artifact:
    """A build output: where the build leaves it, and the name it gets in the output directory."""

    path: PurePosixPath
    name: str
    kind: str  # "static-lib", "shared-lib", "aar", "header", ...


@dataclass(frozen=True)
class BuildPlan:
    """Everything needed to run one target's build, computed before anything runs."""

    target: str
    flavour: Flavour
    image: ImageSpec | None  # None for --local builds
    mounts: tuple[Mount, ...]
    steps: tuple[Step, ...]
    generated_files: tuple[GeneratedFile, ...]
    artifacts: tuple[Artifact, ...]
    output_dir: Path
    env: Mapping[str, str] = field(default_factory=dict)
