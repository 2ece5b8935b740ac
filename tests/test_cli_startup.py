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
