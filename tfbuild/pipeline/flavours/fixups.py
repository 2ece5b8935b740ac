"""Toolchain fix-ups: what an older TensorFlow's own build scripts need in order to build with
today's compilers, applied in the open.

A TF 1.x tree's ``compile_nsync.sh`` builds nsync with ``-Werror``, and gcc 8 and later warn
there; a user who hits that error edits a downloaded script by hand and never finds out what it
changed. tfbuild instead keeps each fix-up as data (``toolchains/tensorflow/fixups.toml``): the steps it
applies to, the tree versions it is for, and how it acts. It acts through make's command-line
variables (``MAKEFLAGS``), which override a Makefile's own assignments without editing a file
of the tree. The plan lists every applied fix-up with its reason, its step is named after it and
logs it when it runs, and the manifest records it.

A fix-up may be for one kind of step only (``when``/``unless``: the step's tags, e.g. the steps
of the Makefile flavour's clang adapter for Android), put words first in a variable the step
gives on make's command line (``prepend_make_variables``), put directories first in a search path
the step's make exports (``search_paths``), or run a script of its own just before the step
(``script``, a template under ``templates/``, with ``script_args``; one edits a downloaded,
git-ignored dependency and logs what it changed), or make a literal edit of a downloaded source
file described as data (``edit``, a :class:`SourceEdit`: the text to find, what replaces it or
the line added after it, and what the file must and must not hold), by a logged step of its own
that changes nothing where the file is not exactly like that. Its strings, except an edit's
(source text, taken as it is), may hold ``{placeholders}`` that the planner of those steps
supplies (``apply_fixups(values=...)``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from tfbuild.config import Check, read_toml
from tfbuild.errors import ConfigError
from tfbuild.pipeline.planning.plan import AppliedFixup, Step
from tfbuild.resources import toolchains_dir
from tfbuild.templating import render
from tfbuild.tree.facts import TensorFlowVersion

FIXUPS_FILE = Path("tensorflow") / "fixups.toml"


def _version_range(bounds: tuple[str, ...]) -> None:
    if len(bounds) != 2:
        raise ConfigError(f"expected [since, before], got {list(bounds)}")
    for bound in bounds:
        if bound and not all(part.isdigit() for part in bound.split(".")):
            raise ConfigError(f"'{bound}' is not MAJOR.MINOR")


@dataclass(frozen=True)
class SourceEdit:
    """A literal edit of a downloaded (git-ignored) source file: in every line that holds
    ``find``, ``find`` replaced by ``replace``, or the line ``add_line`` added after that line.

    The step that makes it (:data:`EDIT_SCRIPT`) changes nothing, and says why, when the file is
    not there, lacks one of ``if_contains`` or ``find``, or holds one of ``unless_contains`` (the
    fix already in). A second run must find nothing to change: what the edit puts in either no
    longer holds ``find`` or holds one of ``unless_contains``. Every text is one line, taken
    as it is (no placeholders, no patterns)."""

    file: str
    """Relative to the step's working directory (the tree's root)."""
    find: str
    replace: str | None = None
    add_line: str | None = None
    if_contains: tuple[str, ...] = ()
    unless_contains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.replace is None) == (self.add_line is None):
            raise ConfigError("an edit needs either 'replace' or 'add_line'")
        if not self.find:
            raise ConfigError("an edit needs a 'find' text")
        if self.file.startswith("/") or ".." in self.file.split("/"):
            raise ConfigError(f"'{self.file}' is not a path inside the tree")
        texts = (self.file, self.find, self.added, *self.if_contains, *self.unless_contains)
        if any("\n" in text or not text for text in texts):
            raise ConfigError("an edit's texts must each be one non-empty line")
        stays = self.add_line is not None or self.find in self.added
        if stays and not any(done in self.added for done in self.unless_contains):
            raise ConfigError(
                f"a second run would edit again: '{self.find}' stays, so 'unless_contains' needs a text of "
                f"'{self.added}'"
            )

    @property
    def added(self) -> str:
        """The text the edit puts in: the replacement or the added line."""
        text = self.replace if self.replace is not None else self.add_line
        assert text is not None
        return text

    def script_args(self) -> tuple[str, ...]:
        """:data:`EDIT_SCRIPT`'s arguments: ``FILE FIND replace|add-line TEXT``, then each
        condition, ``+TEXT`` (the file must hold it) or ``-TEXT`` (the file must not)."""
        mode = "replace" if self.replace is not None else "add-line"
        return (self.file, self.find, mode, self.added, *(f"+{text}" for text in self.if_contains),
                *(f"-{text}" for text in self.unless_contains))


EDIT_SCRIPT = "steps/source_edit.sh"
"""The template of an ``edit`` fix-up's step (:class:`SourceEdit`), run as ``bash -c`` with its arguments."""


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
    when: tuple[str, ...] = ()
    """Tags a step must all have (:attr:`Step.tags`) for the fix-up to apply to it."""
    unless: tuple[str, ...] = ()
    """Tags that keep the fix-up off a step."""
    prepend_make_variables: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Words put first in a ``NAME=VALUE`` argument of the step's make command line (added
    when the step gives no such variable)."""
    search_paths: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Directories put first in a search-path variable (``LD_LIBRARY_PATH``) that the step's make
    exports to its recipes, the build's own value kept after them (:func:`search_path_word`)."""
    script: str | None = None
    """A template under ``templates/`` run as ``bash -c <script> bash ARGS...`` by a step of
    its own just before the step."""
    script_args: tuple[str, ...] = ()
    edit: SourceEdit | None = None
    """A literal edit of a downloaded source file, made by a step of its own just before the step."""
    tree: tuple[str, ...] = ()
    """Facts of the tree the fix-up is for (``protobuf-fetches-gmock``: the tree's protobuf
    downloads gmock, :mod:`tfbuild.tree.protobuf_pin`): a version range alone would let its
    reason claim what the tree does not do."""

    def applies_to(self, version: TensorFlowVersion, tree_facts: frozenset[str] | None = None) -> bool:
        """For a tree at ``version`` with ``tree_facts`` (None: not read, every fact taken as true)."""
        since, before = (_minor(bound) for bound in self.tensorflow)
        in_range = (since is None or version.minor_version >= since) and (
            before is None or version.minor_version < before
        )
        return in_range and (tree_facts is None or set(self.tree) <= tree_facts)

    def fits(self, step: Step) -> bool:
        """Whether the fix-up is for ``step``: by the start of its name and by its tags."""
        return (
            step.name.startswith(self.steps)
            and set(self.when) <= step.tags
            and not set(self.unless) & step.tags
        )

    @property
    def acts_on_step(self) -> bool:
        """Whether it changes the step itself (rather than only adding a step before it)."""
        return bool(self.make_variables or self.prepend_make_variables or self.search_paths)


