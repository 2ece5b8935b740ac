"""One optimisation level per compile line.

A compile line that names two ``-O`` levels (the contrib Makefile's ``-O2``, then a size
profile's ``-Os``) builds what its last one says, but leaves which level the build means to
argument order, and a reader of the manifest's recorded commands must know gcc's rule to tell.
Every compile command tfbuild composes keeps only the level that would have won: the profile's,
or the user's ``--extra-cflag`` after it.
"""

from __future__ import annotations

from collections.abc import Iterable


def is_optimisation_level(flag: str) -> bool:
    """``-O``, ``-O0`` ... ``-O3``, ``-Os``, ``-Oz``, ``-Ofast``, ``-Og``: no other gcc or clang
    flag starts with ``-O``."""
    return flag.startswith("-O")


def one_optimisation_level(flags: Iterable[str]) -> tuple[str, ...]:
    """``flags`` with only their last ``-O`` level, the one the compiler would obey anyway."""
    flags = tuple(flags)
    levels = [at for at, flag in enumerate(flags) if is_optimisation_level(flag)]
    return tuple(flag for at, flag in enumerate(flags) if not is_optimisation_level(flag) or at == levels[-1])
