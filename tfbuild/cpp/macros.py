"""Just enough of the C preprocessor to read TensorFlow's kernel registrations as g++ does.

A kernel's class string is what ``REGISTER_KERNEL_BUILDER`` stringifies with ``#__VA_ARGS__``
after every macro in its arguments has been expanded: ``REGISTER6(BinaryOp, CPU, "Add", ...)``
becomes ``BinaryOp<CPUDevice, functor::add<float>>`` through ``D##Device`` pasting, and
``MatMulOp<CPUDevice, float, false >`` keeps the space a ``/* comment */`` left. Guessing those
strings with regular expressions gets them subtly wrong, and a wrong string silently drops the
kernel from a selective build, so this module expands macros the way the standard says
(Prosser's algorithm with hide sets, argument pre-expansion, ``#`` and ``##``) and tracks the
whitespace flags that decide where stringification puts spaces: a token keeps the whitespace
that preceded it where it was written, and the first token of a substituted argument takes the
whitespace of the parameter it replaces. ``tests/test_kernel_index.py`` checks the results
against g++ itself.

Only the pieces the kernel index needs are here: lexing comment-free text, ``#define`` bodies,
and expansion with caller-chosen *terminal* macros (``REGISTER_KERNEL_BUILDER``) that are
reported with their raw arguments instead of being expanded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""
      (?P<ws>[ \t\f\v\r\n]+)
    | (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
    | (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
    | (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
    | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*)
    | (?P<punct>\#\#|::|->|\.\.\.|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^]=|.)
    """,
    re.VERBOSE | re.DOTALL,
)
_RAW_STRING = r'(?:u8|[uUL])?R"([^()\\\s"]{0,16})\(.*?\)\1"'
_LITERAL = _RAW_STRING + r"""|(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"|(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'"""
# The lookaheads let the scan skip most characters without trying every alternative.
_STRING_OR_COMMENT = re.compile(r"(?=[/\"'uULR])(?://[^\n]*|/\*.*?\*/|" + _LITERAL + ")", re.DOTALL)
_LITERALS = re.compile(r"(?=[\"'uULR])(?:" + _LITERAL + ")", re.DOTALL)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

MAX_EXPANSION_STEPS = 200_000


class MacroError(Exception):
    """A macro use this module cannot expand (wrong argument count, runaway expansion)."""


class Token:
    """One preprocessing token. ``white``: whitespace preceded it; ``hide``: the macros that
    must not expand it again (its hide set)."""

    __slots__ = ("hide", "kind", "text", "white")

    def __init__(self, text: str, kind: str, white: bool, hide: frozenset[str] = frozenset()):
        self.text = text
        self.kind = kind
        self.white = white
        self.hide = hide

    def but(self, *, white: bool | None = None, hide: frozenset[str] | None = None) -> Token:
        return Token(self.text, self.kind, self.white if white is None else white,
                     self.hide if hide is None else hide)

    def __repr__(self) -> str:  # for test failure messages
        return f"Token({self.text!r}{', white' if self.white else ''})"


# Marks an empty argument next to ## (the standard's placemarker); never leaves _substitute.
_PLACEMARKER = Token("", "placemarker", False)


def strip_comments(text: str) -> str:
    """``text`` with each comment replaced by one space (block comments keep their newlines so
    line numbers still count), string and character literals left alone."""

    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        if found[0] != "/":
            return found
        return " " + "\n" * found.count("\n") if found[1] == "*" else " "

    return _STRING_OR_COMMENT.sub(replace, text)


def mask_literals(text: str) -> str:
    """``text`` with the inside of every string and character literal blanked (same length),
    so a search for macro calls cannot find one written inside a string."""

    def blank(match: re.Match[str]) -> str:
        found = match.group(0)
        if "\n" not in found:
            return found[0] + " " * (len(found) - 2) + found[-1]
        # keep newlines (and the backslash of a continuation) so lines still line up
        inside = "".join(c if c == "\n" or (c == "\\" and found[i + 2:i + 3] == "\n") else " "
                         for i, c in enumerate(found[1:-1]))
        return found[0] + inside + found[-1]

    return _LITERALS.sub(blank, text)


