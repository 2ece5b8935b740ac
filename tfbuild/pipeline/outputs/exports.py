"""What a shared library exports: the few entry points its users call, and nothing else.

A shared library exports every global symbol by default, and the linker must keep whatever is
exported, so ``--gc-sections`` (``-dead_strip``) can drop little from it. An export list makes
everything else local: for a JNI library the Java VM calls ``JNI_OnLoad``/``JNI_OnUnload`` and
the ``Java_*`` native methods; for a C/C++ app's plugin it is an explicit list; an op library
exports nothing at all, because TensorFlow finds its kernels through the registrations its static
initializers make when it is loaded, never by symbol name.

An :class:`ExportList` renders (:func:`render_export_file`) for the linker that links the
library (:data:`~tfbuild.toolchain.targets.Linker`): a GNU version script for GNU ld, gold and
lld (``templates/linkflags/version_script.j2``), an exported-symbols list for Apple's ld64
(``exported_symbols.j2``: a leading underscore, one name a line), with the flag that passes it.

Names are C identifiers, or glob patterns of them with ``*`` and ``?``. A C++ function is named
by its mangled name (``_ZN...``, itself an identifier), or better given ``extern "C"``:
version scripts could take demangled names in an ``extern "C++"`` block, but ld64 has no such
form, and one list must mean the same on every linker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from tfbuild import __version__
from tfbuild.errors import ConfigError
from tfbuild.templating import render
from tfbuild.toolchain.targets import Linker

_SYMBOL = re.compile(r"[A-Za-z_*?][A-Za-z0-9_*?]*")


def check_symbol(symbol: str) -> str:
    """``symbol`` if it is a C identifier or a glob pattern of one (``Java_*``), else a
    :class:`~tfbuild.errors.ConfigError` naming it."""
    if not _SYMBOL.fullmatch(symbol):
        raise ConfigError(
            f"cannot export {symbol!r}: not a C symbol name or a pattern of one",
            hint="use letters, digits and '_' (not first: a digit), with '*' or '?' as wildcards; "
            'a C++ function by its mangled name or declared extern "C"',
        )
    if not symbol.strip("*?"):
        raise ConfigError(
            f"cannot export {symbol!r}: it matches every symbol",
            hint="leave out the export list to export everything",
        )
    return symbol


@dataclass(frozen=True)
class ExportList:
    """The symbols a shared library exports, by exact name or pattern; every other symbol
    becomes local. ``optional`` names are exported when the library defines them and ignored
    when it does not (lld 16 and later and ld64 refuse an exact name the library lacks)."""

    description: str
    symbols: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    why: str = ""
    """One line for the file's comment: who calls these symbols."""

    def __post_init__(self) -> None:
        for symbol in (*self.symbols, *self.optional):
            check_symbol(symbol)

    def patterns(self) -> tuple[str, ...]:
        """What the file lists, in order and without repeats: each ``optional`` name as a
        pattern that matches that name alone (``JNI_OnLoa[d]``), which linkers do not ask the
        library to define, then ``symbols`` as given."""
        listed = (*(_sole_match(name) for name in self.optional if name not in self.symbols), *self.symbols)
        return tuple(dict.fromkeys(listed))

    def with_symbols(self, symbols: tuple[str, ...], description: str) -> ExportList:
        """This list and ``symbols`` besides."""
        return ExportList(description, (*self.symbols, *symbols), self.optional, self.why)


JNI = ExportList(
    "JNI",
    symbols=("Java_*",),
    optional=("JNI_OnLoad", "JNI_OnUnload"),
    why="The Java VM calls JNI_OnLoad and JNI_OnUnload, when the library defines them, and the Java_* native methods.",
)
"""A JNI library: the native methods by their ``Java_`` names and the load/unload hooks."""

OP_LIBRARY = ExportList(
    "op library",
    why="TensorFlow finds an op library's ops and kernels through the registrations its static "
    "initializers make when it is loaded, never by symbol name.",
)
"""An op library exports nothing."""


def requested_exports(symbols: tuple[str, ...], *, jni: bool) -> ExportList | None:
    """The export list ``--export SYMBOL`` (repeated) and ``--jni`` ask for; None for neither."""
    if jni:
        return JNI.with_symbols(symbols, "JNI and --export") if symbols else JNI
    if symbols:
        return ExportList("--export", symbols, why="The symbols given with tfbuild linkflags --export.")
    return None


@dataclass(frozen=True)
class ExportFile:
    """An export list rendered for one linker: the file's name and text."""

    linker: Linker
    file_name: str
    text: str

    def link_flag(self, path: PurePath | str) -> str:
        """The flag that links with this file at ``path`` (as the link sees it)."""
        return export_flag(self.linker, path)


_FORMATS: dict[Linker, tuple[str, str]] = {
    "bfd": ("version_script.j2", ".version"),
    "gold": ("version_script.j2", ".version"),
    "lld": ("version_script.j2", ".version"),
    "ld64": ("exported_symbols.j2", ".exports"),
}


def render_export_file(exports: ExportList, linker: Linker, stem: str = "tensorflow") -> ExportFile:
    """``exports`` as ``linker`` reads it, in ``<stem>.version`` (a GNU version script) or
    ``<stem>.exports`` (ld64's exported-symbols list)."""
    template, suffix = _FORMATS[linker]
    text = render(
        f"linkflags/{template}",
        tfbuild_version=__version__,
        description=exports.description,
        why=exports.why,
        patterns=exports.patterns(),
        optional=tuple(name for name in exports.optional if name not in exports.symbols),
    )
    return ExportFile(linker=linker, file_name=f"{stem}{suffix}", text=text)


def export_flag(linker: Linker, path: PurePath | str) -> str:
    """``-Wl,--version-script=PATH``, or ``-Wl,-exported_symbols_list,PATH`` for ld64."""
    if "," in str(path):
        raise ConfigError(
            f"{path}: an export file's path cannot hold a comma (-Wl, splits there)",
            hint="write it to a directory whose path has none",
        )
    if linker == "ld64":
        return f"-Wl,-exported_symbols_list,{path}"
    return f"-Wl,--version-script={path}"


def _sole_match(name: str) -> str:
    """A glob pattern that matches ``name`` and nothing else: its last character in brackets
    (a name that is a pattern already stays as it is)."""
    if any(char in name for char in "*?"):
        return name
    return f"{name[:-1]}[{name[-1]}]"
