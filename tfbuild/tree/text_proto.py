"""Protocol Buffers text format, read without a schema: enough for TensorFlow's golden files.

``tensorflow/core/ops/ops.pbtxt`` is an ``OpList`` in text format. Reading it needs no
TensorFlow (and no protobuf classes) when the reader keeps what the text says: field names,
scalar values as written (strings unescaped, adjacent strings joined), nested messages, and
the ``[a, b]`` list shorthand as repeated fields. The caller knows the schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_TOKEN = re.compile(
    r"""
      (?P<space>\s+|\#[^\n]*)
    | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    | (?P<word>[A-Za-z0-9_.+\-]+)
    | (?P<punct>[{}<>\[\]:,;])
    """,
    re.VERBOSE,
)
_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11,
                   "\\": 92, "'": 39, '"': 34, "?": 63}
_CLOSING = {"{": "}", "<": ">"}
MAX_DEPTH = 100
"""How deep messages may nest: protobuf's own limit for a binary message (its default
recursion limit), which no OpList comes near; deeper text is a :class:`TextProtoError`."""


class TextProtoError(ValueError):
    """Text that is not in protobuf text format; the message names the line."""


@dataclass(frozen=True)
class Message:
    """One message: its fields in the order written (a repeated field appears once per value).
    A value is a scalar's text (strings unescaped) or a nested message."""

    fields: tuple[tuple[str, str | Message], ...] = field(default=())

    def all(self, name: str) -> list[str | Message]:
        return [value for key, value in self.fields if key == name]

    def messages(self, name: str) -> list[Message]:
        return [value for key, value in self.fields if key == name and isinstance(value, Message)]

    def message(self, name: str) -> Message | None:
        found = self.messages(name)
        return found[0] if found else None

    def scalar(self, name: str, default: str = "") -> str:
        for key, value in self.fields:
            if key == name and isinstance(value, str):
                return value
        return default

    def scalars(self, name: str) -> list[str]:
        return [value for key, value in self.fields if key == name and isinstance(value, str)]


def parse(text: str) -> Message:
    """``text`` as a message; :class:`TextProtoError` when it is not text format."""
    return _message(list(_tokens(text)), 0, None, 0)[0]


def _tokens(text: str) -> Iterator[tuple[str, str, int]]:
    """(kind, text, line) of each token; strings are unescaped."""
    position = 0
    line = 1
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise TextProtoError(f"line {line}: unexpected character {text[position]!r}")
        kind = match.lastgroup or "space"
        piece = match.group(0)
        if kind == "string":
            yield kind, unescape(piece[1:-1]), line
        elif kind != "space":
            yield kind, piece, line
        line += piece.count("\n")
        position = match.end()


def _message(
    tokens: list[tuple[str, str, int]], position: int, closer: str | None, depth: int
) -> tuple[Message, int]:
    fields: list[tuple[str, str | Message]] = []
    while position < len(tokens):
        kind, piece, line = tokens[position]
        if kind == "punct" and piece == closer:
            return Message(tuple(fields)), position + 1
        if kind != "word":
            raise TextProtoError(f"line {line}: expected a field name, found {piece!r}")
        position += 1
        if position < len(tokens) and tokens[position][1] == ":":
            position += 1
        if position < len(tokens) and tokens[position][1] == "[":
            values, position = _list(tokens, position + 1, depth)
            fields += [(piece, value) for value in values]
        else:
            value, position = _value(tokens, position, line, depth)
            fields.append((piece, value))
        if position < len(tokens) and tokens[position][1] in (",", ";"):
            position += 1
    if closer is not None:
        raise TextProtoError(f"end of text: {closer!r} missing")
    return Message(tuple(fields)), position


def _list(tokens: list[tuple[str, str, int]], position: int, depth: int) -> tuple[list[str | Message], int]:
    values: list[str | Message] = []
    while position < len(tokens) and tokens[position][1] != "]":
        value, position = _value(tokens, position, tokens[position][2], depth)
        values.append(value)
        if position < len(tokens) and tokens[position][1] == ",":
            position += 1
    if position >= len(tokens):
        raise TextProtoError("end of text: ']' missing")
    return values, position + 1


def _value(
    tokens: list[tuple[str, str, int]], position: int, line: int, depth: int
) -> tuple[str | Message, int]:
    if position >= len(tokens):
        raise TextProtoError(f"line {line}: value missing at the end of the text")
    kind, piece, line = tokens[position]
    if kind == "punct" and piece in _CLOSING:
        if depth >= MAX_DEPTH:
            raise TextProtoError(f"line {line}: messages nested more than {MAX_DEPTH} deep (protobuf's own limit)")
        return _message(tokens, position + 1, _CLOSING[piece], depth + 1)
    if kind == "string":
        pieces = [piece]
        position += 1
        while position < len(tokens) and tokens[position][0] == "string":
            pieces.append(tokens[position][1])
            position += 1
        return "".join(pieces), position
    if kind == "word":
        return piece, position + 1
    raise TextProtoError(f"line {line}: expected a value, found {piece!r}")


def unescape(body: str) -> str:
    """A text-format string's content with its C escapes (``\\n``, ``\\"``, octal, ``\\x``)
    resolved; the bytes are read as UTF-8."""
    if "\\" not in body:
        return body
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 == len(body):
            out += char.encode("utf-8")
            index += 1
            continue
        following = body[index + 1]
        octal = re.match(r"[0-7]{1,3}", body[index + 1:index + 4])
        hexadecimal = re.match(r"[xX]([0-9A-Fa-f]{1,2})", body[index + 1:index + 4])
        if octal:
            out.append(int(octal.group(0), 8) & 0xFF)
            index += 1 + len(octal.group(0))
        elif hexadecimal:
            out.append(int(hexadecimal.group(1), 16))
            index += 1 + len(hexadecimal.group(0))
        else:
            out += bytes([_SIMPLE_ESCAPES[following]]) if following in _SIMPLE_ESCAPES else following.encode()
            index += 2
    return out.decode("utf-8", errors="replace")
