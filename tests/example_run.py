"""One real run of ``tfbuild example`` per test session, shared by the tests that inspect it.

The run compiles the example op library twice against TensorFlow's headers (about a minute on
two cores), so test_example_command.py (the CLI's output) and test_selective_build.py (what the
two libraries register) look at the same run instead of building it again. It runs as a user
would: ``python -m tfbuild`` in its own process, which also keeps the plain library it loads
for the analysis out of the test process.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class ExampleRun:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    out_dir: Path
    seconds: float

    def check(self) -> ExampleRun:
        """The run, or a test failure showing why ``tfbuild example`` failed."""
        if self.returncode != 0:
            pytest.fail(
                f"{' '.join(self.argv)} exited {self.returncode}\n{self.stdout}\n{self.stderr[-3000:]}"
            )
        return self


_runs: dict[Path, ExampleRun] = {}


def example_run(tmp_path_factory: pytest.TempPathFactory) -> ExampleRun:
    """Run ``tfbuild example --out-dir <tmp>`` once per session (per base temp dir) and return it."""
    key = tmp_path_factory.getbasetemp()
    if key not in _runs:
        workdir = tmp_path_factory.mktemp("example-run")
        out_dir = workdir / "out"
        argv = (sys.executable, "-m", "tfbuild", "example", "--out-dir", str(out_dir))
        start = time.monotonic()
        done = subprocess.run(list(argv), capture_output=True, text=True, cwd=workdir)
        _runs[key] = ExampleRun(
            argv=argv,
            returncode=done.returncode,
            stdout=done.stdout,
            stderr=done.stderr,
            out_dir=out_dir,
            seconds=time.monotonic() - start,
        )
    return _runs[key]
