"""Op definitions as a TensorFlow runtime checks NodeDefs against them, read from a tree.

A runtime accepts a NodeDef only if its op is registered and every attr it carries (but the
internal ``_`` ones) is declared by the op's definition *in that runtime*; a model exported by
a newer TensorFlow carries attrs older definitions lack (Conv2D ``explicit_paddings``, MatMul
``grad_a``). A tree states its definitions in two places, both read here without TensorFlow:

- ``tensorflow/core/ops/ops.pbtxt``, TF's golden ``OpList`` in text format
  (:func:`op_defs_from_op_list`);
- the ``REGISTER_OP("Conv2D").Input("input: T").Attr("T: {half, float}")...`` builder specs of
  its op files, read through the C preprocessor by :mod:`tfbuild.cpp.scan`
  (:func:`op_def_from_builder`), for trees without the golden file and for ops it leaves out
  (those named ``_Arg``, ``_Retval``...). A spec the scanner cannot read (an ``Attr`` built by
  a helper function not found in the tree) is kept in :attr:`OpDef.unread`.

:meth:`OpDef.summary` renders a definition as the runtime's ``SummarizeOpDef`` does, so
messages read like the device's ("NodeDef mentions attr 'explicit_paddings' not in
Op<name=Conv2D; signature=input:T, filter:T -> output:T; attr=T:type,allowed=[...]; ...>").
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tfbuild.cpp.op_def import BuilderCall
from tfbuild.tree.text_proto import Message, TextProtoError, parse

FLAG_CALLS = {
    "SetIsCommutative": "is_commutative",
    "SetIsAggregate": "is_aggregate",
    "SetIsStateful": "is_stateful",
    "SetAllowsUninitializedInput": "allows_uninitialized_input",
}
_BASIC_TYPES = frozenset({"string", "int", "float", "bool", "type", "shape", "tensor", "func"})
_TYPE_CLASSES = frozenset({"numbertype", "numerictype", "quantizedtype", "realnumbertype", "realnumberictype", "all"})
"""Names OpDefBuilder expands to lists of types (which differ between versions: not expanded here)."""
_VALUE_FIELDS = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
                 "shape": "shape", "tensor": "tensor", "func": "func"}
_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")
_MAX_STRING_SUMMARY = 80
_MAX_LIST_SUMMARY = 15

_ATTR_SPEC = re.compile(
    r"""\s*(?P<name>[A-Za-z_]\w*)\s*:\s*
        (?P<list>list\s*\(\s*)?(?P<type>\{[^}]*\}|[A-Za-z_]\w*)\s*(?(list)\))
        \s*(?:>=\s*(?P<min>-?\d+))?
        \s*(?:=\s*(?P<default>.*?))?\s*\Z""",
    re.VERBOSE | re.DOTALL,
)
_ARG_SPEC = re.compile(
    r"\s*(?P<name>\w+)\s*:\s*(?P<ref>Ref\s*\()?\s*(?:(?P<number>\w+)\s*\*\s*)?(?P<type>\w+)\s*(?(ref)\))\s*\Z"
)
_HELPER_REF = re.compile(r"(?:::)?(?:\w+::)*(\w+)\s*(?:\(\s*\))?\Z")


@dataclass(frozen=True)
class AttrDef:
    """One attr of an op definition. ``default`` is the default value as TensorFlow summarises
    it (``"NHWC"``, ``[1, 1, 1, 1]``), None when the attr has none (a NodeDef must set it).
    ``allowed`` holds ``DT_*`` names for type attrs and the strings for string attrs; None
    allows any value (or, read from builder specs, a type class such as ``numbertype`` whose
    members are not expanded)."""

    name: str
    type: str
    default: str | None = None
    minimum: int | None = None
    allowed: tuple[str, ...] | None = None

    def summary(self) -> str:
        text = f"{self.name}:{self.type}"
        if self.default is not None:
            text += f",default={self.default}"
        if self.minimum is not None:
            text += f",min={self.minimum}"
        if self.allowed is not None:
            strings = "type" not in self.type
            text += ",allowed=" + _summarize_list([summarize_string(v) if strings else v for v in self.allowed])
        return text


@dataclass(frozen=True)
class OpDef:
    """An op as a tree defines it. ``inputs``/``outputs`` are summarised as the runtime does
    (``input:T``, ``values:N*T``, ``ref:Ref(T)``); ``unread`` lists the attr specs of a
    definition read from builder calls that could not be read (its attr list is then partial)."""

    name: str
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    attrs: tuple[AttrDef, ...] = ()
    flags: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()

    def attr(self, name: str) -> AttrDef | None:
        return next((attr for attr in self.attrs if attr.name == name), None)

    def summary(self) -> str:
        """``SummarizeOpDef`` of TensorFlow's op_def_util.cc."""
        text = f"Op<name={self.name}; signature={', '.join(self.inputs)} -> {', '.join(self.outputs)}"
        text += "".join(f"; attr={attr.summary()}" for attr in self.attrs)
        text += "".join(f"; {flag}=true" for flag in self.flags)
        return text + ">"


