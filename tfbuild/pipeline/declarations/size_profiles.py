"""Size profiles: how much speed a build trades for a smaller binary, as data.

Selective registration drops the kernels a model does not use; what is left is still compiled
for speed. ``-Os``, function and data sections and ``--gc-sections -s`` make a binary a fraction
of the size, and slower, and most of that time is in a few kernels (convolutions, matrix
products, element-wise arithmetic; docs/size-profiles.md has the figures). So the profiles
(``toolchains/tensorflow/size_profiles.toml``) are:

- ``stock``: the tree's own flags, nothing added (the default);
- ``balanced``: ``-O2``, one section per function and datum, unreferenced sections dropped at
  link time, identical functions folded where the linker can, symbols stripped;
- ``small``: as balanced but ``-Os``, except the files registering the model's *hot* kernels
  (the data file's ``hot_ops`` the model uses, found through the tree's kernel index), which
  stay at ``-O2``.

Link flags depend on the linker (GNU ld has no identical code folding; Apple's ld64 dead-strips
instead of ``--gc-sections``), which each target's profile names per flavour
(:attr:`~tfbuild.toolchain.targets.MakefileProfile.linker`). :func:`apply_size_profile` turns a
profile, a linker and the hot files into the :class:`~tfbuild.pipeline.planning.plan.AppliedSizeProfile` a
plan carries, with a note for everything left out; each flavour then passes it its own way.

Link-time optimisation is left out: the main artifact is a static archive that the app's own
toolchain links, and LTO objects link only with the compiler (and linker plugin) that made them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from tfbuild.config import read_toml
from tfbuild.errors import ConfigError
from tfbuild.pipeline.declarations.option_kinds import SIZE_PROFILES_FILE
from tfbuild.pipeline.planning.plan import AppliedSizeProfile
from tfbuild.resources import toolchains_dir
from tfbuild.toolchain.targets import Linker

if TYPE_CHECKING:  # the option parser reads the profile names: keep its imports light
    from tfbuild.tree.kernel_index import KernelIndex
    from tfbuild.tree.needs import KernelNeed



@dataclass(frozen=True)
class SizeProfile:
    """One ``[profiles.<name>]``: what it adds (see the data file's comments)."""

    description: str
    cflags: tuple[str, ...]
    gc_sections: bool
    identical_code_folding: bool
    strip: bool
    hot_cflags: tuple[str, ...]


@dataclass(frozen=True)
class LinkerFlags:
    """One ``[linkers.<name>]``: the flags that linker takes for each link feature; an empty
    list means it has no such feature."""

    description: str
    gc_sections: tuple[str, ...]
    identical_code_folding: tuple[str, ...]
    strip: tuple[str, ...]
    select: tuple[str, ...] = ()
    """What makes the compiler driver link with this linker (``-fuse-ld=gold``), given before
    the features' flags whenever a profile adds any; empty for a driver's default linker."""


@dataclass(frozen=True)
class SizeProfiles:
    """``toolchains/tensorflow/size_profiles.toml``."""

    default: str
    profiles: Mapping[str, SizeProfile]
    linkers: Mapping[str, LinkerFlags]
    hot_ops: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.default not in self.profiles:
            raise ConfigError(f"default profile '{self.default}' is not in [profiles]")
        missing = sorted(set(get_args(Linker)) - set(self.linkers))
        if missing:
            raise ConfigError(
                f"no [linkers] entry for {', '.join(missing)}", hint="every linker a target may name needs one"
            )

    def profile(self, name: str) -> SizeProfile:
        if name not in self.profiles:
            raise ConfigError(f"unknown size profile '{name}'", hint=f"use one of: {', '.join(self.profiles)}")
        return self.profiles[name]


@functools.cache
def size_profiles(path: Path | None = None) -> SizeProfiles:
    """The size profiles (``toolchains/tensorflow/size_profiles.toml``, or ``path``), checked."""
    return read_toml(SizeProfiles, path or toolchains_dir() / SIZE_PROFILES_FILE)


def profile_names() -> tuple[str, ...]:
    """The profiles' names, in the data file's order (``stock`` first)."""
    return tuple(size_profiles().profiles)


def default_profile() -> str:
    return size_profiles().default


def hot_kernel_files(
    needs: Iterable[KernelNeed], index: KernelIndex, hot_ops: Iterable[str] | None = None
) -> tuple[str, ...]:
    """The tree's sources registering the CPU kernels ``needs`` asks for of a hot op (default:
    the data file's ``hot_ops``), sorted. Files are matched by kernel class, as the source edits
    match them (:mod:`tfbuild.tree.needs`); a need whose classes the tree does not register
    takes every CPU kernel file of its op."""
    from tfbuild.tree.needs import need_registrations

    hot = set(size_profiles().hot_ops if hot_ops is None else hot_ops)
    return tuple(sorted({r.file for need in needs if need.op in hot for r in need_registrations(need, index)}))


def apply_size_profile(
    name: str, *, linker: Linker, hot_files: Iterable[str] = (), links: bool = True
) -> AppliedSizeProfile:
    """Profile ``name`` for a build whose link uses ``linker``: its compile flags, the link flags
    that linker has, and ``hot_files`` when the profile compiles them apart. ``links=False`` is
    for a build that links nothing (a static archive): its link flags are the app's to use."""
    data = size_profiles()
    profile = data.profile(name)
    flags = data.linkers[linker]
    notes: list[str] = []
    wanted = [
        (profile.gc_sections, "unused-section removal", flags.gc_sections),
        (profile.identical_code_folding, "identical code folding", flags.identical_code_folding),
        (profile.strip, "stripping", flags.strip),
    ]
    ldflags: list[str] = []
    for asked, feature, given in wanted:
        if not asked:
            continue
        if not given:
            notes.append(f"no {feature}: the linker is {flags.description}, which has none")
        ldflags += given
    if ldflags:
        ldflags = [*flags.select, *ldflags]
    if ldflags and not links:
        notes.append(
            f"nothing is linked here: the app's link should add {' '.join(ldflags)} ({flags.description})"
        )
        ldflags = []
    hot = tuple(hot_files) if profile.hot_cflags else ()
    if profile.hot_cflags and not hot:
        notes.append(f"no hot kernel file: every object gets {' '.join(profile.cflags)}")
    return AppliedSizeProfile(
        name=name,
        description=profile.description,
        cflags=profile.cflags,
        ldflags=tuple(ldflags),
        hot_cflags=profile.hot_cflags if hot else (),
        hot_files=hot,
        notes=tuple(notes),
    )
