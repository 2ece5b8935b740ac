"""The op builder of a registration: ``REGISTER_OP("Conv2D").Input("input: T").Attr("T: ...")...``.

:mod:`tfbuild.cpp.scan` hands over one statement after macro expansion (so a
``REDUCTION_OP("Min")`` wrapper or a ``.BINARY_MORE()`` shorthand reads as the calls it stands
for); this module reads the op name and the chain of builder calls after it. Arguments are
kept as string-literal values (adjacent literals joined, as the compiler joins them) where they
are literals, and as spelled text where they are not (``Attr(GetPaddingAttrString())``): what
the specs mean is for the caller (:mod:`tfbuild.tree.op_defs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from tfbuild.cpp.kernel_def import call_arguments, string_value
from tfbuild.cpp.macros import Token, spell

OP_TERMINALS = frozenset({"REGISTER_OP", "REGISTER_SYSTEM_OP"})
"""The macros that start an op definition (``REGISTER_SYSTEM_OP`` defines ``_Arg``, ``_Retval``)."""


@dataclass(frozen=True)
class BuilderCall:
    """One ``.Method(arguments)`` of an op builder chain. ``literals`` holds each argument's
    string value, or None where the argument is not a string literal; ``spelled`` the
    arguments as written (after macro expansion)."""

    method: str
    literals: tuple[str | None, ...]
    spelled: tuple[str, ...]


@dataclass(frozen=True)
class OpBuilder:
    """``REGISTER_OP("name")`` and the calls chained to it, in order."""

    op: str
    calls: tuple[BuilderCall, ...]


def parse_op_builders(tokens: list[Token]) -> tuple[list[OpBuilder], list[str]]:
    """Every op builder in an expanded statement (a macro can define several), and notes for
    registrations whose op name is not a string literal."""
    builders: list[OpBuilder] = []
    notes: list[str] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if not (token.text in OP_TERMINALS and position + 1 < len(tokens) and tokens[position + 1].text == "("):
            position += 1
            continue
        arguments, position = call_arguments(tokens, position + 1)
        op = string_value(arguments[0]) if len(arguments) == 1 else None
        calls, position = _chain(tokens, position)
        if op:
            builders.append(OpBuilder(op, tuple(calls)))
        else:
            written = ", ".join(spell(argument) for argument in arguments)
            notes.append(f"{token.text}({written[:80]}): op name is not a string literal")
    return builders, notes


def _chain(tokens: list[Token], position: int) -> tuple[list[BuilderCall], int]:
    calls = []
    while (
        position + 2 < len(tokens)
        and tokens[position].text == "."
        and tokens[position + 1].kind == "id"
        and tokens[position + 2].text == "("
    ):
        method = tokens[position + 1].text
        arguments, position = call_arguments(tokens, position + 2)
        calls.append(BuilderCall(
            method,
            tuple(string_value(argument) for argument in arguments),
            tuple(spell(argument) for argument in arguments),
        ))
    return calls, position
