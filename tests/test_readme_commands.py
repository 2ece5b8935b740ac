"""The README's first two commands are the ones CI runs: the set-up and the test command must not
drift apart, or CI would pass on a command no user types."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert block is not None, "README.md has no sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_starts_with_a_set_up_and_a_test_command():
    setup, tests = _readme_commands()[:2]
    assert setup.startswith("bash scripts/bootstrap.sh")
    assert "-m pytest" in tests


def test_ci_runs_the_readme_test_command():
    tests = _readme_commands()[1]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert tests in ci_lines
