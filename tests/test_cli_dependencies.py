"""What ``pyproject.toml`` claims of the CLI's libraries is true of the installed ones.

Typer is pinned exactly: the CLI reaches a few of its internals that no documented interface
does (plain values coerced without pydantic, for start-up; flags without ``<bool>``, arguments
by metavar and ranges in words, in the help). Each is checked here against the installed Typer,
so a new pin that lost one fails by name instead of quietly changing the help or start-up.
rich's floor is the first release with ``Console.on_broken_pipe``, which the CLI overrides;
``.ci/run`` runs this file and the CLI's tests on that release too.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / "tfbuild" / "cli"

TYPER_INTERNALS = {
    "typer.core": (
        "build_runtime_param", "TyperOption.display_type_rich", "TyperOption._get_number_range_help_str",
        "TyperArgument._usage_display_name", "TyperArgument._rich_display_name", "TyperArgument.display_name_raw",
        "TyperArgument.display_type_rich",
    ),
    "typer._coercion": ("RuntimeParam._coerce_value",),
    "typer._param_types": ("coerce_cli_path", "_path_options_requested"),
}
"""Every Typer internal the CLI uses, by the module that holds it."""


def requirement(name: str) -> str:
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    found = [spec for spec in dependencies if re.match(rf"{name}\b", spec)]
    assert len(found) == 1, found
    return found[0][len(name):]


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_the_installed_typer_is_the_pinned_one():
    pin = requirement("typer")
    assert pin.startswith("=="), f"typer{pin}: the CLI uses Typer internals, so the requirement must be exact"
    assert importlib.metadata.version("typer") == pin[2:]


def test_every_typer_internal_the_cli_uses_is_there():
    missing = []
    for module, names in TYPER_INTERNALS.items():
        for dotted in names:
            try:
                functools.reduce(getattr, dotted.split("."), importlib.import_module(module))
            except AttributeError:
                missing.append(f"{module}.{dotted}")
    assert not missing, f"gone from typer {importlib.metadata.version('typer')}: {missing}"


def test_the_internals_listed_are_all_the_cli_reaches():
    """A Typer, click or rich module whose name starts with ``_`` is imported only by
    coercion.py, and only the ones listed above."""
    private = re.compile(r"^\s*(?:from|import) (typer|click|rich)\S*\._|^\s*from (typer|click|rich)\S* import _",
                         re.MULTILINE)
    for path in sorted(CLI.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "coercion.py":
            modules = {name for names in re.findall(r"from typer import (_[\w, ]+)", text) for name in names.split(", ")}
            assert {f"typer.{name}" for name in modules} <= set(TYPER_INTERNALS), modules
            continue
        assert not private.search(text), f"{path.name}: imports a private module"


def test_the_rich_floor_has_the_hook_the_cli_overrides():
    from rich.console import Console

    floor = requirement("rich")
    assert floor.startswith(">=") and version_tuple(floor[2:]) >= (13, 8, 0), floor
    assert version_tuple(importlib.metadata.version("rich")) >= version_tuple(floor[2:])
    assert "on_broken_pipe" in vars(Console)


def test_the_cli_consoles_report_a_closed_stdout():
    from tfbuild.cli import console_class
    from tfbuild.cli.output import stdout_console

    assert isinstance(stdout_console(), console_class())
    assert "on_broken_pipe" in vars(console_class())


def test_every_typer_attribute_the_cli_replaces_is_listed():
    """The CLI replaces Typer attributes only in its ``__init__`` and coercion, and only listed ones."""
    replaced = set(re.findall(r"^(Typer\w+\.\w+) = ", (CLI / "__init__.py").read_text(encoding="utf-8"), re.MULTILINE))
    replaced |= {name for name in re.findall(r"^\s*typer_core\.(\w+) = ", (CLI / "coercion.py").read_text(
        encoding="utf-8"), re.MULTILINE) if not name.startswith("_tfbuild")}
    assert replaced and replaced <= set(TYPER_INTERNALS["typer.core"]), replaced
    for path in sorted(CLI.glob("*.py")):
        if path.name not in ("__init__.py", "coercion.py"):
            assert not re.search(r"^\s*(?:Typer\w+|typer\w*|click\w*|Console)\.\w+ = ", path.read_text(
                encoding="utf-8"), re.MULTILINE), path.name
