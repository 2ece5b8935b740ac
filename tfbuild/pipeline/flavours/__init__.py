"""Build plans, one module per flavour: the contrib Makefile, Bazel, and an app's op library.

:func:`plan_build` picks the flavour's planner (a :class:`FlavourPlanner`) from :data:`PLANNERS`
and hands it a :class:`~tfbuild.pipeline.flavours.layout.PlanRequest` (options, target profile,
header text, tree facts); the planner works out a :class:`~tfbuild.pipeline.flavours.layout.BuildLayout`, the paths
*as the build sees them*, in a toolchain container or on this machine (``--local``). Planners
only compute: nothing here runs a command or touches Docker, which is what lets the Android and
iOS plans be tested on a machine with neither an NDK nor Xcode.

Whatever differs between flavours in a build sits behind the planner: what it refuses
(``check``: a tree without the contrib Makefile, per-file selection outside it, an op library
without sources), what it needs before the models are analysed (``prepare``: an op library's
plain build for this machine) and its plan (``plan``: for the Makefile, with the protobuf rename
as one of its steps). The build's flow (:mod:`tfbuild.pipeline.run`) never asks which flavour it
is running; :func:`choose_flavour` only chooses one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final, Protocol

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.flavour import Flavour
from tfbuild.pipeline.declarations.options import BuildOptions
from tfbuild.pipeline.flavours import bazel, makefile, ops_library
from tfbuild.pipeline.flavours.layout import PlanRequest, Preparation, header_path
from tfbuild.pipeline.flavours.per_file_selection import PerFileSelection
from tfbuild.pipeline.op_library.compile_plan import InstalledTensorFlow
from tfbuild.pipeline.planning.plan import BuildPlan
from tfbuild.pipeline.planning.reproducible import EPOCH_VARIABLE, Reproducibility, choose_epoch
from tfbuild.toolchain.targets import TargetProfile, get_target
from tfbuild.tree.facts import TreeFacts
from tfbuild.tree.mobile_types import MobileTypes

__all__ = [
    "PLANNERS",
    "FlavourPlanner",
    "InstalledTensorFlow",
    "PlanRequest",
    "Preparation",
    "choose_flavour",
    "header_path",
    "plan_build",
]


class FlavourPlanner(Protocol):
    """What a flavour module provides (as cibuildwheel's platform modules provide ``build``)."""

    def check(self, options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None) -> None:
        """Refuse (a :class:`~tfbuild.errors.TfbuildError`) what this flavour cannot build."""
        ...

    def prepare(self, options: BuildOptions) -> Preparation:
        """What the flavour needs before the models are analysed; plans, runs nothing."""
        ...

    def plan(self, request: PlanRequest) -> BuildPlan:
        """The build's plan, every step of it."""
        ...


PLANNERS: Final[Mapping[Flavour, FlavourPlanner]] = {
    Flavour.MAKEFILE: makefile,
    Flavour.BAZEL: bazel,
    Flavour.OPS_LIBRARY: ops_library,
}


def plan_build(
    options: BuildOptions,
    *,
    header_text: str,
    tree: TreeFacts | None = None,
    tensorflow: InstalledTensorFlow | None = None,
    flavour: Flavour | None = None,
    hot_files: tuple[str, ...] = (),
    kernel_files: tuple[str, ...] = (),
    mobile_types: MobileTypes | None = None,
    selection: PerFileSelection | None = None,
) -> BuildPlan:
    """The plan for ``options``: which flavour (``flavour``, else :func:`choose_flavour`), then
    that flavour's planner. ``tree`` is required for the Makefile and Bazel flavours,
    ``tensorflow`` for op libraries; ``hot_files`` are the tree's sources of the model's hot
    kernels, for the size profile; ``kernel_files`` those of all its kernels, for a lite build;
    ``mobile_types`` the type set of a mobile build."""
    profile = get_target(options.target)
    chosen = Flavour(flavour) if flavour else choose_flavour(options, profile, tree)
    request = PlanRequest(options, profile, chosen, header_text, tree, tensorflow, hot_files, kernel_files,
                          mobile_types, selection)
    return _with_build_time(PLANNERS[chosen].plan(request), options, tree)


def _with_build_time(plan: BuildPlan, options: BuildOptions, tree: TreeFacts | None) -> BuildPlan:
    """``plan`` with every step run at one ``SOURCE_DATE_EPOCH`` (:mod:`tfbuild.pipeline.planning.reproducible`)."""
    epoch, origin = choose_epoch(options.source_date_epoch, tree.root if tree is not None else None)
    made = plan.reproducibility or Reproducibility()
    return dataclasses.replace(
        plan,
        env={**plan.env, EPOCH_VARIABLE: str(epoch)},
        reproducibility=dataclasses.replace(made, source_date_epoch=epoch, epoch_from=origin),
    )


def choose_flavour(options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None) -> Flavour:
    """The flavour to build with: the one asked for, if the target and inputs allow it; else an
    op library when there is no tree, the contrib Makefile when the tree has one, else Bazel."""
    if options.flavour is not None:
        if options.flavour not in profile.flavours:
            raise ConfigError(
                f"target {profile.name} has no {options.flavour} flavour",
                hint=f"{profile.name} builds with: {', '.join(profile.flavours)} (toolchains/{profile.name}.toml)",
            )
        flavour = Flavour(options.flavour)
    elif tree is None:
        flavour = Flavour.OPS_LIBRARY
    elif tree.has_makefile and profile.makefile is not None:
        flavour = Flavour.MAKEFILE
    elif profile.bazel is not None:
        flavour = Flavour.BAZEL
    else:
        raise SourceTreeError(
            f"{tree.root}: TensorFlow {tree.version} has no contrib Makefile, and {profile.name} has no Bazel build",
            hint="use a TensorFlow 1.x or 2.0 tree for this target",
        )
    if options.analysis_only and flavour != Flavour.BAZEL:
        raise ConfigError(f"--analysis-only is Bazel's analysis; the {flavour} flavour has none",
                          hint="pass --flavour bazel")
    if flavour.edits_tree and tree is None:
        raise ConfigError(f"the {flavour} flavour builds a TensorFlow source tree", hint="pass --source DIR")
    PLANNERS[flavour].check(options, profile, tree)
    return flavour
