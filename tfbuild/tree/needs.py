"""Which files of a TensorFlow tree provide the ops and kernels a header or a set of models needs.

Both the source edits (add those files to the build lists) and the preflight (check the build
lists hold them) start here, so they can never disagree about what "needed" means:

- a *need* is an op plus the CPU kernel classes it must have, read from an ops_to_register.h
  (or the :class:`~tfbuild.model.header.HeaderContents` of one just rendered) or from models
  (JSON ops lists are read without TensorFlow; other formats go through the analysis step);
- the tree's kernel index maps each need to the files registering those classes. Class strings
  are compared without spaces (as the header's ``isequal`` comparison in TF effectively is for
  the strings TF writes). When none of a need's classes is registered by the tree (a header
  made by another TF version), every file registering a CPU kernel for the op is needed instead,
  so the build has the kernels once the header is regenerated; the preflight reports the
  mismatch itself;
- op definitions (``REGISTER_OP("Min")``) are found in the tree's op definition index
  (:mod:`tfbuild.tree.op_def_index`), because the Makefile build compiles only the op files
  its list names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tfbuild.cpp import KERNELS_DIR
from tfbuild.cpp.scan import CPU_DEVICES
from tfbuild.errors import InputFileError
from tfbuild.model.analysis import analyze_loaded
from tfbuild.model.formats import LoadedModel, ModelFormat, load_model
from tfbuild.model.header import HeaderContents, parse_header
from tfbuild.model.names import is_valid_kernel_class, is_valid_op_name
from tfbuild.tree.kernel_index import KernelIndex, KernelRegistration
from tfbuild.tree.op_def_index import build_op_defs


@dataclass(frozen=True)
class KernelNeed:
    """An op and the CPU kernel classes it needs; no classes means any CPU kernel of the op."""

    op: str
    kernel_classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Needs:
    """What a header or a set of models asks of the tree.

    ``header`` is set when the needs were read from one (the preflight checks it lists them);
    ``origin`` says where they came from, for messages.
    """

    origin: str
    ops: tuple[KernelNeed, ...]
    header: HeaderContents | None = None

    def op_names(self) -> tuple[str, ...]:
        return tuple(need.op for need in self.ops)


@dataclass(frozen=True)
class NeedResolution:
    """One need resolved against the tree."""

    need: KernelNeed
    tree_classes: tuple[str, ...]
    """Tree class strings matching the need (all CPU classes of the op when none matched)."""
    files: tuple[str, ...]
    """Repository paths registering those classes."""
    classes_matched: bool
    """False when the need named classes and the tree registers none of them."""


@dataclass(frozen=True)
class NeededSources:
    """The tree files the needs resolve to."""

    resolutions: tuple[NeedResolution, ...]
    kernel_files: tuple[str, ...]
    """Files registering the kernels, plus their :func:`companion_sources`."""
    headers: tuple[str, ...]
    op_definition_files: tuple[str, ...]
    unresolved_ops: tuple[str, ...]
    """Ops for which the tree registers no CPU kernel at all."""


def squash(kernel_class: str) -> str:
    """A kernel class string without whitespace, for comparisons."""
    return "".join(kernel_class.split())


def serves_cpu(device: str) -> bool:
    """Whether a CPU build runs kernels registered for ``device``: CPU, and DEFAULT (TF 1.15 on)."""
    return device.upper().removeprefix("DEVICE_") in CPU_DEVICES


def needs_from_header(path: Path, index: KernelIndex) -> Needs:
    """The needs an ops_to_register.h file expresses (see :func:`header_needs`)."""
    return header_needs(parse_header(Path(path)), index, origin=str(path))


def header_needs(contents: HeaderContents, index: KernelIndex, *, origin: str) -> Needs:
    """The needs a header's selection expresses, its kernel classes mapped to ops by the tree;
    ``origin`` names the header in messages.

    A header that registers everything has no needs tfbuild can act on and is refused.
    """
    if contents.registers_everything:
        raise InputFileError(
            f"{origin}: the header registers every op and kernel, so there is nothing to select",
            hint="write a selective header: tfbuild header MODEL -o ops_to_register.h",
        )
    wanted = {squash(k): k for k in contents.kernel_classes}
    by_op: dict[str, list[str]] = {op: [] for op in contents.ops}
    if not contents.op_granularity:
        for registration in index.registrations:
            # One class can serve several ops (IdentityOp: Identity, StopGradient, ...); only
            # the ops the header keeps are needed.
            if (
                registration.op in by_op
                and serves_cpu(registration.device)
                and squash(registration.kernel_class) in wanted
            ):
                original = wanted[squash(registration.kernel_class)]
                if original not in by_op[registration.op]:
                    by_op[registration.op].append(original)
    ops = tuple(KernelNeed(op, tuple(sorted(classes))) for op, classes in sorted(by_op.items()))
    return Needs(origin=origin, ops=ops, header=contents)


def needs_from_models(models: Sequence[Path], op_libraries: Sequence[Path] = ()) -> Needs:
    """The needs of ``models``, each read once (see :func:`needs_from_loaded`)."""
    return needs_from_loaded([load_model(Path(m)) for m in models], op_libraries)


def needs_from_loaded(loaded: Sequence[LoadedModel], op_libraries: Sequence[Path] = ()) -> Needs:
    """The needs of models already loaded. JSON ops lists carry their kernel classes and are
    read without TensorFlow; any other model (or a custom op library) goes through the
    analysis step."""
    origin = ", ".join(str(m.path) for m in loaded)
    if loaded and not op_libraries and all(m.format == ModelFormat.OPS_LIST for m in loaded):
        return Needs(origin=origin, ops=_needs_from_ops_lists(loaded))
    analysis = analyze_loaded(loaded, op_libraries)
    return Needs(origin=origin, ops=tuple(KernelNeed(r.op, tuple(r.kernel_classes)) for r in analysis.ops))


def _needs_from_ops_lists(loaded: Sequence[LoadedModel]) -> tuple[KernelNeed, ...]:
    classes: dict[str, set[str]] = {}
    for model in loaded:
        for listed in model.listed_ops:
            if not is_valid_op_name(listed.op):
                raise InputFileError(
                    f"{model.path}: {listed.op!r} is not a valid TensorFlow op name",
                    hint="the ops list is corrupt or crafted; regenerate it",
                )
            if listed.kernel_class is not None and not is_valid_kernel_class(listed.kernel_class):
                raise InputFileError(f"{model.path}: kernel class of {listed.op} contains a newline or NUL")
            classes.setdefault(listed.op, set())
            if listed.kernel_class:
                classes[listed.op].add(listed.kernel_class)
    return tuple(KernelNeed(op, tuple(sorted(found))) for op, found in sorted(classes.items()))


def resolve_needs(needs: Needs, index: KernelIndex, tree: Path) -> NeededSources:
    """Map every need to the tree files registering its kernels, their headers, and op files."""
    resolutions = []
    for need in needs.ops:
        matching, chosen = _matching_registrations(need, index)
        resolutions.append(
            NeedResolution(
                need=need,
                tree_classes=tuple(sorted({r.kernel_class for r in chosen})),
                files=tuple(sorted({r.file for r in chosen})),
                classes_matched=bool(matching) or not need.kernel_classes,
            )
        )
    registering = sorted({f for r in resolutions for f in r.files})
    headers = tuple(index.headers_for(tuple(registering))) if registering else ()
    definitions = op_definition_files(tree, needs.op_names())
    return NeededSources(
        resolutions=tuple(resolutions),
        kernel_files=tuple(sorted(set(registering) | set(companion_sources(tree, headers)))),
        headers=headers,
        op_definition_files=tuple(sorted({f for files in definitions.values() for f in files})),
        unresolved_ops=tuple(r.need.op for r in resolutions if not r.files),
    )


def need_registrations(need: KernelNeed, index: KernelIndex) -> tuple[KernelRegistration, ...]:
    """The tree's CPU registrations a need resolves to: those of its kernel classes (compared
    without spaces), or every CPU kernel of its op when the tree registers none of them."""
    return _matching_registrations(need, index)[1]


def _matching_registrations(
    need: KernelNeed, index: KernelIndex
) -> tuple[tuple[KernelRegistration, ...], tuple[KernelRegistration, ...]]:
    """(the registrations of the need's classes, those chosen: the same, else all of its op's)."""
    of_op = tuple(r for r in index.registrations_for_op(need.op) if serves_cpu(r.device))
    wanted = {squash(k) for k in need.kernel_classes}
    matching = tuple(r for r in of_op if squash(r.kernel_class) in wanted)
    return matching, matching or of_op


def companion_sources(tree: Path, headers: Iterable[str]) -> tuple[str, ...]:
    """The ``.cc`` beside each kernels header (``reduction_ops_common.h`` ->
    ``reduction_ops_common.cc``): the helpers a kernel file links against live there, and a
    build list that lacks them fails at link time. Extra kernels they register are compiled
    away by the header, so adding them costs build time, not binary size."""
    out = []
    for header in headers:
        if header.startswith(KERNELS_DIR + "/") and header.endswith(".h"):
            source = header[: -len(".h")] + ".cc"
            if (Path(tree) / source).is_file():
                out.append(source)
    return tuple(sorted(out))


def op_definition_files(tree: Path, ops: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """For each op, the repository paths of the op files (``tensorflow/core/ops``, contrib
    ``ops`` directories) holding its ``REGISTER_OP``, from the tree's op definition index;
    ops defined elsewhere are left out."""
    return build_op_defs(Path(tree)).files_for(ops)
