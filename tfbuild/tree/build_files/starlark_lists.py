"""Finding one string-list literal in a BUILD file by its tokens, and adding lines to it in place.

``tensorflow/core/kernels/BUILD`` is ~6,000 lines that people diff and merge; tfbuild must change
only the lines it adds. So the file is never re-printed from a syntax tree: the tokenizer finds
``filegroup(... name = "X", ... srcs = [ ... ])``, the exact character span of that list and of
each entry, and new entries are inserted as whole lines with the list's own indentation and
trailing commas. Comments, odd spacing and everything outside the list stay byte-identical.

Only lists written one entry per line (how TensorFlow's BUILD files are formatted) are edited;
anything else is refused with a :class:`SourceTreeError` naming the file and line.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tfbuild.errors import SourceTreeError
from tfbuild.templating import render


@dataclass(frozen=True)
class ListEntry:
    value: str
    row: int
    token_end: int
    """Offset just after the string token (where a missing comma goes)."""
    has_comma: bool
    line_start: int
    line_end: int
    """Offset just after the entry's line, newline included."""
    block_start: int
    """Start of the comment lines directly above the entry (its line start if there are none)."""
    indent: str


@dataclass(frozen=True)
class ListSpan:
    """A located list literal: its entries and where its closing bracket's line starts."""

    function: str
    name: str
    attribute: str
    row: int
    entries: tuple[ListEntry, ...]
    close_line_start: int
    close_indent: str


def _bad(file_name: str, row: int, problem: str, hint: str) -> SourceTreeError:
    return SourceTreeError(f"{file_name}:{row}: {problem}", hint=hint)


class _Text:
    """Offsets of line starts, so tokenizer (row, col) pairs become string offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def offset(self, row: int, col: int) -> int:
        return self.starts[row - 1] + col

    def line_start(self, row: int) -> int:
        return self.starts[row - 1]

    def line_end(self, row: int) -> int:
        return self.starts[row] if row < len(self.starts) else len(self.text)

    def indent(self, row: int) -> str:
        line = self.text[self.line_start(row) : self.line_end(row)]
        return line[: len(line) - len(line.lstrip(" \t"))]

def _tokens(text: str, file_name: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as error:
        raise SourceTreeError(
            f"{file_name}: cannot tokenize the BUILD file ({error})",
            hint="fix the file (or restore it with git checkout) and run tfbuild again",
        ) from None


def find_list(text: str, *, function: str, name: str, attribute: str, file_name: str) -> ListSpan:
    """Locate ``function(name = "<name>", <attribute> = [ ... ])`` at the top level of ``text``.

    The attribute may continue after the list (``srcs = [...] + select({...})``); only the list
    literal that starts it is returned.
    """
    return find_lists(text, function=function, names=(name,), attribute=attribute, file_name=file_name)[name]


def find_lists(
    text: str, *, function: str, names: Iterable[str], attribute: str, file_name: str
) -> dict[str, ListSpan]:
    """:func:`find_list` for several targets with one pass of the tokenizer."""
    wanted = list(dict.fromkeys(names))
    tokens = _tokens(text, file_name)
    lines = _Text(text)
    positions = {id(token): index for index, token in enumerate(tokens)}
    significant = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    found: dict[str, ListSpan] = {}
    for call_start in _top_level_calls(significant, function):
        call = _call_arguments(significant, call_start)
        name = _keyword_string(call, "name")
        if name not in wanted or name in found:
            continue
        opening = _keyword_value_start(call, attribute)
        row = significant[call_start].start[0]
        if opening is None:
            raise _bad(file_name, row, f'{function} "{name}" has no {attribute} attribute',
                       f"give {function} {name!r} a {attribute} = [...] list")
        if opening.string != "[":
            raise _bad(file_name, opening.start[0],
                       f'{attribute} of {function} "{name}" does not start with a list literal',
                       f"tfbuild adds lines to a {attribute} = [ ... ] list; edit this one by hand")
        found[name] = _read_list(tokens, positions[id(opening)], lines, (function, name, attribute), file_name)
    missing = [name for name in wanted if name not in found]
    if missing:
        raise SourceTreeError(
            f'{file_name}: no {function} named "{missing[0]}"',
            hint="is this the BUILD file of the TensorFlow version you meant? "
            "tfbuild supports the android_* (TF 1.x-2.3) and portable_* (TF 2.4+) mobile filegroups",
        )
    return found


def _top_level_calls(tokens: list[tokenize.TokenInfo], function: str) -> Iterable[int]:
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif (
            depth == 0
            and token.type == tokenize.NAME
            and token.string == function
            and index + 1 < len(tokens)
            and tokens[index + 1].string == "("
        ):
            yield index


def _call_arguments(tokens: list[tokenize.TokenInfo], start: int) -> list[tuple[int, tokenize.TokenInfo]]:
    """Tokens of the call starting at ``tokens[start]``, each with its bracket depth inside it."""
    depth = 0
    out: list[tuple[int, tokenize.TokenInfo]] = []
    for token in tokens[start + 1 :]:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
            out.append((depth, token))
            continue
        if token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth == 0:
                break
            out.append((depth + 1, token))
            continue
        out.append((depth, token))
    return out


def _keyword_value_start(call: list[tuple[int, tokenize.TokenInfo]], keyword: str) -> tokenize.TokenInfo | None:
    for index in range(len(call) - 2):
        depth, token = call[index]
        if (
            depth == 1
            and token.type == tokenize.NAME
            and token.string == keyword
            and call[index + 1][1].string == "="
        ):
            return call[index + 2][1]
    return None


def _keyword_string(call: list[tuple[int, tokenize.TokenInfo]], keyword: str) -> str | None:
    token = _keyword_value_start(call, keyword)
    if token is None or token.type != tokenize.STRING:
        return None
    try:
        value = ast.literal_eval(token.string)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _read_list(
    tokens: Sequence[tokenize.TokenInfo], start: int, lines: _Text, what: tuple[str, str, str], file_name: str
) -> ListSpan:
    function, name, attribute = what
    where = f'{attribute} of {function} "{name}"'
    hint = "format the list one entry per line (buildifier does) and run tfbuild again"
    opening = tokens[start]
    index = start + 1
    entries: list[ListEntry] = []
    previous_comment_rows: list[int] = []
    pending: tokenize.TokenInfo | None = None
    while True:
        if index >= len(tokens):
            raise _bad(file_name, opening.start[0], f"{where} is never closed", hint)
        token = tokens[index]
        index += 1
        if token.type == tokenize.NL:
            continue
        if token.type == tokenize.COMMENT:
            if token.line.strip().startswith("#"):
                previous_comment_rows.append(token.start[0])
            continue
        if token.type == tokenize.STRING:
            if pending is not None:
                raise _bad(file_name, token.start[0], f"{where}: two strings without a comma", hint)
            pending = token
            continue
        if token.type == tokenize.OP and token.string in (",", "]"):
            if pending is not None:
                entries.append(_entry(pending, lines, token.string == ",", previous_comment_rows, file_name))
                previous_comment_rows = []
                pending = None
            elif token.string == ",":
                raise _bad(file_name, token.start[0], f"{where}: a comma without an entry", hint)
            if token.string == "]":
                closing = token
                break
            continue
        raise _bad(
            file_name,
            token.start[0],
            f"{where} holds {token.string!r}, not only string literals",
            "add the files by hand, or make the list plain strings",
        )
    rows = [opening.start[0], closing.start[0]] + [entry.row for entry in entries]
    before_bracket = lines.text[lines.line_start(closing.start[0]) : lines.offset(*closing.start)]
    if len(set(rows)) != len(rows) or before_bracket.strip():
        raise _bad(file_name, opening.start[0], f"{where} is not written one entry per line", hint)
    return ListSpan(
        function=function,
        name=name,
        attribute=attribute,
        row=opening.start[0],
        entries=tuple(entries),
        close_line_start=lines.line_start(closing.start[0]),
        close_indent=lines.indent(closing.start[0]),
    )


def _entry(
    token: tokenize.TokenInfo, lines: _Text, has_comma: bool, comment_rows: list[int], file_name: str
) -> ListEntry:
    row = token.start[0]
    if token.end[0] != row:
        raise _bad(file_name, row, "a list entry spans several lines", "write it on one line")
    block_row = row
    while comment_rows and comment_rows[-1] == block_row - 1:
        block_row = comment_rows.pop()
    return ListEntry(
        value=ast.literal_eval(token.string),
        row=row,
        token_end=lines.offset(*token.end),
        has_comma=has_comma,
        line_start=lines.line_start(row),
        line_end=lines.line_end(row),
        block_start=lines.line_start(block_row),
        indent=lines.indent(row),
    )


def entry_class(value: str) -> int:
    """Buildifier's grouping of list strings: local labels, plain names, ``//`` labels, ``@`` labels."""
    if value.startswith(":"):
        return 0
    if value.startswith("//"):
        return 2
    if value.startswith("@"):
        return 3
    return 1


