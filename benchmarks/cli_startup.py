"""Wall time of ``tfbuild --help`` and ``python -m tfbuild --help``, and proof that neither imports
TensorFlow (the CLI must start fast; only model-analysing commands may pay for TensorFlow).

Run: .venv/bin/python benchmarks/cli_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHECK_NO_TF = (
    "import sys, runpy; sys.argv=['tfbuild','--help'];\n"
    "try:\n    runpy.run_module('tfbuild', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print('TF_IMPORTED' if 'tensorflow' in sys.modules else 'TF_NOT_IMPORTED', file=sys.stderr)"
)


def wall_times(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    script = shutil.which("tfbuild") or str(Path(sys.executable).with_name("tfbuild"))
    commands = {
        "tfbuild --help": [script, "--help"],
        "python -m tfbuild --help": [sys.executable, "-m", "tfbuild", "--help"],
        "python -c 'import tensorflow' (for scale)": [sys.executable, "-c", "import tensorflow"],
    }
    for label, argv in commands.items():
        times = wall_times(argv, args.runs)
        print(f"{label:45s} median {statistics.median(times):6.3f} s  min {min(times):6.3f} s  ({args.runs} runs)")
    probe = subprocess.run([sys.executable, "-c", CHECK_NO_TF], capture_output=True, text=True)
    verdict = probe.stderr.strip().splitlines()[-1]
    print(f"tensorflow imported by 'tfbuild --help': {'yes' if verdict == 'TF_IMPORTED' else 'no'}")


if __name__ == "__main__":
    main()
