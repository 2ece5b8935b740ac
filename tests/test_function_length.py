"""No function in ``tfbuild/`` runs over :data:`MAX_LINES` lines unless its docstring says why.

A function is counted from its ``def`` line to its last line (decorators left out, its docstring
and signature in). One that must be longer (a table of cases read top to bottom, say) carries
:data:`REASON` in its docstring, followed by the reason, so a reader meets the why with the length.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tfbuild"
MAX_LINES = 60
REASON = "Long because"
PENDING: dict[str, str] = {}
"""Functions known to be long whose rewrite is under way elsewhere: ``path:name`` -> by what."""


def long_functions(source: str, path: str) -> list[str]:
    """``path:name (n lines)`` for each function of ``source`` over :data:`MAX_LINES` lines whose
    docstring has no :data:`REASON`."""
    found = []
    for node in ast.walk(ast.parse(source, path)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assert node.end_lineno is not None
        length = node.end_lineno - node.lineno + 1
        if length > MAX_LINES and REASON not in (ast.get_docstring(node) or ""):
            found.append(f"{path}:{node.name} ({length} lines)")
    return found


def test_no_function_is_long_without_saying_why():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        found += [entry for entry in long_functions(path.read_text(), relative) if entry.split(" (")[0] not in PENDING]
    assert found == []


def test_the_rule_counts_the_body_and_accepts_a_reason():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    long = f"def f():\n{body}"
    explained = f'def g():\n    """{REASON} it is a table read top to bottom."""\n{body}'
    short = "def h():\n" + "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES - 1))
    assert long_functions(long + explained + short, "m.py") == [f"m.py:f ({MAX_LINES + 1} lines)"]
