"""The ``filegroup`` targets of a BUILD file as data, read with Python's ``ast``.

Starlark is syntactically a subset of Python, so ``ast.parse`` both reads a BUILD file and
checks that an edited one still parses. Only what decides which files a filegroup holds is kept:
its unconditional string entries, the entries behind ``select()`` (compiled only under some
configuration, so never counted as compiled) and its ``glob()`` patterns.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tfbuild.errors import SourceTreeError


@dataclass(frozen=True)
class Glob:
    include: tuple[str, ...]
    exclude: tuple[str, ...]


@dataclass(frozen=True)
class Filegroup:
    name: str
    entries: tuple[str, ...]
    """Unconditional ``srcs`` strings, in file order: file names and labels."""
    conditional: tuple[str, ...]
    """Strings inside ``select()`` branches."""
    globs: tuple[Glob, ...]
    line: int


def parse_build(text: str, file_name: str) -> ast.Module:
    """Parse BUILD text, turning a syntax error into a :class:`SourceTreeError` naming the file."""
    try:
        return ast.parse(text, filename=file_name)
    except UnicodeEncodeError as error:  # bytes that are not UTF-8, kept as surrogates
        line = text.count("\n", 0, error.start) + 1
        raise SourceTreeError(
            f"{file_name}:{line}: not UTF-8 text, so the BUILD file cannot be read",
            hint="save the file as UTF-8 (or restore it with git checkout) and run tfbuild again",
        ) from None
    except (RecursionError, MemoryError):
        raise SourceTreeError(
            f"{file_name}: nested too deeply to read", hint="restore the file with git checkout"
        ) from None
    except SyntaxError as error:
        raise SourceTreeError(
            f"{file_name}:{error.lineno}: cannot parse the BUILD file ({error.msg})",
            hint="fix the file (or restore it with git checkout) and run tfbuild again",
        ) from None


def read_filegroups(text: str, file_name: str) -> dict[str, Filegroup]:
    """Every top-level ``filegroup(name = "...", srcs = ...)`` call, by name."""
    module = parse_build(text, file_name)
    constants = _list_constants(module)
    groups: dict[str, Filegroup] = {}
    for statement in module.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and _callee(call) == "filegroup"):
            continue
        keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
        name = keywords.get("name")
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            continue
        collected = _Collected()
        if "srcs" in keywords:
            collected.walk(keywords["srcs"], constants, conditional=False)
        groups[name.value] = Filegroup(
            name=name.value,
            entries=tuple(collected.entries),
            conditional=tuple(collected.conditional),
            globs=tuple(collected.globs),
            line=call.lineno,
        )
    return groups


def _callee(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _list_constants(module: ast.Module) -> dict[str, ast.expr]:
    """Top-level ``NAME = [...]`` assignments, which ``srcs = NAME + [...]`` may refer to."""
    constants: dict[str, ast.expr] = {}
    for statement in module.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            constants[statement.targets[0].id] = statement.value
    return constants


class _Collected:
    def __init__(self) -> None:
        self.entries: list[str] = []
        self.conditional: list[str] = []
        self.globs: list[Glob] = []

    def walk(self, node: ast.expr, constants: dict[str, ast.expr], *, conditional: bool) -> None:
        if isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                self.walk(element, constants, conditional=conditional)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            (self.conditional if conditional else self.entries).append(node.value)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            self.walk(node.left, constants, conditional=conditional)
            self.walk(node.right, constants, conditional=conditional)
        elif isinstance(node, ast.Name) and node.id in constants:
            self.walk(constants[node.id], constants, conditional=conditional)
        elif isinstance(node, ast.Call) and _callee(node) == "select" and node.args:
            branches = node.args[0]
            if isinstance(branches, ast.Dict):
                for value in branches.values:
                    self.walk(value, constants, conditional=True)
        elif isinstance(node, ast.Call) and _callee(node) == "glob" and not conditional:
            self.globs.append(_glob(node))


def _glob(call: ast.Call) -> Glob:
    def strings(node: ast.expr | None) -> tuple[str, ...]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return tuple(
                element.value
                for element in node.elts
                if isinstance(element, ast.Constant) and isinstance(element.value, str)
            )
        return ()

    keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
    include = call.args[0] if call.args else keywords.get("include")
    exclude = call.args[1] if len(call.args) > 1 else keywords.get("exclude")
    return Glob(include=strings(include), exclude=strings(exclude))
