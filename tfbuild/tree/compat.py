"""Will the tree's TensorFlow runtime accept the models' NodeDefs, and a copy of a model it will.

Shipping a model exported by a new TensorFlow on an old mobile runtime fails most often before
any kernel runs: the runtime checks every NodeDef against its own op definitions
(``ValidateNodeDef``) and refuses an op it does not know ("Op type not registered 'AddV2'") or
an attr its definition lacks ("NodeDef mentions attr 'explicit_paddings' not in
Op<name=Conv2D; ...>"). :func:`check_models` applies those rules to every node of every model,
function libraries included, against the tree's op definitions (:mod:`tfbuild.tree.op_def_index`):

- ``op-not-in-tree``: the tree defines no such op (calls of the model's own functions aside);
- ``attr-not-in-op``: an attr (but the internal ``_`` ones) the tree's definition lacks. When its
  value is the default of the definition the model was written against (the installed
  TensorFlow's), removing it changes nothing and the problem is ``strippable``;
- ``attr-missing``: an attr the tree's definition declares without a default, absent from the node;
- ``attr-not-allowed``: a type or string the tree's definition does not allow (``padding:
  "EXPLICIT"`` on a TF 1.x Conv2D).

:func:`plan_compat` checks one GraphDef for ``tfbuild compat``; :func:`write_compat_copy` writes
it without the strippable attrs, after checking the copy by the same rules, or refuses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfbuild.errors import InputFileError, PreflightError, SourceTreeError
from tfbuild.fileio import atomic_write_bytes, refuse_input_as_output
from tfbuild.model.formats import LoadedModel, load_model
from tfbuild.model.names import is_valid_op_name
from tfbuild.model.rewrite import (
    InstalledOpDefs,
    attr_value_text,
    reload,
    require_graph_def,
    serialize,
    without_attrs,
)
from tfbuild.tree.facts import read_version
from tfbuild.tree.op_def_index import OpDefIndex, build_op_defs
from tfbuild.tree.op_defs import OpDef, data_type_string, summarize_attr_value, summarize_string
from tfbuild.tree.text_proto import TextProtoError, parse

OP_NOT_IN_TREE = "op-not-in-tree"
ATTR_NOT_IN_OP = "attr-not-in-op"
ATTR_MISSING = "attr-missing"
ATTR_NOT_ALLOWED = "attr-not-allowed"
COMPAT_KINDS = (OP_NOT_IN_TREE, ATTR_NOT_IN_OP, ATTR_MISSING, ATTR_NOT_ALLOWED)
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_UP_TO_DATE = (". (Check whether your GraphDef-interpreting binary is up to date with your "
               "GraphDef-generating binary.).")


def no_op_error(op: str) -> str:
    """The device's error for an op its binary does not register (TF 1.x wording)."""
    return (
        f"Op type not registered '{op}' in binary running on this device. Make sure the Op and "
        "Kernel are registered in the binary running in this process."
    )


@dataclass(frozen=True)
class NodeProblem:
    """One NodeDef the tree's runtime would refuse, as the runtime would say it."""

    model: Path
    where: str  # "graph", "function while_body_5", as LoadedModel.node_sources() says
    node: str
    op: str
    kind: str  # one of COMPAT_KINDS
    device_error: str
    attr: str | None = None
    value: str | None = None  # the node's value of ``attr``, summarised
    strippable: bool = False
    """attr-not-in-op only: the value is the installed TensorFlow's default, so it can go."""

    @property
    def label(self) -> str:
        return self.node if self.where == "graph" else f"{self.where}: {self.node}"


def check_models(models: Iterable[LoadedModel], op_defs: OpDefIndex,
                 installed: InstalledOpDefs | None = None) -> tuple[NodeProblem, ...]:
    """Every NodeDef of ``models`` checked by the runtime's rules against ``op_defs``;
    strippable attrs are judged against ``installed`` (the installed TensorFlow's registry,
    loaded when needed if not given)."""
    def is_default(op: str, attr: str, value: Any) -> bool:
        nonlocal installed
        if installed is None:  # loaded on first use: a model without attr problems needs none
            installed = InstalledOpDefs()
        return installed.is_default(op, attr, value)

    problems: list[NodeProblem] = []
    for model in models:
        functions = {f.signature.name for g in model.graph_defs for f in g.library.function}
        for source in model.node_sources():
            node_def = source.node_def
            _check_names(model.path, source.where, source.name, node_def, functions)
            if node_def.op in functions:  # a call of the model's own function, not an op
                continue
            op_def = op_defs.get(node_def.op)
            problems += _node_problems(model.path, source.where, source.name, node_def, op_def, is_default)
    return tuple(problems)