@dataclass(frozen=True)
class FixupTable:
    fixups: tuple[Fixup, ...]


@functools.cache
def fixup_table(path: Path | None = None) -> FixupTable:
    """``toolchains/tensorflow/fixups.toml`` (or ``path``), read and checked."""
    return read_toml(FixupTable, path or toolchains_dir() / FIXUPS_FILE)


def apply_fixups(
    steps: Sequence[Step],
    version: TensorFlowVersion,
    table: FixupTable | None = None,
    *,
    values: Mapping[str, str] | None = None,
    tree_facts: frozenset[str] | None = None,
) -> tuple[tuple[Step, ...], tuple[AppliedFixup, ...]]:
    """``steps`` with every fix-up for a tree at ``version`` with ``tree_facts`` (None: not
    read) folded into the steps it is for (their name says so), and the list of what was
    applied, in step order. ``values`` fill the placeholders of the fix-ups that apply, their
    reasons' too. A fix-up's step of its own is planned once: the host and the cross protobuf
    builds both fit ``build protobuf``, and the second ``mkdir`` of the same directory would do
    nothing but list the fix-up twice."""
    fixups = [_filled(fixup, values or {}) for fixup in (table or fixup_table()).fixups
              if fixup.applies_to(version, tree_facts)]
    changed: list[Step] = []
    applied: list[AppliedFixup] = []
    for step in steps:
        mine = [fixup for fixup in fixups if fixup.fits(step)]
        fixed = _with_fixups(step, mine) if mine else step
        for fixup in mine:
            for own in _own_steps(step, fixup):
                if not any(own.argv == done.argv and own.workdir == done.workdir for done in changed):
                    changed.append(own)
                    applied.append(AppliedFixup(fixup.name, fixup.why, own.name))
        applied.extend(AppliedFixup(fixup.name, fixup.why, fixed.name) for fixup in mine if fixup.acts_on_step)
        changed.append(fixed)
    return tuple(changed), tuple(applied)


def _own_steps(step: Step, fixup: Fixup) -> list[Step]:
    """The steps of its own ``fixup`` runs just before ``step``."""
    own = [_directories_step(step, fixup)] if fixup.directories else []
    if fixup.script is not None:
        own.append(_script_step(step, fixup))
    if fixup.edit is not None:
        own.append(_edit_step(step, fixup, fixup.edit))
    return own


def _filled(fixup: Fixup, values: Mapping[str, str]) -> Fixup:
    """``fixup`` with its placeholders filled; one that names a value the planner did not give
    keeps them (it applies to no step of that planner). Its reason is filled on its own, so a
    reason may name what the planner read in the tree (``{protobuf}``) whatever the steps need."""
    with contextlib.suppress(KeyError):
        fixup = dataclasses.replace(fixup, why=fixup.why.format_map(values))
    try:
        return dataclasses.replace(
            fixup,
            make_variables={name: value.format_map(values) for name, value in fixup.make_variables.items()},
            prepend_make_variables={
                name: value.format_map(values) for name, value in fixup.prepend_make_variables.items()
            },
            search_paths={name: value.format_map(values) for name, value in fixup.search_paths.items()},
            script_args=tuple(arg.format_map(values) for arg in fixup.script_args),
        )
    except KeyError:
        return fixup


