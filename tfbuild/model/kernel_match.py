"""TensorFlow's rules for choosing the kernel that runs a NodeDef, as pure functions over data.

TensorFlow's header tool asks ``TryFindKernelClass`` (``tensorflow/python/util/kernel_registry.cc``)
which kernel class would run each node. That function parses the node's device
(``DeviceNameUtils::ParseFullName``), fills in the op's default attrs, and lets
``FindKernelRegistration`` (``core/framework/op_kernel.cc``) pick among the registrations for
``op:device:label``: each must match every type constraint (``KernelAttrsMatch``,
``core/framework/kernel_def_util.cc``, which checks values with ``AttrValueHasType``); among
matches the highest priority wins, two at the same priority are an error, and when nothing
matches the ``DEFAULT`` device's registrations are tried. Any error means no class at all.

The same rules are applied here to registrations kept as data (:mod:`kernel_registry`), so that
a model can be analysed without loading TensorFlow and still get exactly the class TensorFlow
would name, edge cases included. The C++ functions are followed statement by statement; the
tests compare the two on every registration of the installed TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_DEVICE = "DEFAULT"
"""``DEVICE_DEFAULT``: registrations tried when none of the node's own device type matches."""

REF_OFFSET = 100
"""``kDataTypeRefOffset``: DataType values above it are reference types."""

KERNEL_LABEL_ATTR = "_kernel"

AttrLookup = Callable[[str], Any]
"""A node's attr value by name, defaults included; None when the node has no such attr."""

_SCALAR_KINDS = {"s": "string", "i": "int", "b": "bool"}
_VALUE_FIELDS = (
    ("s", "string"), ("i", "int"), ("f", "float"), ("b", "bool"),
    ("type", "type"), ("shape", "shape"), ("tensor", "tensor"), ("func", "func"),
)


@dataclass(frozen=True)
class Constraint:
    """One ``TypeConstraint``/``AttrConstraint`` of a registration.

    ``kind`` is the ``ListValue`` field its allowed values are in (``type``, ``s``, ``i`` or
    ``b``), or ``""`` when they are in none or in several: TensorFlow refuses to match such a
    constraint, so any node that reaches it gets no kernel."""

    attr: str
    kind: str
    allowed: frozenset[Any]


@dataclass(frozen=True)
class Registration:
    """One ``REGISTER_KERNEL_BUILDER`` of the installed TensorFlow (CPU or DEFAULT device).

    ``kernel_class`` is None when no node could be built that selects this registration and no
    other: TensorFlow only reveals a class name through a lookup that picks it."""

    op: str
    device_type: str
    label: str
    priority: int
    constraints: tuple[Constraint, ...]
    kernel_class: str | None


RegistrationTable = Mapping[tuple[str, str, str], Sequence[Registration]]
"""Registrations by ``(op, device type, label)``, each list in TensorFlow's registry order."""


def find_registration(
    table: RegistrationTable,
    op: str,
    device_type: str,
    attr: AttrLookup,
    valid_types: Collection[int],
) -> Registration | None:
    """``FindKernelRegistration``: the registration TensorFlow picks for a node of ``op`` on
    ``device_type``, or None when it picks none or the lookup is an error."""
    label_value = attr(KERNEL_LABEL_ATTR)
    label = label_value.s if label_value is not None and label_value.WhichOneof("value") == "s" else b""
    label_text = label.decode("utf-8", errors="surrogateescape")
    chosen: Registration | None = None
    for registration in table.get((op, device_type, label_text), ()):
        match = kernel_attrs_match(registration, attr, valid_types)
        if match is None:
            return None
        if match:
            if chosen is not None:
                if chosen.priority == registration.priority:
                    return None  # "Multiple OpKernel registrations match NodeDef"
                if chosen.priority > registration.priority:
                    continue
            chosen = registration
    # TF skips this for symbolic (XLA JIT) devices; a CPU lookup never names one.
    if chosen is None:
        for registration in table.get((op, DEFAULT_DEVICE, label_text), ()):
            match = kernel_attrs_match(registration, attr, valid_types)
            if match is None:
                return None
            if match:
                if chosen is not None:
                    return None  # "Multiple Default OpKernel registrations match NodeDef"
                chosen = registration
    return chosen


def kernel_attrs_match(registration: Registration, attr: AttrLookup, valid_types: Collection[int]) -> bool | None:
    """``KernelAttrsMatch``: whether the node's attrs satisfy every constraint; None where
    TensorFlow returns an error (the attr is missing or of another kind)."""
    for constraint in registration.constraints:
        match = _constraint_match(constraint, attr(constraint.attr) if constraint.kind else None, valid_types)
        if not match:
            return match
    return True


def _constraint_match(constraint: Constraint, value: Any, valid_types: Collection[int]) -> bool | None:
    if value is None:  # the attr is missing, or the constraint is of no single kind
        return None
    if constraint.kind in _SCALAR_KINDS:
        if not attr_value_has_type(value, _SCALAR_KINDS[constraint.kind], valid_types):
            return None
        return getattr(value, constraint.kind) in constraint.allowed
    if value.type != 0:  # DT_INVALID: the value is not a single type
        return value.type in constraint.allowed
    if not attr_value_has_type(value, "list(type)", valid_types):
        return None
    return all(t in constraint.allowed for t in value.list.type)


