"""Catch, before a 50-minute build, the gaps that make the binary fail on the device.

A selective TensorFlow binary runs a model only if, for every op the model uses,

1. the op's definition is compiled (Makefile flavour: its ``tensorflow/core/ops`` file is in
   ``tf_op_files.txt``; the Bazel mobile library compiles every core op definition),
2. a file registering one of the op's CPU kernels is compiled (``tf_op_files.txt``, or the
   mobile filegroups followed through their ``:labels``),
3. the header keeps the op (``SHOULD_REGISTER_OP``) and one of those kernels under the class
   string the *tree* registers it with. Class strings differ between TensorFlow versions, so a
   header written with the installed TF's names can drop every kernel of an older tree;
4. the tree's runtime accepts every NodeDef of the models (:mod:`tfbuild.tree.compat`): its op
   definitions know the op and every attr the node carries. A model exported by a newer
   TensorFlow fails here first, before any kernel is looked up.

Each gap is reported as the error the device would print, with the command that fixes it.
The library returns a :class:`PreflightReport`; :func:`require_pass` turns gaps into a
:class:`PreflightError` for the CLI. :func:`run_preflight` reads the request's models or header;
:func:`check_tree` takes them already loaded, as ``tfbuild build`` has them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ConfigError, PreflightError
from tfbuild.flavour import Flavour
from tfbuild.model.formats import LoadedModel, load_model
from tfbuild.model.header import HEADER_NAME, HeaderContents, parse_header
from tfbuild.model.rewrite import InstalledOpDefs
from tfbuild.tree.compat import (
    OP_NOT_IN_TREE,
    check_models,
    compat_fix,
    grouped,
    index_notes,
    no_op_error,
    short_device_error,
    tree_version,
)
from tfbuild.tree.edits import check_flavour, compiled_files, kernel_index_for
from tfbuild.tree.kernel_index import KernelIndex, unread_notes
from tfbuild.tree.needs import (
    NeedResolution,
    Needs,
    needs_from_header,
    needs_from_loaded,
    op_definition_files,
    resolve_needs,
    serves_cpu,
    squash,
)
from tfbuild.tree.op_def_index import build_op_defs
from tfbuild.tree.retarget import unregistered_classes

OPS_WITHOUT_KERNEL = frozenset({"AccumulateNV2"})
"""Ops TF's runtime rewrites away, which need no kernel (as in TF's header tool)."""


def no_kernel_error(op: str) -> str:
    """The device's error for an op whose kernels are all missing (TF 1.x wording)."""
    return (
        f"No OpKernel was registered to support Op '{op}' with these attrs.  "
        "Registered devices: [CPU], Registered kernels: <no registered kernels>"
    )


@dataclass(frozen=True)
class PreflightRequest:
    """``tfbuild check``'s options as a value: models and/or a header, a flavour, a tree."""

    source: Path
    flavour: str
    models: tuple[Path, ...] = ()
    header: Path | None = None
    op_libraries: tuple[Path, ...] = ()
    cache_dir: Path | None = None


@dataclass(frozen=True)
class Gap:
    """One reason the binary would fail, as the device would say it, and how to fix it."""

    op: str
    kind: str
    """``no-kernel-in-tree``, ``kernel-not-compiled``, ``op-not-compiled``,
    ``op-not-in-header``, ``kernel-not-in-header``, or one of the runtime's NodeDef checks
    (:data:`tfbuild.tree.compat.COMPAT_KINDS`: ``op-not-in-tree``, ``attr-not-in-op``,
    ``attr-missing``, ``attr-not-allowed``)."""
    device_error: str
    fix: str
    files: tuple[str, ...] = ()
    kernel_classes: tuple[str, ...] = ()
    nodes: tuple[str, ...] = ()
    """The model nodes the runtime would refuse, for the NodeDef checks."""


@dataclass(frozen=True)
class PreflightReport:
    source: Path
    flavour: Flavour
    origin: str
    header: Path | None
    checked_ops: tuple[str, ...]
    gaps: tuple[Gap, ...]
    notes: tuple[str, ...]
    tf_version: str = "unknown"

    @property
    def ok(self) -> bool:
        return not self.gaps

    def lines(self) -> list[str]:
        """The report as plain text lines (names come from files: print them as text, not markup)."""
        head = f"preflight {self.flavour} build of {self.source} (TF {self.tf_version}) for {self.origin}"
        if self.header is not None and str(self.header) != self.origin:
            head += f" with {self.header}"
        gaps = shown_gaps(self.gaps)
        out = [head + f": {len(self.checked_ops)} ops checked, {len(gaps)} gap(s)"]
        for gap, text in gaps:
            out.append(f"  {gap.op}: {text}")
            if gap.files:
                out.append(f"    files: {', '.join(gap.files)}")
            if gap.nodes:
                shown = ", ".join(gap.nodes[:3]) + (f", ... ({len(gap.nodes) - 3} more)" if len(gap.nodes) > 3 else "")
                out.append(f"    {len(gap.nodes)} node(s): {shown}")
            if gap.kernel_classes:
                shown = "; ".join(gap.kernel_classes[:3]) + ("; ..." if len(gap.kernel_classes) > 3 else "")
                out.append(f"    the tree registers: {shown}")
            out.append(f"    fix: {gap.fix}")
        out += [f"  note: {note}" for note in self.notes]
        return out


