"""Toolchain fix-ups: what an older TensorFlow's own build scripts need in order to build with
today's compilers, applied in the open.

A TF 1.x tree's ``compile_nsync.sh`` builds nsync with ``-Werror``, and gcc 8 and later warn
there; a user who hits that error edits a downloaded script by hand and never finds out what it
changed. tfbuild instead keeps each fix-up as data (``toolchains/tensorflow/fixups.toml``): the steps it
applies to, the tree versions it is for, and how it acts. It acts through make's command-line
variables (``MAKEFLAGS``), which override a Makefile's own assignments without editing a file
of the tree. The plan lists every applied fix-up with its reason, its step is named after it and
logs it when it runs, and the manifest records it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from tfbuild.build.plan import AppliedFixup, Step
from tfbuild.config import Check, read_toml
from tfbuild.errors import ConfigError
from tfbuild.resources import toolchains_dir
from tfbuild.tree.facts import TensorFlowVersion

FIXUPS_FILE = Path("tensorflow") / "fixups.toml"


def _version_range(bounds: tuple[str, ...]) -> None:
    if len(bounds) != 2:
        raise ConfigError(f"expected [since, before], got {list(bounds)}")
    for bound in bounds:
        if bound and not all(part.isdigit() for part in bound.split(".")):
            raise ConfigError(f"'{bound}' is not MAJOR.MINOR")


@dataclass(frozen=True)
class Fixup:
    name: str
    why: str
    steps: str
    tensorflow: Annotated[tuple[str, ...], Check(_version_range)]
    make_variables: Mapping[str, str] = dataclasses.field(default_factory=dict)
    directories: tuple[str, ...] = ()
    """Directories (relative to the step's working directory) made by a step of their own
    just before the step, e.g. to stand in for what a script would otherwise download."""

    def applies_to(self, version: TensorFlowVersion) -> bool:
        since, before = (_minor(bound) for bound in self.tensorflow)
        return (since is None or version.minor_version >= since) and (
            before is None or version.minor_version < before
        )


@dataclass(frozen=True)
class FixupTable:
    fixups: tuple[Fixup, ...]


@functools.cache
def fixup_table(path: Path | None = None) -> FixupTable:
    """``toolchains/tensorflow/fixups.toml`` (or ``path``), read and checked."""
    return read_toml(FixupTable, path or toolchains_dir() / FIXUPS_FILE)


def apply_fixups(
    steps: Sequence[Step], version: TensorFlowVersion, table: FixupTable | None = None
) -> tuple[tuple[Step, ...], tuple[AppliedFixup, ...]]:
    """``steps`` with every fix-up for a tree at ``version`` folded into the steps it names
    (their name says so), and the list of what was applied, in step order."""
    fixups = [fixup for fixup in (table or fixup_table()).fixups if fixup.applies_to(version)]
    changed: list[Step] = []
    applied: list[AppliedFixup] = []
    for step in steps:
        mine = [fixup for fixup in fixups if step.name.startswith(fixup.steps)]
        fixed = _with_fixups(step, mine) if mine else step
        for fixup in mine:
            if fixup.directories:
                changed.append(_directories_step(step, fixup))
                applied.append(AppliedFixup(fixup.name, fixup.why, changed[-1].name))
            if fixup.make_variables:
                applied.append(AppliedFixup(fixup.name, fixup.why, fixed.name))
        changed.append(fixed)
    return tuple(changed), tuple(applied)


def _with_fixups(step: Step, fixups: Sequence[Fixup]) -> Step:
    """``step`` named after ``fixups``, with their variables and their reasons as notes."""
    fixups = [fixup for fixup in fixups if fixup.make_variables]
    if not fixups:
        return step
    for fixup in fixups:
        step = _with_make_variables(step, fixup.make_variables)
    names = ", ".join(fixup.name for fixup in fixups)
    return dataclasses.replace(
        step, name=f"{step.name} [fix-up: {names}]", notes=(*step.notes, *(_note(fixup) for fixup in fixups))
    )


def _directories_step(step: Step, fixup: Fixup) -> Step:
    """The step of its own that makes ``fixup.directories`` before ``step``."""
    return Step(
        f"fix-up: {fixup.name}",
        ("mkdir", "-p", *fixup.directories),
        step.workdir,
        notes=(f"fix-up {fixup.name}: {fixup.why}",),
    )


def _with_make_variables(step: Step, variables: Mapping[str, str]) -> Step:
    """``step`` with ``variables`` added to the ``MAKEFLAGS`` its make reads: GNU make takes
    ``NAME=VALUE`` words there as command-line definitions, spaces escaped with a backslash."""
    words = [step.env["MAKEFLAGS"]] if step.env.get("MAKEFLAGS") else []
    words += [f"{name}={value.replace(' ', chr(92) + ' ')}" for name, value in variables.items()]
    return dataclasses.replace(step, env={**step.env, "MAKEFLAGS": " ".join(words)})


def _note(fixup: Fixup) -> str:
    """The log line of a fix-up that acts through make's variables."""
    variables = " ".join(f"{name}='{value}'" for name, value in fixup.make_variables.items())
    return f"fix-up {fixup.name}: {fixup.why}; make variables: {variables}"


def _minor(bound: str) -> tuple[int, int] | None:
    if not bound:
        return None
    major, minor = bound.split(".")
    return (int(major), int(minor))