def lex(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of comment-free ``text[start:end]``. Newlines count as whitespace."""
    return [token for token, _, _ in _scan_tokens(text, start, end)]


def _scan_tokens(text: str, start: int, end: int | None = None) -> Iterator[tuple[Token, int, int]]:
    """Each token of ``text[start:end]``, with whitespace folded into the next token's
    ``white`` flag, as (token, its start, the offset after it)."""
    white = False
    stop = len(text) if end is None else end
    position = start
    while position < stop:
        match = _TOKEN.match(text, position, stop)
        assert match is not None  # the last alternative matches any character
        position = match.end()
        kind = match.lastgroup or "punct"  # every alternative is a named group
        if kind == "ws":
            white = True
            continue
        yield Token(match.group(0), "raw" if kind == "delim" else kind, white), match.start(), position
        white = False


def lex_invocation(text: str, start: int) -> tuple[list[Token], int] | None:
    """The tokens of the macro invocation starting at ``text[start]`` (a name, then a balanced
    parenthesised argument list) and the offset after it; None when the parentheses do not
    close within ``text``."""
    tokens: list[Token] = []
    depth = 0
    position = start
    for token, token_start, position in _scan_tokens(text, start):
        tokens.append(token)
        if len(tokens) == 2 and token.text != "(":
            return tokens[:1], token_start
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
            if depth == 0:
                return tokens, position
    if len(tokens) == 1:
        return tokens, max(start, len(text))
    return None


def unclosed_parentheses(text: str) -> frozenset[int]:
    """The offsets of the ``(`` tokens of ``text`` whose ``)`` never comes: one pass, so a
    file ending in thousands of unclosed macro calls is read in linear time (each
    :func:`lex_invocation` of one of them would run to the end of the text)."""
    opened: list[int] = []
    for token, token_start, _ in _scan_tokens(text, 0):
        if token.text == "(":
            opened.append(token_start)
        elif token.text == ")" and opened:
            opened.pop()
    return frozenset(opened)


_OPENERS = frozenset({"(", "[", "{"})
_CLOSERS = frozenset({")", "]", "}"})


def lex_statement(text: str, start: int) -> tuple[list[Token], int]:
    """The tokens of the statement starting at ``text[start]``, up to the first ``;`` outside
    every bracket (not included; a lambda's body inside an argument list does not end it), and
    the offset after that ``;``. An unmatched closing bracket (the end of the enclosing block)
    or the end of ``text`` also ends the statement."""
    tokens: list[Token] = []
    depth = 0
    position = start
    for token, token_start, position in _scan_tokens(text, start):
        if token.text in _OPENERS:
            depth += 1
        elif token.text in _CLOSERS:
            depth -= 1
            if depth < 0:
                return tokens, token_start
        elif token.text == ";" and depth == 0:
            return tokens, position
        tokens.append(token)
    return tokens, max(start, len(text))


def spell(tokens: Sequence[Token]) -> str:
    """The text ``#`` would make of ``tokens``, without the quotes: one space wherever
    whitespace preceded a token, none before the first."""
    parts = []
    for index, token in enumerate(tokens):
        if index and token.white:
            parts.append(" ")
        parts.append(token.text)
    return "".join(parts)


def _stringize(tokens: Sequence[Token], white: bool) -> Token:
    escaped = []
    for index, token in enumerate(tokens):
        if index and token.white:
            escaped.append(" ")
        text = token.text
        if token.kind in ("str", "chr"):
            text = text.replace("\\", "\\\\").replace('"', '\\"')
        escaped.append(text)
    return Token('"' + "".join(escaped) + '"', "str", white)


@dataclass(frozen=True)
class Macro:
    """A ``#define``. ``params`` is None for an object-like macro; a variadic macro's last
    parameter is ``__VA_ARGS__`` (or the GNU named form, stored by its name)."""

    name: str
    params: tuple[str, ...] | None
    variadic: bool
    body: tuple[Token, ...]
    origin: str  # repository path of the defining file, or "<builtin>"
    guard: str | None = None  # the preprocessor condition the definition sits under, if unknown

    def mentions(self) -> frozenset[str]:
        """Identifiers the body uses (other than its parameters)."""
        params = set(self.params or ())
        return frozenset(t.text for t in self.body if t.kind == "id" and t.text not in params)

    def calls_a_parameter(self) -> bool:
        """True for macros such as ``TF_CALL_float(m) m(float)`` that apply a macro passed in."""
        if not self.params:
            return False
        body = self.body
        return any(
            token.kind == "id" and token.text in self.params and index + 1 < len(body)
            and body[index + 1].text == "("
            for index, token in enumerate(body)
        )


_DEFINE_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)(\()?")


def parse_define(text: str, *, origin: str, guard: str | None = None) -> Macro | None:
    """The macro a ``#define`` directive (``text`` is what follows ``define``) declares; None
    for a malformed one."""
    head = _DEFINE_HEAD.match(text)
    if head is None:
        return None
    name = head.group(1)
    position = head.end()
    params: tuple[str, ...] | None = None
    variadic = False
    if head.group(2):
        close = text.find(")", position)
        if close < 0:
            return None
        names = [p.strip() for p in text[position:close].split(",")] if text[position:close].strip() else []
        if names and names[-1].endswith("..."):
            variadic = True
            names[-1] = names[-1][:-3].strip() or "__VA_ARGS__"
        if not all(_IDENTIFIER.fullmatch(n) for n in names):
            return None
        params = tuple(names)
        position = close + 1
    return Macro(name, params, variadic, tuple(lex(text, position)), origin, guard)


class Expander:
    """Expands token lists with a macro table. Identifiers in ``terminals`` followed by an
    argument list are not expanded: ``on_terminal(name_token, raw_arguments, expander)`` gets
    their unexpanded arguments (the commas between them are kept in ``raw_arguments``' join,
    see :func:`join_arguments`) and they vanish from the output."""

    def __init__(self, macros: Mapping[str, Macro], terminals: frozenset[str],
                 on_terminal: Callable[[Token, list[list[Token]], list[Token], Expander], None]):
        self.macros = macros
        self.terminals = terminals
        self.on_terminal = on_terminal
        self.used: set[str] = set()
        self._steps = 0

    def expand(self, tokens: Sequence[Token]) -> list[Token]:
        out: list[Token] = []
        pending = list(reversed(tokens))
        while pending:
            self._steps += 1
            if self._steps > MAX_EXPANSION_STEPS:
                raise MacroError("macro expansion does not end")
            token = pending.pop()
            if token.kind != "id" or token.text in token.hide:
                out.append(token)
                continue
            name = token.text
            if name in self.terminals:
                taken = _take_arguments(pending)
                if taken is None:
                    out.append(token)
                else:
                    self.on_terminal(token, taken[0], taken[1], self)
                continue
            macro = self.macros.get(name)
            if macro is None:
                out.append(token)
                continue
            if macro.params is None:
                body = self._substitute(macro, {}, token.hide | {name}, token.white)
            else:
                taken = _take_arguments(pending)
                if taken is None:
                    out.append(token)
                    continue
                arguments, commas, close = taken
                bound = _bind(macro, arguments, commas)
                body = self._substitute(macro, bound, (token.hide & close.hide) | {name}, token.white)
            self.used.add(name)
            pending.extend(reversed(body))
        return out

    def _substitute(self, macro: Macro, bound: dict[str, list[Token]], hide: frozenset[str],
                    white: bool) -> list[Token]:
        body = macro.body
        expanded: dict[str, list[Token]] = {}
        out: list[Token] = []
        index = 0
        while index < len(body):
            token = body[index]
            following = body[index + 1] if index + 1 < len(body) else None
            if token.text == "#" and following is not None and following.text in bound:
                out.append(_stringize(bound[following.text], token.white))
                index += 2
                continue
            if token.text == "##" and out and following is not None:
                right = list(bound[following.text]) if following.text in bound else [following]
                _paste(out, right, following.text)
                index += 2
                continue
            if token.kind == "id" and token.text in bound:
                if following is not None and following.text == "##":
                    replacement = list(bound[token.text]) or [_PLACEMARKER]
                else:
                    if token.text not in expanded:
                        argument = bound[token.text]
                        expandable = any(t.kind == "id" and (t.text in self.macros or t.text in self.terminals)
                                         for t in argument)
                        expanded[token.text] = self.expand(argument) if expandable else argument
                    replacement = list(expanded[token.text])
                if replacement and replacement[0] is not _PLACEMARKER:
                    replacement[0] = replacement[0].but(white=token.white)
                out.extend(replacement)
                index += 1
                continue
            out.append(token)
            index += 1
        # Only identifiers can be macro names, so only they need the hide set.
        result = [Token(t.text, "id", t.white, t.hide | hide) if t.kind == "id" else t
                  for t in out if t is not _PLACEMARKER]
        if result and result[0].white != white:
            result[0] = result[0].but(white=white)
        return result


def _paste(out: list[Token], right: list[Token], right_name: str) -> None:
    """Apply ``##`` between the last token of ``out`` and ``right`` (an argument's raw tokens
    or one body token)."""
    left = out.pop()
    if not right:
        if left.text == "," and right_name == "__VA_ARGS__":
            return  # GNU: ", ## __VA_ARGS__" drops the comma when there are no variadic arguments
        out.append(left)
        return
    if left is _PLACEMARKER:
        out.extend(right)
        return
    pasted = lex(left.text + right[0].text)
    if len(pasted) == 1:
        out.append(Token(pasted[0].text, pasted[0].kind, left.white, left.hide))
    else:  # not a valid token; g++ rejects it, keep the pieces
        out.append(left)
        out.append(right[0])
    out.extend(right[1:])


def _take_arguments(pending: list[Token]) -> tuple[list[list[Token]], list[Token], Token] | None:
    """Pop ``( ... )`` off ``pending`` (a reversed token stack); the arguments, the commas
    separating them, and the closing parenthesis. None (nothing popped) when no argument list
    follows or it does not close."""
    if not pending or pending[-1].text != "(":
        return None
    taken: list[Token] = []
    arguments: list[list[Token]] = [[]]
    commas: list[Token] = []
    depth = 0
    while pending:
        token = pending.pop()
        taken.append(token)
        if token.text == "(":
            depth += 1
            if depth == 1:
                continue
        elif token.text == ")":
            depth -= 1
            if depth == 0:
                return arguments, commas, token
        elif token.text == "," and depth == 1:
            arguments.append([])
            commas.append(token)
            continue
        arguments[-1].append(token)
    pending.extend(reversed(taken))
    return None


def join_arguments(arguments: Sequence[list[Token]], commas: Sequence[Token], first: int) -> list[Token]:
    """``arguments[first:]`` as the single token list ``__VA_ARGS__`` would be, commas included."""
    joined: list[Token] = []
    for index in range(first, len(arguments)):
        if index > first:
            joined.append(commas[index - 1])
        joined.extend(arguments[index])
    return joined


def _bind(macro: Macro, arguments: list[list[Token]], commas: list[Token]) -> dict[str, list[Token]]:
    params = macro.params or ()
    if macro.variadic:
        named = len(params) - 1
        if len(arguments) < named:
            raise MacroError(f"{macro.name}: {len(arguments)} arguments for {named}+")
        bound = {params[i]: arguments[i] for i in range(named)}
        bound[params[-1]] = join_arguments(arguments, commas, named) if len(arguments) > named else []
        return bound
    if len(params) == 0 and arguments == [[]]:
        return {}
    if len(arguments) != len(params):
        raise MacroError(f"{macro.name}: {len(arguments)} arguments for {len(params)}")
    return dict(zip(params, arguments, strict=True))