def run_preflight(request: PreflightRequest) -> PreflightReport:
    """Check the tree, as the chosen flavour would build it now, against the models/header:
    read them once, then :func:`check_tree`."""
    check_flavour(request.flavour)
    if not request.models and request.header is None:
        raise ConfigError("give --model (one or more) or --header", hint="e.g. tfbuild check --model model.pb ...")
    index = kernel_index_for(Path(request.source), request.cache_dir)
    models: list[LoadedModel] = []
    if request.header is not None and not request.models:
        needs = needs_from_header(request.header, index)
        header = needs.header
    else:
        models = [load_model(Path(m)) for m in request.models]
        needs = needs_from_loaded(models, request.op_libraries)
        header = parse_header(request.header) if request.header else None
    return check_tree(request, needs, index, header=header, models=models)


def check_tree(
    request: PreflightRequest,
    needs: Needs,
    index: KernelIndex,
    *,
    header: HeaderContents | None = None,
    edited: Mapping[str, str] | None = None,
    models: Sequence[LoadedModel] = (),
) -> PreflightReport:
    """Check ``needs`` against the tree's kernel ``index`` and the build files of
    ``request.flavour`` (``edited``: the new text of those a just-applied edit plan changed,
    taken from the plan rather than read back), against ``header``'s selection when there
    is one, and every NodeDef of the loaded ``models`` against the tree's op definitions.
    ``request`` names the tree and, for the report and its fixes, the inputs the values
    came from; its model and header files are not read here."""
    flavour = check_flavour(request.flavour)
    root = Path(request.source)
    resolved = resolve_needs(needs, index, root)
    definitions = op_definition_files(root, needs.op_names()) if flavour == Flavour.MAKEFILE else {}
    notes: list[str] = []
    gaps = _compat_gaps(models, root, notes)
    undefined = {gap.op for gap in gaps if gap.kind == OP_NOT_IN_TREE}
    gaps += [gap for gap in _build_gaps(resolved.resolutions, compiled_files(root, flavour, edited=edited),
                                        definitions, f"run: {_edit_command(flavour, request, root)}", root, index)
             if not (gap.kind == "no-kernel-in-tree" and gap.op in undefined)]  # the op error comes first
    if header is None:
        notes += _class_mismatch_notes(resolved.resolutions)
    else:
        gaps += _header_gaps(header, resolved.resolutions, index, request)
        notes += _foreign_class_notes(header, index)
    notes += _guard_notes(resolved.resolutions, index)
    notes += unread_notes(index)
    return PreflightReport(
        source=root,
        flavour=flavour,
        origin=needs.origin,
        header=request.header,
        checked_ops=needs.op_names(),
        gaps=tuple(gaps),
        notes=tuple(notes),
        tf_version=tree_version(root),
    )


def require_pass(report: PreflightReport) -> None:
    """Raise :class:`PreflightError` (exit code 5) naming the first gap, if there is any."""
    if report.ok:
        return
    shown = shown_gaps(report.gaps)
    first, text = shown[0]
    more = f" (and {len(shown) - 1} more gap(s))" if len(shown) > 1 else ""
    raise PreflightError(f"{report.source}: the {report.flavour} build would fail on the device: "
                         f"{text}{more}", hint=first.fix)


_MENTIONED_ATTR = re.compile(r"NodeDef mentions attr '([^']+)'")


def shown_gaps(gaps: Sequence[Gap]) -> list[tuple[Gap, str]]:
    """``gaps`` as a report shows them: each once, those that differ only in the attr the
    runtime would refuse (MatMul's ``grad_a`` and ``grad_b``) as one naming every attr, each
    refusal short (:func:`~tfbuild.tree.compat.short_device_error`: no OpDef pasted)."""
    groups: dict[tuple[str, str, str, tuple[str, ...]], list[Gap]] = {}
    for gap in gaps:
        groups.setdefault((gap.op, gap.kind, gap.fix, gap.nodes), []).append(gap)
    shown = []
    for group in groups.values():
        first = group[0]
        attrs = [found.group(1) for gap in group if (found := _MENTIONED_ATTR.search(gap.device_error))]
        text = first.device_error
        if len(group) > 1 and len(attrs) == len(group):
            named = ", ".join(f"'{attr}'" for attr in dict.fromkeys(attrs))
            text = _MENTIONED_ATTR.sub(f"NodeDef mentions attrs {named}", text, count=1)
        shown.append((first, short_device_error(text)))
    return shown