def attr_value_has_type(value: Any, expected: str, valid_types: Collection[int]) -> bool:
    """``AttrValueHasType`` (``core/framework/attr_value_util.cc``) for the attr types kernel
    constraints check: ``string``, ``int``, ``bool``, ``type`` and ``list(type)``."""
    case = value.WhichOneof("value")
    is_list = expected.startswith("list(")
    num_set = _fields_of_type(value, case, expected)
    if num_set is None or case == "placeholder":
        return False
    if is_list and case != "list":
        if num_set:
            return False
        num_set = 1  # an empty list
    if expected == "type":
        plain = [value.type]
    elif expected == "list(type)":
        plain = list(value.list.type)
    else:
        plain = []
    return (num_set > 0 or is_list) and all(_is_plain_type(t, valid_types) for t in plain)


def _fields_of_type(value: Any, case: str | None, expected: str) -> int | None:
    """How many of the value's fields are set, all of type ``expected``; None if one is not."""
    num_set = 0
    for field, name in _VALUE_FIELDS:
        if case == "list":
            is_set, type_name = len(getattr(value.list, field)) > 0, f"list({name})"
        else:
            is_set, type_name = case == field, name
        if is_set:
            if expected != type_name:
                return None
            num_set += 1
    return num_set


def _is_plain_type(dtype: int, valid_types: Collection[int]) -> bool:
    return dtype in valid_types and dtype <= REF_OFFSET and dtype != 0


@dataclass(frozen=True)
class _Segment:
    prefix: str
    value: str  # "name" (a job), "number", or "device" (a type, then an optional ":" and id)
    device_type: str | None = None  # set by the legacy "/cpu:" and "/gpu:" forms


_SEGMENTS = (
    _Segment("/job:", "name"), _Segment("/replica:", "number"), _Segment("/task:", "number"),
    _Segment("/device:", "device"),
    _Segment("/cpu:", "number", "CPU"), _Segment("/CPU:", "number", "CPU"),
    _Segment("/gpu:", "number", "GPU"), _Segment("/GPU:", "number", "GPU"),
)


def parse_device_type(device: str) -> str | None:
    """The device type ``DeviceNameUtils::ParseFullName`` reads from ``device`` (``""`` when it
    names none; the legacy ``/cpu:0`` reads as ``CPU``), or None when it does not parse.

    No prefix of one segment kind starts another, so taking whichever prefix the rest starts
    with reads the segments in the order the C++ loop does."""
    device_type = ""
    rest = "" if device == "/" else device
    while rest:
        segment = next((s for s in _SEGMENTS if rest.startswith(s.prefix)), None)
        if segment is None:
            return None
        parsed = _segment_value(segment, rest[len(segment.prefix):])
        if parsed is None:
            return None
        named, rest = parsed
        device_type = segment.device_type or named or device_type
    return device_type


def _segment_value(segment: _Segment, rest: str) -> tuple[str | None, str] | None:
    """The device type a segment's value names (if any) and the text after it; None when the
    value is malformed. ``*`` stands for any value."""
    if segment.value == "number":
        after = _consume_number_or_star(rest)
        return None if after is None else (None, after)
    if rest.startswith("*"):
        named, rest = None, rest[1:]
    else:
        named, rest = _consume_prefix(rest, "/" if segment.value == "name" else "/:")
        if named is None:
            return None
    if segment.value == "device" and rest.startswith(":"):
        after = _consume_number_or_star(rest[1:])
        if after is None:
            return None
        rest = after
    return (named if segment.value == "device" else None), rest


def _consume_prefix(rest: str, terminators: str) -> tuple[str | None, str]:
    """``ConsumePrefix``: a letter, then letters, digits and underscores up to a terminator."""
    if not rest or not _is_alpha(rest[0]):
        return None, rest
    end = next((i for i, char in enumerate(rest) if char in terminators), len(rest))
    if not all(_is_alpha(c) or "0" <= c <= "9" or c == "_" for c in rest[:end]):
        return None, rest
    return rest[:end], rest[end:]


def _is_alpha(char: str) -> bool:
    return "a" <= char <= "z" or "A" <= char <= "Z"


def _consume_number_or_star(rest: str) -> str | None:
    """The text after ``ConsumeNumber`` (``ConsumeLeadingDigits`` into a uint64, failing on
    overflow as it does) or after a ``*``; None when neither is there."""
    if rest.startswith("*"):
        return rest[1:]
    value = 0
    end = 0
    while end < len(rest) and "0" <= rest[end] <= "9":
        new_value = (value * 10 + ord(rest[end]) - 48) % 2**64
        if new_value // 8 < value:
            return None
        value = new_value
        end += 1
    return rest[end:] if end else None