# --- ops.pbtxt ------------------------------------------------------------------------------


def op_defs_from_op_list(text: str) -> list[OpDef]:
    """The ops of a text-format ``OpList``; :class:`TextProtoError` when it is not one."""
    ops = []
    for op in parse(text).messages("op"):
        name = op.scalar("name")
        if not name:
            raise TextProtoError("an op without a name")
        attrs = tuple(_attr_from_message(attr) for attr in op.messages("attr"))
        flags = tuple(flag for flag in FLAG_CALLS.values() if op.scalar(flag) == "true")
        ops.append(OpDef(
            name=name,
            inputs=tuple(_arg_from_message(arg) for arg in op.messages("input_arg")),
            outputs=tuple(_arg_from_message(arg) for arg in op.messages("output_arg")),
            attrs=attrs,
            flags=flags,
        ))
    return ops


def _arg_from_message(arg: Message) -> str:
    """``SummarizeArgs`` of one ArgDef: a list-typed arg prints no type, as in TensorFlow."""
    ref = arg.scalar("is_ref") == "true"
    number = arg.scalar("number_attr")
    dtype = arg.scalar("type")
    kind = data_type_string(dtype) if dtype and dtype != "DT_INVALID" else arg.scalar("type_attr")
    text = ("Ref(" if ref else "") + (f"{number}*" if number else "") + kind + (")" if ref else "")
    return f"{arg.scalar('name')}:{text}"


def _attr_from_message(attr: Message) -> AttrDef:
    default = attr.message("default_value")
    allowed_value = attr.message("allowed_values")
    allowed_list = allowed_value.message("list") if allowed_value is not None else None
    allowed = None
    if allowed_list is not None:
        allowed = tuple(allowed_list.scalars("type") or allowed_list.scalars("s"))
    minimum = int(attr.scalar("minimum", "0")) if attr.scalar("has_minimum") == "true" else None
    return AttrDef(
        name=attr.scalar("name"),
        type=attr.scalar("type"),
        default=summarize_attr_value(default) if default is not None else None,
        minimum=minimum,
        allowed=allowed,
    )


# --- REGISTER_OP builder specs -------------------------------------------------------------


def op_def_from_builder(op: str, calls: Sequence[BuilderCall], helpers: Mapping[str, str]) -> OpDef:
    """The definition ``REGISTER_OP(op)`` and its builder ``calls`` make, as TensorFlow's
    OpDefBuilder would. ``helpers`` maps the helper functions and constants that hold a spec
    string (``GetPaddingAttrString()``, ``kRNNModeAttrs``) to that string."""
    attrs: list[AttrDef] = []
    unread: list[str] = []
    args: dict[str, list[str]] = {"Input": [], "Output": []}
    flags: list[str] = []
    for call in calls:
        if call.method in FLAG_CALLS:
            flags.append(FLAG_CALLS[call.method])
        if call.method not in ("Attr", "Input", "Output") or not call.literals:
            continue
        spec = call.literals[0]
        if spec is None:
            helper = _HELPER_REF.match(call.spelled[0])
            spec = helpers.get(helper.group(1)) if helper else None
        if call.method != "Attr":
            args[call.method].append(spec if spec is not None else call.spelled[0])
            continue
        parsed = parse_attr_spec(spec) if spec is not None else None
        if parsed is None:
            unread.append(spec if spec is not None else call.spelled[0])
        else:
            attrs.append(parsed)
    list_attrs = {attr.name for attr in attrs if attr.type == "list(type)"}
    ordered_flags = tuple(flag for flag in FLAG_CALLS.values() if flag in flags)
    return OpDef(
        name=op,
        inputs=tuple(_arg_from_spec(spec, list_attrs) for spec in args["Input"]),
        outputs=tuple(_arg_from_spec(spec, list_attrs) for spec in args["Output"]),
        attrs=tuple(attrs),
        flags=ordered_flags,
        unread=tuple(unread),
    )


def parse_attr_spec(spec: str) -> AttrDef | None:
    """``"name: type [>= min] [= default]"`` as OpDefBuilder reads it; None when unreadable."""
    match = _ATTR_SPEC.match(spec)
    if match is None:
        return None
    written = match.group("type")
    if written.startswith("{"):
        items = [item.strip() for item in written[1:-1].split(",") if item.strip()]
        strings = bool(items) and items[0][0] in "'\""
        base = "string" if strings else "type"
        allowed: tuple[str, ...] | None = tuple(item[1:-1] if strings else _data_type(item) for item in items)
        if not strings and _TYPE_CLASSES & set(items):  # {numbertype, variant}: not expanded
            allowed = None
    else:
        base = written if written in _BASIC_TYPES else "type"  # else a type class: numbertype, ...
        allowed = None
    is_list = match.group("list") is not None
    default_text = match.group("default")
    default = None
    if default_text is not None:
        field = _VALUE_FIELDS.get(base, "s")
        try:
            value = parse(f"list {{ {field}: {default_text} }}" if is_list else f"{field}: {default_text}")
            default = summarize_attr_value(value)
        except TextProtoError:
            default = default_text
    return AttrDef(
        name=match.group("name"),
        type=f"list({base})" if is_list else base,
        default=default,
        minimum=int(match.group("min")) if match.group("min") else None,
        allowed=allowed,
    )


