"""The package's imports run one way: cli → pipeline → toolchain → tree → model → cpp, with the
small shared modules at the top of ``tfbuild/`` below all of them. Inside ``pipeline/`` (the
largest subpackage) they run one way too, along :data:`PIPELINE_LAYERS`.

Every ``import`` in every module counts, including the lazy ones inside functions, so a
dependency cannot hide from this test by moving into a function body.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tfbuild"
LAYERS = ("cpp", "model", "tree", "toolchain", "pipeline", "cli")  # lowest first
SHARED = -1  # the loose modules: errors, fileio, templating, ...
MAX_LOOSE_MODULES = 13  # stop_signals: every layer that runs a child or changes the tree needs it
# The pipeline's modules and subpackages, lowest first; a unit imports only from lower ranks
# (and from itself): the plan's data types at the bottom, the run and verify at the top.
PIPELINE_LAYERS = (
    ("planning",),
    ("caches",),
    ("outputs",),
    ("report",),
    ("declarations",),
    ("op_library",),
    ("flavours",),
    ("prerequisites", "work_estimate", "plan_text"),
    ("run",),
    ("verify", "example"),
)


def _layer(module: str) -> int:
    """Rank of a dotted ``tfbuild.…`` module name; ``__main__`` is an entry point, like the CLI."""
    parts = module.split(".")
    if len(parts) == 1:
        return SHARED
    if parts[1] == "__main__":
        return LAYERS.index("cli")
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else SHARED


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("tfbuild")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tfbuild"):
            if node.module == "tfbuild":  # `from tfbuild import x` may name a subpackage
                found += [(node.lineno, f"tfbuild.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_imports_point_down_the_flow(path):
    importer = _module_name(path)
    rank = _layer(importer)
    upward = [
        f"line {line}: {importer} imports {target}"
        for line, target in _imported(ast.parse(path.read_text(), str(path)))
        if _layer(target) > rank and not target.startswith(importer)
    ]
    assert upward == []


def _pipeline_unit(module: str) -> str | None:
    """``flavours`` for ``tfbuild.pipeline.flavours.makefile``; None outside the pipeline."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "pipeline" else None


def _pipeline_rank(unit: str) -> int:
    return next(rank for rank, units in enumerate(PIPELINE_LAYERS) if unit in units)


@pytest.mark.parametrize("path", sorted((PACKAGE / "pipeline").rglob("*.py")),
                         ids=lambda path: str(path.relative_to(PACKAGE)))
def test_imports_point_down_inside_the_pipeline(path):
    importer = _pipeline_unit(_module_name(path))
    if importer is None:  # pipeline/__init__.py
        return
    upward = [
        f"line {line}: {importer} imports {target}"
        for line, target in _imported(ast.parse(path.read_text(), str(path)))
        if (unit := _pipeline_unit(target)) is not None and unit != importer
        and _pipeline_rank(unit) >= _pipeline_rank(importer)
    ]
    assert upward == []


def test_every_pipeline_unit_has_a_rank():
    units = {path.stem if path.suffix == ".py" else path.name
             for path in (PACKAGE / "pipeline").iterdir() if path.name not in ("__init__.py", "__pycache__")}
    assert units == {unit for layer in PIPELINE_LAYERS for unit in layer}


def test_the_top_of_the_package_stays_small():
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == set(LAYERS)


def test_the_layer_rule_catches_an_upward_import():
    tree = ast.parse("def f():\n    from tfbuild.pipeline.run import run_build\n")
    (line, target), = _imported(tree)
    assert (line, target) == (2, "tfbuild.pipeline.run")
    assert _layer(target) > _layer("tfbuild.tree.edits")
    assert _layer("tfbuild.errors") < _layer("tfbuild.cpp.macros")


def _import_graph() -> dict[str, set[str]]:
    """Every tfbuild module and the tfbuild modules it imports (lazy imports included); a
    ``from package import name`` counts as importing the module ``package.name`` when there is one,
    and a package's ``__init__`` is not counted as a dependency of its own modules."""
    modules = {_module_name(path): path for path in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names if alias.name in modules}
            elif isinstance(node, ast.ImportFrom) and node.module in modules:
                submodules = {f"{node.module}.{alias.name}" for alias in node.names}
                found = submodules & modules.keys()
                targets |= found or {node.module}
                if len(found) < len(submodules):
                    targets.add(node.module)
        graph[name] = {target for target in targets if target != name and not name.startswith(target + ".")}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` as the modules along it, or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = 2
        path.pop()
        return []

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return []


def test_no_module_imports_itself_through_others():
    assert _cycle(_import_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []
