"""Write the installed TensorFlow's kernel registry as JSON: run in a child process, with TensorFlow.

    python -m tfbuild.model.registry_dump OUT.json [OP_LIBRARY.so ...]

:mod:`tfbuild.model.kernel_registry` runs this once per installed TensorFlow (and set of custom
op libraries) and caches what it writes, so that later runs analyse models without importing
TensorFlow. It records what TensorFlow's kernel lookup depends on:

- every op and the default values of its attrs (``TryFindKernelClass`` fills them in first);
- every CPU and DEFAULT kernel registration, by op and in registry order, with its constraints,
  priority, label and kernel class;
- the valid ``DataType`` values and the name ``tf.as_dtype`` gives each (the dtypes column).

Each op's attr defaults and registrations are stored as JSON text of their own, decoded when a
node of that op is first looked up: reading the document then costs a third of what building
the lists of all ten thousand registrations would, and a model uses a few dozen ops.

TensorFlow exposes a registration's kernel class only through a lookup that selects it, so for
each registration this builds a NodeDef that selects it and no other, by TensorFlow's own rules
(:mod:`tfbuild.model.kernel_match`), and asks ``TryFindKernelClass`` for the class. A
registration no NodeDef can single out (shadowed by an identical one of higher priority) is
recorded without a class; it is never the one chosen.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tfbuild.model.kernel_match import (
    DEFAULT_DEVICE,
    KERNEL_LABEL_ATTR,
    REF_OFFSET,
    Constraint,
    Registration,
    find_registration,
)

LIBRARY_ERROR_EXIT = 3
_DEVICES = ("CPU", DEFAULT_DEVICE)
_MAX_TRIES = 4096
_LOOKUP_DEVICE = {"CPU": "/cpu:0", DEFAULT_DEVICE: "/device:cpu:0"}
"""A lookup on ``cpu`` (lower case) finds no CPU registration, so only DEFAULT ones compete."""

_V = TypeVar("_V")


def main(argv: Sequence[str]) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    out, libraries = Path(argv[0]), argv[1:]
    import tensorflow as tf

    for library in libraries:
        try:
            tf.load_op_library(library)
        except Exception as error:  # tf.errors.NotFoundError for undefined symbols etc.
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
            out.write_text(json.dumps({"error": {"library": library, "reason": reason}}))
            return LIBRARY_ERROR_EXIT
    out.write_text(json.dumps(dump(tf.__version__)))
    return 0


def dump(tensorflow_version: str) -> dict[str, object]:
    """The registry document (see the module doc); TensorFlow must be importable."""
    from tensorflow.core.framework import op_def_pb2, types_pb2
    from tensorflow.python.client import pywrap_tf_session
    from tensorflow.python.framework import dtypes, kernels

    op_list = op_def_pb2.OpList.FromString(pywrap_tf_session.TF_GetBuffer(pywrap_tf_session.TF_GetAllOpList()))
    ops = {
        op.name: {a.name: _b64(a.default_value.SerializeToString()) for a in op.attr if a.HasField("default_value")}
        for op in op_list.op
    }
    valid_types = sorted(types_pb2.DataType.values())
    dtype_names = {}
    for enum in sorted({*valid_types, *range(2 * REF_OFFSET + 56)}):
        try:
            dtype_names[str(enum)] = dtypes.as_dtype(enum).name
        except (TypeError, ValueError):
            continue
    registrations = [
        _registration(kernel_def) for kernel_def in kernels.get_all_registered_kernels().kernel
        if kernel_def.device_type in _DEVICES
    ]
    by_op: dict[str, list[list[Any]]] = {}
    for registration in _with_classes(registrations, ops, frozenset(valid_types)):
        by_op.setdefault(registration.op, []).append(encode_registration(registration))
    return {
        "tensorflow_version": tensorflow_version,
        "ops": {op: json.dumps(defaults) for op, defaults in ops.items()},
        "valid_types": valid_types,
        "dtype_names": dtype_names,
        "registrations": {op: json.dumps(entries) for op, entries in by_op.items()},
    }


def encode_registration(registration: Registration) -> list[Any]:
    """A registration as a JSON list (read back by :func:`decode_registration`)."""
    constraints = [
        [c.attr, c.kind, sorted(_b64(v) if c.kind == "s" else v for v in c.allowed)]
        for c in registration.constraints
    ]
    return [registration.op, registration.device_type, registration.label, registration.priority,
            constraints, registration.kernel_class]


def decode_registration(entry: Sequence[Any]) -> Registration:
    op, device_type, label, priority, constraints, kernel_class = entry
    return Registration(
        op=str(op),
        device_type=str(device_type),
        label=str(label),
        priority=int(priority),
        constraints=tuple(
            Constraint(str(attr), str(kind), frozenset(base64.b64decode(v) if kind == "s" else v for v in allowed))
            for attr, kind, allowed in constraints
        ),
        kernel_class=None if kernel_class is None else str(kernel_class),
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _registration(kernel_def: Any) -> Registration:
    constraints = []
    for constraint in kernel_def.constraint:
        allowed = constraint.allowed_values.list
        kinds = [kind for kind in ("type", "s", "i", "b") if len(getattr(allowed, kind))]
        kind = kinds[0] if len(kinds) == 1 else ""
        values = frozenset(getattr(allowed, kind)) if kind else frozenset()
        constraints.append(Constraint(constraint.name, kind, values))
    return Registration(kernel_def.op, kernel_def.device_type, kernel_def.label, kernel_def.priority,
                        tuple(constraints), None)


def _with_classes(
    registrations: list[Registration], ops: dict[str, dict[str, str]], valid_types: frozenset[int]
) -> list[Registration]:
    from dataclasses import replace

    from tensorflow.python.util import _pywrap_kernel_registry

    table: dict[tuple[str, str, str], list[Registration]] = {}
    for registration in registrations:
        table.setdefault((registration.op, registration.device_type, registration.label), []).append(registration)
    named = []
    for registration in registrations:
        node_def = _isolating_node_def(registration, table, ops, valid_types)
        kernel_class = None
        if node_def is not None:
            found = _pywrap_kernel_registry.TryFindKernelClass(node_def.SerializeToString())
            kernel_class = found.decode("utf-8") if found else None
        named.append(replace(registration, kernel_class=kernel_class))
    return named


def _isolating_node_def(
    registration: Registration,
    table: dict[tuple[str, str, str], list[Registration]],
    ops: dict[str, dict[str, str]],
    valid_types: frozenset[int],
) -> Any | None:
    """A NodeDef for which TensorFlow's lookup picks ``registration``, or None if none was found
    within :data:`_MAX_TRIES` candidate attr assignments."""
    from tensorflow.core.framework import attr_value_pb2, node_def_pb2

    if registration.op not in ops or any(not c.kind for c in registration.constraints):
        return None
    group = table[(registration.op, registration.device_type, registration.label)]
    own = {c.attr: c for c in registration.constraints}
    others: dict[str, tuple[str, set[Any]]] = {}
    for other in group:
        for constraint in other.constraints:
            if constraint.attr not in own and constraint.kind:
                kind, used = others.setdefault(constraint.attr, (constraint.kind, set()))
                if kind == constraint.kind:
                    used.update(constraint.allowed)
    defaults = {name: attr_value_pb2.AttrValue.FromString(base64.b64decode(value))
                for name, value in ops[registration.op].items()}
    names = [*own, *others]
    choices = [sorted(c.allowed) for c in own.values()]
    choices += [_other_values(kind, used, valid_types) for kind, used in others.values()]
    device_type = "CPU" if registration.device_type == "CPU" else "cpu"
    for values in itertools.islice(itertools.product(*choices), _MAX_TRIES):
        attrs = {}
        for name, value in zip(names, values, strict=True):
            kind = own[name].kind if name in own else others[name][0]
            attrs[name] = attr_value_pb2.AttrValue(**{kind: value})
        if registration.label:
            attrs[KERNEL_LABEL_ATTR] = attr_value_pb2.AttrValue(s=registration.label.encode("utf-8"))
        lookup = functools.partial(_attr_or_default, attrs, defaults)
        if find_registration(table, registration.op, device_type, lookup, valid_types) is registration:
            node_def = node_def_pb2.NodeDef(name="probe", op=registration.op)
            node_def.device = _LOOKUP_DEVICE[registration.device_type]
            for name, value in attrs.items():
                node_def.attr[name].CopyFrom(value)
            return node_def
    return None


def _attr_or_default(attrs: Mapping[str, _V], defaults: Mapping[str, _V], name: str) -> _V | None:
    return attrs.get(name) or defaults.get(name)


def _other_values(kind: str, used: set[Any], valid_types: frozenset[int]) -> list[Any]:
    """Values to try for an attr the registration does not constrain: one no registration
    allows (so the others drop out), then each value some registration allows."""
    fresh: list[Any] = []
    if kind == "type":
        fresh = [t for t in sorted(valid_types) if 0 < t <= REF_OFFSET and t not in used][:1]
    elif kind == "i":
        fresh = [max(used, default=0) + 1]
    elif kind == "s":
        fresh = [b"tfbuild-none" + b"-" * len(used)]
    elif kind == "b":
        fresh = [b for b in (False, True) if b not in used][:1]
    return fresh + sorted(used)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