def _with_fixups(step: Step, fixups: Sequence[Fixup]) -> Step:
    """``step`` named after ``fixups``, with their variables and their reasons as notes."""
    fixups = [fixup for fixup in fixups if fixup.acts_on_step]
    if not fixups:
        return step
    for fixup in fixups:
        _check_filled(fixup)
        step = _with_make_variables(step, fixup.make_variables)
        step = _with_prepended_variables(step, fixup.prepend_make_variables)
        step = dataclasses.replace(
            step, argv=(*step.argv, *(search_path_word(name, value) for name, value in fixup.search_paths.items()))
        )
    names = ", ".join(fixup.name for fixup in fixups)
    return dataclasses.replace(
        step, name=f"{step.name} [fix-up: {names}]", notes=(*step.notes, *(_note(fixup) for fixup in fixups))
    )


def _check_filled(fixup: Fixup) -> None:
    words = (
        *fixup.make_variables.values(),
        *fixup.prepend_make_variables.values(),
        *fixup.search_paths.values(),
        *fixup.script_args,
    )
    if any("{" in word for word in words):
        raise ValueError(f"fix-up {fixup.name}: a placeholder of {words} was not given by the planner")


def _with_prepended_variables(step: Step, variables: Mapping[str, str]) -> Step:
    """``step`` with ``variables``' words put first in its make command line's ``NAME=VALUE``."""
    argv = list(step.argv)
    for name, words in variables.items():
        at = next((index for index, arg in enumerate(argv) if arg.startswith(f"{name}=")), None)
        if at is None:
            argv.append(f"{name}={words}")
        else:
            current = argv[at].split("=", 1)[1]
            argv[at] = f"{name}={words} {current}" if current else f"{name}={words}"
    return dataclasses.replace(step, argv=tuple(argv))


def search_path_word(name: str, directory: str) -> str:
    """The make command-line word that puts ``directory`` first in the search path ``name``.

    A variable given on make's command line is exported to every recipe. Given with ``:=`` it is
    expanded once, when make reads its command line, where ``$(NAME)`` is still the value make
    got from its environment: so the build's own path stays, after ``directory``, and an empty
    one adds no empty entry (which the loader would take for the working directory)."""
    return f"{name}:={directory}$(if $({name}),:$({name}))"


def _script_step(step: Step, fixup: Fixup) -> Step:
    """The step of its own that runs ``fixup.script`` before ``step``."""
    assert fixup.script is not None
    _check_filled(fixup)
    return _own_step(step, fixup, ("bash", "-c", render(fixup.script), "bash", *fixup.script_args))


def _edit_step(step: Step, fixup: Fixup, edit: SourceEdit) -> Step:
    """The step of its own that makes ``edit`` before ``step``."""
    return _own_step(step, fixup, ("bash", "-c", render(EDIT_SCRIPT), "bash", *edit.script_args()))


def _directories_step(step: Step, fixup: Fixup) -> Step:
    """The step of its own that makes ``fixup.directories`` before ``step``."""
    return _own_step(step, fixup, ("mkdir", "-p", *fixup.directories), tagged=False)


def _own_step(step: Step, fixup: Fixup, argv: tuple[str, ...], *, tagged: bool = True) -> Step:
    """A fix-up's step of its own, run just before ``step`` where it runs, named and noted after
    the fix-up; ``tagged`` gives it ``step``'s tags (so later fix-ups for those tags see it)."""
    return Step(f"fix-up: {fixup.name}", argv, step.workdir, notes=(f"fix-up {fixup.name}: {fixup.why}",),
                tags=step.tags if tagged else frozenset())


def _with_make_variables(step: Step, variables: Mapping[str, str]) -> Step:
    """``step`` with ``variables`` added to the ``MAKEFLAGS`` its make reads."""
    if not variables:
        return step
    words = [step.env["MAKEFLAGS"]] if step.env.get("MAKEFLAGS") else []
    words.append(make_flags(variables))
    return dataclasses.replace(step, env={**step.env, "MAKEFLAGS": " ".join(words)})


def make_flags(variables: Mapping[str, str]) -> str:
    """``variables`` as ``MAKEFLAGS`` words: GNU make takes ``NAME=VALUE`` words there as
    command-line definitions, spaces escaped with a backslash."""
    return " ".join(f"{name}={value.replace(' ', chr(92) + ' ')}" for name, value in variables.items())


def _note(fixup: Fixup) -> str:
    """The log line of a fix-up that acts through make's variables."""
    parts = []
    if fixup.make_variables:
        parts.append("make variables: " + " ".join(f"{name}='{value}'" for name, value in fixup.make_variables.items()))
    if fixup.prepend_make_variables:
        parts.append("first in the command line's " + ", ".join(
            f"{name}: '{value}'" for name, value in fixup.prepend_make_variables.items()
        ))
    if fixup.search_paths:
        parts.append("first in the recipes' " + ", ".join(
            f"{name}: '{value}'" for name, value in fixup.search_paths.items()
        ))
    return f"fix-up {fixup.name}: {fixup.why}; {'; '.join(parts)}"


def _minor(bound: str) -> tuple[int, int] | None:
    if not bound:
        return None
    major, minor = bound.split(".")
    return (int(major), int(minor))
