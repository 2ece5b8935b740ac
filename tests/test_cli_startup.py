"""The CLI must not import TensorFlow for --help or for commands that do not analyse models."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from tfbuild.cli import main
code = main({argv!r})
print('TF' if 'tensorflow' in sys.modules else 'NO_TF')
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_help_does_not_import_tensorflow(argv):
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "NO_TF", result.stdout


def test_python_dash_m_help_lists_commands():
    result = subprocess.run(
        [sys.executable, "-m", "tfbuild", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0
    assert "Usage" in result.stdout


LOADED = """
import sys
from tfbuild.cli import main
code = main({argv!r})
print(' '.join(sorted(name for name in {heavy!r} if name in sys.modules)), file=sys.stderr)
"""
HEAVY = ("tensorflow", "pydantic", "rich.console", "jinja2", "tfbuild.pipeline.declarations.options", "tfbuild.pipeline.run",
         "tfbuild.cli.build_commands")


def loaded(argv: list[str], cwd) -> set[str]:
    done = subprocess.run([sys.executable, "-c", LOADED.format(argv=argv, heavy=HEAVY)], capture_output=True,
                          text=True, check=True, cwd=cwd)
    return set(done.stderr.strip().splitlines()[-1].split())


def test_help_imports_only_what_it_prints(tmp_path):
    """Plain help (stdout is a pipe) needs neither rich nor pydantic; the app's own help not the
    option table either (a command's help names the variables it reads, from that table)."""
    # The option declarations are read by the commands' parameters (light: no rich, no jinja2).
    assert loaded(["--help"], tmp_path) <= {"tfbuild.cli.build_commands", "tfbuild.pipeline.declarations.options"}
    assert not loaded(["header", "--help"], tmp_path) & {"tensorflow", "pydantic", "rich.console"}


def test_header_imports_what_it_uses(tmp_path):
    """``tfbuild header``: the model readers and the template engine, not the build's modules,
    not pydantic (Typer's coercion of plain values is tfbuild's own) and not rich (nothing
    printed through it)."""
    model = tmp_path / "ops.json"
    model.write_text('[["Placeholder", "PlaceholderOp"]]')
    assert loaded(["header", str(model), "-o", str(tmp_path / "ops_to_register.h")], tmp_path) == {
        "jinja2", "tfbuild.pipeline.declarations.options"}  # header resolves its options through their declarations