def insertions(text: str, span: ListSpan, values: Iterable[str]) -> list[tuple[int, str, str]]:
    """Where each new value goes in ``span``, as ``(offset, sort key, text to insert)``.

    A value goes before the first entry of its own class (see :func:`entry_class`) that sorts
    after it, else after the last entry of its class, else just before the closing bracket.
    A missing trailing comma on the entry it follows is added (as an insertion of ``","``).
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    default_indent = span.entries[-1].indent if span.entries else span.close_indent + "    "
    out: list[tuple[int, str, str]] = []
    commas: set[int] = set()
    for value in values:
        same = [entry for entry in span.entries if entry_class(entry.value) == entry_class(value)]
        later = [entry for entry in same if entry.value > value]
        if later:
            anchor = later[0]
            out.append((anchor.block_start, value, _line(anchor.indent, value, newline)))
            continue
        after = same[-1] if same else None
        if after is not None:
            offset, indent = after.line_end, after.indent
        else:
            after = span.entries[-1] if span.entries else None
            offset, indent = span.close_line_start, default_indent
        if after is not None and not after.has_comma and after.token_end not in commas:
            commas.add(after.token_end)
            out.append((after.token_end, "", ","))
        out.append((offset, value, _line(indent, value, newline)))
    return out


def _line(indent: str, value: str, newline: str) -> str:
    return render("starlark_list_entry.j2", indent=indent, value=value, newline=newline)


def apply_insertions(text: str, edits: Iterable[tuple[int, str, str]]) -> str:
    """Apply ``(offset, sort key, text)`` insertions computed against the same ``text``.

    At one offset, insertions go in sort-key order (a comma, keyed ``""``, first), so several
    new entries before the same neighbour stay sorted.
    """
    ordered = sorted(edits, key=lambda edit: (edit[0], edit[1]))
    pieces: list[str] = []
    cursor = 0
    for offset, _, insert in ordered:
        pieces.append(text[cursor:offset])
        pieces.append(insert)
        cursor = offset
    pieces.append(text[cursor:])
    return "".join(pieces)