def _build_gaps(
    resolutions: Sequence[NeedResolution],
    compiled: frozenset[str],
    definitions: Mapping[str, tuple[str, ...]],
    fix: str,
    root: Path,
    index: KernelIndex,
) -> list[Gap]:
    """Needed kernels and op definitions no file the build compiles provides. An op with no
    kernel in the index names the registrations the index could not read that may be its."""
    gaps: list[Gap] = []
    for resolution in resolutions:
        op = resolution.need.op
        if op in OPS_WITHOUT_KERNEL:
            continue
        if not resolution.files:
            unread = index.unread_for_op(op)
            where = (f"tfbuild could not read {len(unread)} kernel registration(s) that may be {op}'s "
                     f"({'; '.join(str(u) for u in unread[:3])}): check them, then build it as a custom op "
                     "library if the tree really has none") if unread else (
                     f"{root} has no CPU kernel for {op}: build it as a custom op library, "
                     "or use a TensorFlow tree that has one")
            gaps.append(Gap(op, "no-kernel-in-tree", no_kernel_error(op), where))
            continue
        if not set(resolution.files) & compiled:
            gaps.append(Gap(op, "kernel-not-compiled", no_kernel_error(op), fix, resolution.files))
        op_files = definitions.get(op, ())
        if op_files and not set(op_files) & compiled:
            gaps.append(Gap(op, "op-not-compiled", no_op_error(op), fix, op_files))
    return gaps


def _class_mismatch_notes(resolutions: Sequence[NeedResolution]) -> list[str]:
    """Models analysed by another TF version name classes this tree does not register: only
    a problem once a header is written with those names, so a note when no header is checked."""
    return [
        f"{r.need.op}: the models name kernel classes {', '.join(r.need.kernel_classes)}, "
        f"the tree registers {', '.join(r.tree_classes)}: generate the header against this tree "
        "so it names the tree's classes"
        for r in resolutions
        if not r.classes_matched and r.files
    ]


def _header_gaps(
    header: HeaderContents, resolutions: Sequence[NeedResolution], index: KernelIndex, request: PreflightRequest
) -> list[Gap]:
    """Ops the header drops, and ops whose tree kernels it names under no class it lists."""
    if header.registers_everything:
        return []
    regenerate = (
        "regenerate the header with this tree's kernel class names "
        f"(tfbuild header MODEL -o {request.header or HEADER_NAME} --source {request.source}), "
        "or write it with --granularity op"
    )
    listed = {squash(k) for k in header.kernel_classes}
    gaps = []
    for resolution in resolutions:
        op = resolution.need.op
        if op in OPS_WITHOUT_KERNEL or not resolution.files:
            continue
        if op not in header.ops:
            gaps.append(Gap(op, "op-not-in-header", no_op_error(op), regenerate))
            continue
        if header.op_granularity:
            continue
        tree_classes = {
            squash(r.kernel_class) for r in index.registrations if r.op == op and serves_cpu(r.device)
        }
        if not tree_classes & listed:
            gaps.append(Gap(op, "kernel-not-in-header", no_kernel_error(op), regenerate,
                            kernel_classes=resolution.tree_classes))
    return gaps


def _foreign_class_notes(header: HeaderContents, index: KernelIndex) -> list[str]:
    """Header classes the tree never registers: the sign of a header from another TF version."""
    if header.registers_everything or header.op_granularity:
        return []
    foreign = unregistered_classes(tuple(header.kernel_classes), index)
    if not foreign:
        return []
    return [
        f"the header lists {len(foreign)} kernel class(es) this tree never registers (made with "
        f"another TensorFlow version's names?): {'; '.join(foreign)}"
    ]


def _guard_notes(resolutions: Sequence[NeedResolution], index: KernelIndex) -> list[str]:
    """Needed kernels that only exist behind a preprocessor guard such as USE_GEMM_FOR_CONV."""
    notes = []
    for resolution in resolutions:
        registrations = [
            r for r in index.registrations
            if r.op == resolution.need.op and serves_cpu(r.device) and r.kernel_class in resolution.tree_classes
        ]
        if registrations and all(r.guard for r in registrations):
            guards = sorted({r.guard for r in registrations if r.guard})
            notes.append(f"{resolution.need.op}: every needed kernel is behind {', '.join(guards)}")
    return notes


def _compat_gaps(models: Sequence[LoadedModel], root: Path, notes: list[str]) -> list[Gap]:
    """The NodeDefs of ``models`` the tree's runtime would refuse, one gap per model, op, kind
    and attr, those ``tfbuild compat`` cannot fix first (JSON ops lists carry no NodeDefs and are
    not checked)."""
    with_nodes = [model for model in models if model.graph_defs or model.flex_nodes]
    if not with_nodes:
        return []
    op_defs = build_op_defs(root)
    installed = InstalledOpDefs()  # TensorFlow is loaded already: it parsed the models
    problems = check_models(with_nodes, op_defs, installed)
    notes += index_notes(op_defs) if problems else []
    formats = {model.path: model.format.value for model in with_nodes}
    return [
        Gap(group[0].op, group[0].kind, group[0].device_error,
            compat_fix(group[0], root, installed.tensorflow_version, formats[group[0].model]),
            nodes=tuple(problem.label for problem in group))
        for group in sorted(grouped(problems), key=lambda group: group[0].strippable)
    ]


def _edit_command(flavour: Flavour, request: PreflightRequest, root: Path) -> str:
    inputs = " ".join(f"--model {m}" for m in request.models) if request.models else f"--header {request.header}"
    return f"tfbuild edit {flavour} {inputs} --source {root}"
