"""Mobile type trimming: whether a mobile build compiles with ``__ANDROID_TYPES_SLIM__``.

TensorFlow's kernels shrink on mobile in a second way besides selective registration. Under
``__ANDROID_TYPES_SLIM__`` the element-wise kernels' ``REGISTERn`` macros
(``kernels/cwise_ops_common.h``) register only their first type (float), a few files add back
an int32 kernel, the second shard of a sharded op (``cwise_op_add_2.cc``) registers nothing,
and some kernels compute less (``AddN`` adds two inputs only). ``__ANDROID_TYPES_FULL__`` keeps
everything. The contrib Makefile's ``ANDROID_TYPES`` and Bazel's ``--copt`` choose between them.

The choice is the model's, never a guess: :func:`choose_mobile_types` reads the files that
register the kernels the models need again, as a compiler would with ``-D__ANDROID_TYPES_SLIM__``
(:class:`~tfbuild.cpp.scan.TreeReader` with that define), and takes the slim set only when every
needed kernel class is still registered there and no needed op is one whose kernel computes
less under it (``toolchains/tensorflow/mobile_types.toml``). Otherwise the full set, and the plan
says which kernel or op decided it. ``--mobile-types slim`` is refused when it would drop a
needed kernel; ``full`` is always allowed (an app that loads other models later wants it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from tfbuild.config import read_toml
from tfbuild.errors import ConfigError
from tfbuild.resources import toolchains_dir

if TYPE_CHECKING:  # the option parser imports this module: the scanner only when choosing
    from tfbuild.tree.kernel_index import KernelIndex, KernelRegistration
    from tfbuild.tree.needs import KernelNeed

DATA_FILE = "tensorflow/mobile_types.toml"
MobileTypesMode = Literal["auto", "slim", "full"]
MOBILE_TYPES_MODES: tuple[str, ...] = get_args(MobileTypesMode)
SLIM = "__ANDROID_TYPES_SLIM__"
FULL = "__ANDROID_TYPES_FULL__"


@dataclass(frozen=True)
class MobileTypes:
    """The type set a mobile build compiles with, and why (one line for the plan)."""

    slim: bool
    why: str

    @property
    def define(self) -> str:
        return SLIM if self.slim else FULL

    @property
    def flag(self) -> str:
        """The compiler flag: ``-D__ANDROID_TYPES_SLIM__`` or ``-D__ANDROID_TYPES_FULL__``."""
        return f"-D{self.define}"

    def description(self) -> str:
        """The define and why it was chosen, for the plan's note on the mobile types."""
        return f"{self.define}: {self.why}"


@dataclass(frozen=True)
class MobileTypesData:
    """``toolchains/tensorflow/mobile_types.toml``."""

    computes_less: dict[str, str]
    """Ops whose kernel computes less under the slim set (same registration): op -> what changes."""


@functools.cache
def slim_behaviour_ops() -> Mapping[str, str]:
    """Ops whose kernel computes less under the slim set (same registration): op -> what changes."""
    return read_toml(MobileTypesData, toolchains_dir() / DATA_FILE).computes_less


def choose_mobile_types(
    root: Path,
    index: KernelIndex,
    needs: Iterable[KernelNeed],
    *,
    mode: MobileTypesMode = "auto",
) -> MobileTypes:
    """The type set for a mobile build of the tree at ``root`` whose models need ``needs``
    (their kernel classes as the tree names them; ``index`` is the tree's kernel index)."""
    if mode == "full":
        return MobileTypes(False, "asked for (--mobile-types full): every type each kernel file registers")
    needs = tuple(needs)
    reason = _why_not_slim(root, index, needs)
    if reason is None:
        checked = sum(len(need.kernel_classes) or 1 for need in needs)
        why = (f"every kernel the models need ({checked} for {len(needs)} ops) is still registered with it, "
               "and none of their ops computes less under it")
        return MobileTypes(True, ("asked for (--mobile-types slim); " if mode == "slim" else "") + why)
    if mode == "slim":
        raise ConfigError(
            f"--mobile-types slim would break the models: {reason}",
            hint="leave --mobile-types at auto (tfbuild then compiles with __ANDROID_TYPES_FULL__), or pass full",
        )
    return MobileTypes(False, f"the slim set would not do: {reason}")


def _why_not_slim(root: Path, index: KernelIndex, needs: tuple[KernelNeed, ...]) -> str | None:
    """Why the slim set would break ``needs`` (the first reason found), or None."""
    from tfbuild.tree.needs import need_registrations, serves_cpu, squash
    behaviour = slim_behaviour_ops()
    for need in needs:
        if need.op in behaviour:
            return f"{need.op}: {behaviour[need.op]}"
    chosen = {need: tuple(r for r in need_registrations(need, index) if serves_cpu(r.device)) for need in needs}
    slim = _slim_registrations(root, {r.file for registrations in chosen.values() for r in registrations})
    for need, registrations in chosen.items():
        if not registrations:
            continue  # the tree has no CPU kernel for it at all: the preflight says so
        classes = {squash(c) for c in need.kernel_classes} & {squash(r.kernel_class) for r in registrations}
        kept = slim.get(need.op, {})
        if classes:
            for registration in registrations:
                name = squash(registration.kernel_class)
                if name in classes and name not in kept:
                    return (f"{need.op}'s kernel {registration.kernel_class} ({registration.file}:{registration.line}) "
                            f"is not registered with {SLIM}")
        elif not kept:
            files = ", ".join(sorted({r.file for r in registrations}))
            return f"{need.op} has no CPU kernel left with {SLIM} ({files})"
    return None


def _slim_registrations(root: Path, files: Iterable[str]) -> dict[str, dict[str, KernelRegistration]]:
    """op -> squashed class -> registration, for the CPU kernels ``files`` register when
    compiled with the slim set."""
    from tfbuild.cpp.scan import TreeReader
    from tfbuild.tree.kernel_index import KernelRegistration
    from tfbuild.tree.needs import serves_cpu, squash

    reader = TreeReader(root, defines=(SLIM,))
    found: dict[str, dict[str, KernelRegistration]] = {}
    for relative in sorted(files):
        for registration in reader.scan(relative).registrations:
            if serves_cpu(registration.device):
                found.setdefault(registration.op, {})[squash(registration.kernel_class)] = KernelRegistration(
                    **vars(registration)
                )
    return found