def _arg_from_spec(spec: str, list_attrs: set[str]) -> str:
    match = _ARG_SPEC.match(spec)
    if match is None:
        return "".join(spec.split())
    ref = match.group("ref") is not None
    number = match.group("number")
    kind = "" if match.group("type") in list_attrs else match.group("type")
    text = ("Ref(" if ref else "") + (f"{number}*" if number else "") + kind + (")" if ref else "")
    return f"{match.group('name')}:{text}"


def _data_type(name: str) -> str:
    return name if name.startswith("DT_") else "DT_" + name.upper()


# --- summaries, as TensorFlow's attr_value_util.cc writes them ------------------------------


def data_type_string(enum_name: str) -> str:
    """``DataTypeString``: ``DT_FLOAT`` -> ``float``, ``DT_FLOAT_REF`` -> ``float_ref``."""
    return enum_name.removeprefix("DT_").lower()


def summarize_attr_value(value: Message) -> str:
    """``SummarizeAttrValue`` of a text-format ``AttrValue``."""
    for key, item in value.fields:
        if isinstance(item, str):
            return _summarize_scalar(key, item)
        if key == "list":
            for field in _LIST_FIELDS:
                pieces = item.all(field)
                if pieces:
                    return _summarize_list([_summarize_piece(field, piece) for piece in pieces])
            return "[]"
        return _summarize_piece(key, item)
    return "<Unknown AttrValue type>"


def _summarize_piece(field: str, item: str | Message) -> str:
    if isinstance(item, str):
        return _summarize_scalar(field, item)
    if field == "shape":
        if item.scalar("unknown_rank") == "true":
            return "<unknown>"
        sizes = [int(dim.scalar("size", "0")) for dim in item.messages("dim")]
        return "[" + ",".join("?" if size < 0 else str(size) for size in sizes) + "]"
    if field == "tensor":
        shape = item.message("tensor_shape")
        values = [v for key, v in item.fields if key.endswith("_val") and isinstance(v, str)]
        return (f"Tensor<type: {data_type_string(item.scalar('dtype', 'DT_INVALID'))} "
                f"shape: {_summarize_piece('shape', shape or Message())} values: {' '.join(values)}>")
    if field == "func":
        entries = sorted(
            f"{entry.scalar('key')}={summarize_attr_value(entry.message('value') or Message())}"
            for entry in item.messages("attr")
        )
        return f"{item.scalar('name')}[{', '.join(entries)}]"
    return "<Unknown AttrValue type>"


def _summarize_scalar(field: str, text: str) -> str:
    if field == "s":
        return summarize_string(text)
    if field == "f":
        return format_float(text)
    if field == "b":
        return "true" if text in ("true", "True", "t", "1") else "false"
    if field == "placeholder":
        return f"${text}"
    return text


def _summarize_list(pieces: list[str]) -> str:
    if len(pieces) >= _MAX_LIST_SUMMARY:
        pieces = [*pieces[:5], "...", *pieces[-5:]]
    return "[" + ", ".join(pieces) + "]"


def summarize_string(value: str) -> str:
    """``SummarizeString``: C-escaped, quoted, its middle elided past 80 characters."""
    escaped = c_escape(value)
    if len(escaped) >= _MAX_STRING_SUMMARY:
        escaped = f"{escaped[:10]}...{escaped[-10:]}"
    return f'"{escaped}"'


def c_escape(value: str) -> str:
    """``str_util::CEscape`` of ``value``'s UTF-8 bytes."""
    named = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(
        named.get(byte) or (chr(byte) if 0x20 <= byte < 0x7F else f"\\{byte:03o}")
        for byte in value.encode("utf-8")
    )


def format_float(text: str) -> str:
    """A float as TensorFlow's ``StrCat`` prints one: the shortest of ``%.6g``/``%.9g`` that
    reads back as the same single-precision value."""
    try:
        value = float(text.rstrip("fF") if not text.lower().endswith(("inf", "nan")) else text)
    except ValueError:
        return text
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    try:
        single = _single(value)
    except OverflowError:
        return text
    short = f"{single:.6g}"
    return short if _single(float(short)) == single else f"{single:.9g}"


def _single(value: float) -> float:
    unpacked: float = struct.unpack("f", struct.pack("f", value))[0]
    return unpacked
