"""The kernel builder of a registration: ``Name("Op").Device(DEVICE_CPU).TypeConstraint<T>("T")``.

:mod:`kernel_scan` hands over the builder argument of ``REGISTER_KERNEL_BUILDER`` after macro
expansion; this module reads the op name (a string literal, possibly made by ``#`` or split
into adjacent literals), the device, and the type constraints in both of TensorFlow's forms
(``TypeConstraint<float>("T")`` and ``TypeConstraint("T", DT_FLOAT)``). Other calls of the
chain (``HostMemory``, ``Label``, ``Priority``) do not change which kernel class is compiled.

Since TF 1.15 some op names are named constants rather than literals (``Name(kArgOp)``,
``Name(RangeDatasetOp::kDatasetType)``): the caller passes what those constants hold.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from tfbuild.cpp.macros import Token, spell

_DATA_TYPES = {
    "DT_FLOAT": "float", "DT_DOUBLE": "double", "DT_HALF": "Eigen::half", "DT_BFLOAT16": "bfloat16",
    "DT_INT8": "int8", "DT_INT16": "int16", "DT_INT32": "int32", "DT_INT64": "int64",
    "DT_UINT8": "uint8", "DT_UINT16": "uint16", "DT_UINT32": "uint32", "DT_UINT64": "uint64",
    "DT_BOOL": "bool", "DT_STRING": "string", "DT_COMPLEX64": "complex64",
    "DT_COMPLEX128": "complex128", "DT_QINT8": "qint8", "DT_QUINT8": "quint8",
    "DT_QINT16": "qint16", "DT_QUINT16": "quint16", "DT_QINT32": "qint32",
    "DT_RESOURCE": "ResourceHandle", "DT_VARIANT": "Variant",
}


def parse_builder(tokens: list[Token], constants: Mapping[str, str] | None = None,
                  ) -> tuple[str, str, tuple[tuple[str, str], ...]] | None:
    """Op, device and type constraints of an expanded ``Name(...)...`` builder; None when the
    op name is neither a string literal nor one of ``constants`` (``kArgOp``,
    ``RangeDatasetOp::kDatasetType``: a name as written, qualified or not)."""
    start = next((i for i, t in enumerate(tokens)
                  if t.text == "Name" and i + 1 < len(tokens) and tokens[i + 1].text == "("), None)
    if start is None:
        return None
    arguments, position = call_arguments(tokens, start + 1)
    op = string_value(arguments[0] if arguments else [])
    if op is None and arguments and constants:
        op = constants.get(spell(arguments[0]).replace(" ", "").removeprefix("::"))
    if not op:
        return None
    device = ""
    constraints: list[tuple[str, str]] = []
    while position + 1 < len(tokens) and tokens[position].text == "." and tokens[position + 1].kind == "id":
        method = tokens[position + 1].text
        position += 2
        template: list[Token] = []
        if position < len(tokens) and tokens[position].text == "<":
            template, position = _template_argument(tokens, position)
        if position >= len(tokens) or tokens[position].text != "(":
            break
        arguments, position = call_arguments(tokens, position)
        if method == "Device" and arguments:
            device = _device(arguments[0])
        elif method == "TypeConstraint" and arguments:
            attr = string_value(arguments[0])
            if attr is None:
                continue
            if template:
                constraints.append((attr, normalize_type(spell(template))))
            elif len(arguments) > 1:
                constraints.extend((attr, t) for t in _data_types(arguments[1:]))
    return op, device, tuple(constraints)


def normalize_type(text: str) -> str:
    """A C++ type as written in a constraint, without the ``::tensorflow::`` qualification."""
    text = "".join(text.split()) if "::" in text else text.strip()
    for prefix in ("::tensorflow::", "tensorflow::", "::"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text


def call_arguments(tokens: list[Token], open_index: int) -> tuple[list[list[Token]], int]:
    """Arguments of the parenthesised list opening at ``open_index``; index after it."""
    arguments: list[list[Token]] = [[]]
    depth = 0
    position = open_index
    while position < len(tokens):
        text = tokens[position].text
        position += 1
        if text in ("(", "{", "["):
            depth += 1
            if depth == 1:
                continue
        elif text in (")", "}", "]"):
            depth -= 1
            if depth == 0:
                break
        elif text == "," and depth == 1:
            arguments.append([])
            continue
        arguments[-1].append(tokens[position - 1])
    return ([] if arguments == [[]] else arguments), position


def _template_argument(tokens: list[Token], open_index: int) -> tuple[list[Token], int]:
    depth = 0
    inside: list[Token] = []
    position = open_index
    while position < len(tokens):
        token = tokens[position]
        position += 1
        closes = {">": 1, ">>": 2}.get(token.text, 0)
        depth += token.text == "<"
        if closes:
            depth -= closes
            if depth <= 0:
                if depth < 0:
                    inside.append(Token(">", "punct", token.white))
                return inside, position
        if not (token.text == "<" and depth == 1):
            inside.append(token)
    return inside, position


def string_value(tokens: list[Token]) -> str | None:
    if not tokens or any(t.kind != "str" for t in tokens):
        return None
    pieces = []
    for token in tokens:
        literal = token.text[token.text.index('"'):]
        if "\\" not in literal:
            pieces.append(literal[1:-1])
            continue
        try:
            pieces.append(ast.literal_eval(literal))
        except (ValueError, SyntaxError):
            pieces.append(literal[1:-1])
    return "".join(pieces)


def _device(tokens: list[Token]) -> str:
    literal = string_value(tokens)
    if literal is not None:
        return literal
    text = normalize_type(spell(tokens))
    return text[len("DEVICE_"):] if text.startswith("DEVICE_") else text


def _data_types(arguments: list[list[Token]]) -> list[str]:
    names = [t.text for argument in arguments for t in argument if t.kind == "id"]
    return [_DATA_TYPES[n] for n in names if n in _DATA_TYPES] or ["?"]