def _check_names(path: Path, where: str, name: str, node_def: Any, functions: set[str]) -> None:
    """Op and attr names go into messages and commands: refuse ones TensorFlow would not make
    (a call of a library function names the function, which may start in lower case)."""
    label = name if where == "graph" else f"{where}: {name}"
    valid = _FUNCTION_NAME.match(node_def.op) if node_def.op in functions else is_valid_op_name(node_def.op)
    bad = [] if valid else [repr(node_def.op)]
    bad += [f"attr {key!r}" for key in node_def.attr if not _ATTR_NAME.match(key)]
    if bad:
        raise InputFileError(
            f"{path}: node {label!r} has {bad[0]}, which is not a valid TensorFlow name",
            hint="the model is corrupt or crafted; re-export it",
        )


def _node_problems(path: Path, where: str, name: str, node_def: Any, op_def: OpDef | None,
                   is_default: Callable[[str, str, Any], bool]) -> list[NodeProblem]:
    op = node_def.op
    if op_def is None:
        return [NodeProblem(path, where, name, op, OP_NOT_IN_TREE, no_op_error(op))]
    found = []
    for attr, value in sorted(node_def.attr.items()):
        if attr.startswith("_"):
            continue
        attr_def = op_def.attr(attr)
        if attr_def is None:
            if op_def.unread:  # read from builder specs that were partly unreadable: cannot tell
                continue
            found.append(NodeProblem(
                path, where, name, op, ATTR_NOT_IN_OP,
                f"NodeDef mentions attr '{attr}' not in {op_def.summary()}; "
                f"NodeDef: {summarize_node_def(node_def)}{_UP_TO_DATE}",
                attr=attr, value=_summary(value), strippable=is_default(op, attr, value),
            ))
            continue
        refused = _not_allowed(attr, value, attr_def.type, attr_def.allowed)
        if refused:
            found.append(NodeProblem(
                path, where, name, op, ATTR_NOT_ALLOWED,
                f"{refused}; NodeDef: {summarize_node_def(node_def)}; {op_def.summary()}",
                attr=attr, value=_summary(value),
            ))
    missing = [a.name for a in op_def.attrs if a.default is None and a.name not in node_def.attr]
    if missing:
        named = ("s '" if len(missing) > 1 else " '") + "', '".join(missing)
        found.append(NodeProblem(
            path, where, name, op, ATTR_MISSING,
            f"NodeDef missing attr{named}' from {op_def.summary()}; NodeDef: {summarize_node_def(node_def)}",
            attr=", ".join(missing),
        ))
    return found


def _not_allowed(attr: str, value: Any, attr_type: str, allowed: tuple[str, ...] | None) -> str | None:
    """``AllowedTypeValue``/``AllowedStringValue``: the runtime's refusal, or None."""
    if allowed is None or value.WhichOneof("value") == "placeholder":
        return None
    if attr_type in ("type", "list(type)"):
        from tfbuild.model.protos import data_type_name  # the wheel's enum, without importing TensorFlow

        values = [value.type] if attr_type == "type" else list(value.list.type)
        for enum in values:
            name = data_type_name(enum) or f"DT_{enum}"
            if name not in allowed:
                return (f"Value for attr '{attr}' of {data_type_string(name)} is not in the list of allowed "
                        f"values: {', '.join(data_type_string(a) for a in allowed)}")
    elif attr_type in ("string", "list(string)"):
        strings = [value.s] if attr_type == "string" else list(value.list.s)
        for raw in strings:
            text = raw.decode("utf-8", errors="replace")
            if text not in allowed:
                return (f"Value for attr '{attr}' of \"{text}\" is not in the list of allowed values: "
                        + ", ".join(f'"{a}"' for a in allowed))
    return None


_OP_DEF_TEXT = re.compile(r"Op<name=([^;>]+);.*?>(?=; NodeDef:|$)", re.DOTALL)
SHORT_ERROR = 240
"""The longest a runtime refusal is shown in a report line or an error (the full text stays in
``--json``): TensorFlow's own message pastes the whole OpDef and NodeDef."""


