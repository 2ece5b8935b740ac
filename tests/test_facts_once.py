"""Each fact of tfbuild's is spelled once: a path in a TensorFlow tree, a file's magic, an
output's name, a choice list. A second spelling drifts from the first; these tests find one."""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tfbuild"

ONCE = (
    "tensorflow/contrib/makefile", "tensorflow/core/kernels", "ops_to_register.h", "manifest.json", "tfbuild-out",
    "SOURCE_DATE_EPOCH", 315532800, b"\x7fELF", b"!<arch>\n",
)
"""Values that may appear as a whole constant in one module only (docstrings aside)."""


@functools.cache
def _constants() -> dict[object, set[str]]:
    """Every constant in tfbuild's code (not its docstrings), by the modules that hold it."""
    found: dict[object, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        docstrings |= {id(node.value) for node in ast.walk(tree)  # attribute docstrings after an assignment
                       if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and id(node) not in docstrings and not isinstance(node.value, bool):
                found[node.value].add(str(path.relative_to(PACKAGE)))
    return found


@pytest.mark.parametrize("value", ONCE, ids=repr)
def test_each_fact_is_one_constant(value):
    modules = _constants().get(value, set())
    assert len(modules) == 1, sorted(modules)


def test_the_protobuf_runtime_is_compared_by_its_typed_values():
    """``"lite"`` and ``"full"`` are spelled where :data:`ProtobufRuntime` is; the rest compare
    with ``LITE`` and ``FULL``."""
    spelled = re.compile(r"""runtime [!=]= ["']|["'](?:lite|full)["'] [!=]= \S*runtime""")
    for path in PACKAGE.rglob("*.py"):
        assert not spelled.search(path.read_text(encoding="utf-8")), path


def test_choice_metavars_and_help_are_made_from_the_choice_lists():
    from tfbuild.model.header import GRANULARITIES
    from tfbuild.pipeline.declarations import options
    from tfbuild.pipeline.declarations.size_profiles import profile_names
    from tfbuild.pipeline.outputs.android.names import JAVA_APIS
    from tfbuild.pipeline.planning.protobuf_runtime import RUNTIMES
    from tfbuild.tree.mobile_types import MOBILE_TYPES_MODES

    for option, choices in ((options.GRANULARITY, GRANULARITIES), (options.PROTOBUF_RUNTIME, RUNTIMES),
                            (options.MOBILE_TYPES, MOBILE_TYPES_MODES), (options.JAVA_API, JAVA_APIS)):
        assert option.value_name == "|".join(choices), option.name
        named = re.findall(r"(?:: |\| )([a-z-]+)", option.help)
        assert named == list(choices), (option.name, named)
    # The size profiles are data (size_profiles.toml): the help names them all, in the file's order
    named = re.findall(r"(?:: |\| )([a-z-]+)", options.SIZE_PROFILE.help)
    assert named == list(profile_names())


def test_a_choice_described_but_not_a_choice_is_a_bug_found_at_import():
    from tfbuild.pipeline.declarations.option_kinds import choice_help

    assert choice_help("Pick", ("a", "b"), {"b": "the second"}) == "Pick: a | b (the second)."
    with pytest.raises(ValueError, match="'c'"):
        choice_help("Pick", ("a", "b"), {"c": "no such"})