def short_device_error(text: str, limit: int = SHORT_ERROR) -> str:
    """The runtime's refusal ``text`` for a line of a report: the OpDef it pastes shown by its
    name (``Op<name=MatMul; ...>``), the advice to check the binary's version dropped, at most
    ``limit`` characters."""
    text = _OP_DEF_TEXT.sub(r"Op<name=\1; ...>", text).replace(_UP_TO_DATE, ".")
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def summarize_node_def(node_def: Any) -> str:
    """``SummarizeNodeDef``: ``name = Op[attr=value, ...](inputs)``."""
    attrs = sorted(f"{key}={_summary(value)}" for key, value in node_def.attr.items())
    if node_def.device:
        attrs.append(f"_device={summarize_string(node_def.device)}")
    return f"{node_def.name} = {node_def.op}[{', '.join(attrs)}]({', '.join(node_def.input)})"


def _summary(value: Any) -> str:
    try:
        return summarize_attr_value(parse(attr_value_text(value)))
    except TextProtoError:
        return "<unreadable AttrValue>"


# --- tfbuild compat -----------------------------------------------------------------------


@dataclass(frozen=True)
class CompatRequest:
    """``tfbuild compat``'s options as a value."""

    model: Path
    source: Path
    output: Path
    cache_dir: Path | None = None


@dataclass(frozen=True)
class CompatPlan:
    """What making ``request.model`` acceptable to the tree's runtime takes."""

    request: CompatRequest
    model: LoadedModel
    tf_version: str
    op_defs_origin: str
    installed_version: str
    problems: tuple[NodeProblem, ...]
    checked_nodes: int
    notes: tuple[str, ...] = ()

    @property
    def removals(self) -> tuple[NodeProblem, ...]:
        return tuple(p for p in self.problems if p.strippable)

    @property
    def blocking(self) -> tuple[NodeProblem, ...]:
        return tuple(p for p in self.problems if not p.strippable)

    def lines(self) -> list[str]:
        """The plan as text: what is removed, then every node the copy cannot fix."""
        head = (f"compat {self.request.model} for {self.request.source} (TF {self.tf_version}, op definitions "
                f"from {self.op_defs_origin}): {self.checked_nodes} nodes checked, "
                f"{len(self.removals)} attr(s) to remove, {len(self.blocking)} problem(s) it cannot fix")
        out = [head]
        for group in grouped(self.removals):
            first = group[0]
            out.append(f"  remove {first.op}.{first.attr} = {first.value} (the default in TensorFlow "
                       f"{self.installed_version}) from {len(group)} node(s): {node_names(group)}")
        for group in grouped(self.blocking):
            first = group[0]
            out.append(f"  {first.op}: {short_device_error(first.device_error)}")
            out.append(f"    {_cannot_fix(first, self.installed_version)}")
            out += [f"    node {p.label}" + (f": {p.attr} = {p.value}" if p.value is not None else "")
                    for p in group]
        out += [f"  note: {note}" for note in self.notes]
        return out


@dataclass(frozen=True)
class CompatResult:
    output: Path
    removed: int
    nodes: int
    lines: tuple[str, ...]


def plan_compat(request: CompatRequest) -> CompatPlan:
    """Load the model and the tree's op definitions and check every node (nothing is written)."""
    model_path, output = Path(request.model), Path(request.output)
    refuse_input_as_output(output, (model_path,), why="tfbuild compat writes a copy",
                           hint="give another output path, e.g. model-tf1.pb")
    model = load_model(model_path)
    require_graph_def(model)  # before the tree is read
    op_defs = build_op_defs(Path(request.source), cache_dir=request.cache_dir)
    installed = InstalledOpDefs()
    problems = check_models([model], op_defs, installed)
    return CompatPlan(
        request=request,
        model=model,
        tf_version=tree_version(Path(request.source)),
        op_defs_origin=op_defs.origin,
        installed_version=installed.tensorflow_version,
        problems=problems,
        checked_nodes=sum(1 for _ in model.node_sources()),
        notes=tuple(index_notes(op_defs)),
    )


def require_fixable(plan: CompatPlan) -> None:
    """Raise :class:`PreflightError` (exit 5) when the copy cannot be made acceptable."""
    blocking = plan.blocking
    if not blocking:
        return
    ops = sorted({p.op for p in blocking})
    raise PreflightError(
        f"{plan.request.model}: {len(blocking)} node(s) the runtime of {plan.request.source} would refuse "
        f"and removing default-valued attrs cannot fix ({', '.join(ops)}); nothing written",
        hint=_cannot_fix(blocking[0], plan.installed_version),
    )


def write_compat_copy(plan: CompatPlan) -> CompatResult:
    """Write the model without its strippable attrs to ``plan.request.output``, once the copy,
    read back from the bytes to be written, passes the runtime's rules against the tree."""
    require_fixable(plan)
    removals: dict[tuple[str, str], set[str]] = {}
    for problem in plan.removals:
        removals.setdefault((problem.where, problem.node), set()).add(problem.attr or "")
    output = Path(plan.request.output)
    data = serialize(without_attrs(plan.model, removals))
    copy = reload(data, plan.model, output)
    left = check_models([copy], build_op_defs(Path(plan.request.source), cache_dir=plan.request.cache_dir))
    if left:
        raise PreflightError(f"{output}: the copy still has {len(left)} problem(s), first: {left[0].device_error}; "
                             "nothing written", hint="report this as a tfbuild bug")
    atomic_write_bytes(output, data)
    lines = (f"wrote {output}: {len(plan.removals)} attr(s) removed from {len(removals)} node(s); every node "
             f"passes the NodeDef checks of TF {plan.tf_version} ({plan.op_defs_origin})",)
    return CompatResult(output=output, removed=len(plan.removals), nodes=len(removals), lines=lines)


def compat_fix(problem: NodeProblem, source: Path, installed_version: str, model_format: str) -> str:
    """What to do about ``problem``: the ``tfbuild compat`` command where it can fix it."""
    if problem.strippable:
        if model_format not in ("graphdef", "graphdef-text"):
            return (f"freeze {problem.model} to a GraphDef (convert_variables_to_constants_v2), then run: "
                    f"tfbuild compat FROZEN.pb --source {source} -o {suggested_output(problem.model, source)}")
        return f"run: tfbuild compat {problem.model} --source {source} -o {suggested_output(problem.model, source)}"
    return _cannot_fix(problem, installed_version)


def suggested_output(model: Path, source: Path) -> Path:
    """``model.pb`` -> ``model-tf1.9.pb`` beside it, named for the tree's version."""
    version = tree_version(source)
    tag = "-tf" + ".".join(version.split(".")[:2]) if version != "unknown" else "-compat"
    suffix = model.suffix if model.suffix in (".pb", ".pbtxt") else ".pb"
    return model.with_name(model.stem + tag + suffix)


def tree_version(root: Path) -> str:
    try:
        return str(read_version(root))
    except SourceTreeError:
        return "unknown"


def _cannot_fix(problem: NodeProblem, installed_version: str) -> str:
    if problem.kind == OP_NOT_IN_TREE:
        return (f"this TensorFlow defines no op {problem.op}: re-export the model without it, build {problem.op} "
                "into the binary as a custom op, or use a newer TensorFlow tree")
    if problem.kind == ATTR_NOT_IN_OP:
        return (f"{problem.op}.{problem.attr} = {problem.value} is not its default in TensorFlow {installed_version}, "
                "so removing it would change the model: re-export the model without it, or use a newer TensorFlow tree")
    if problem.kind == ATTR_MISSING:
        return f"re-export the model with {problem.op}'s {problem.attr} set, or use a TensorFlow tree of its version"
    return (f"{problem.op}.{problem.attr} = {problem.value} is not allowed by this TensorFlow: re-export the model "
            "with an allowed value, or use a newer TensorFlow tree")


def grouped(problems: Sequence[NodeProblem]) -> list[list[NodeProblem]]:
    """``problems`` grouped by model, op, kind and attr, in the order first met."""
    groups: dict[tuple[Path, str, str, str | None], list[NodeProblem]] = {}
    for problem in problems:
        groups.setdefault((problem.model, problem.op, problem.kind, problem.attr), []).append(problem)
    return list(groups.values())


def node_names(group: Sequence[NodeProblem], shown: int = 3) -> str:
    names = ", ".join(p.label for p in group[:shown])
    return names + (f", ... ({len(group) - shown} more)" if len(group) > shown else "")


def index_notes(op_defs: OpDefIndex) -> list[str]:
    """What the op definition index could not read, for reports."""
    if not op_defs.skipped:
        return []
    return [f"the op definition index skipped {len(op_defs.skipped)} file(s) or spec(s) of the tree; "
            f"first: {op_defs.skipped[0]}"]
