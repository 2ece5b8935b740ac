"""Start-up of the quick commands, side by side in one run: ``tfbuild --help``, a warm
``tfbuild header MODEL``, and TensorFlow's own ``print_selective_registration_header`` on the
same model, with the ratio TF / tfbuild.

    .venv/bin/python benchmarks/startup.py [--runs 9] [--model mobilenet_v2.pb]

Without ``--model``, MobileNetV2 is made first with scripts/make_mobilenet_v2.py (TensorFlow
writes it). The commands run interleaved (one of each per round), so a machine whose load
changes during the run slows all of them alike; each is its own process, timed from spawn to
exit, wall and CPU (user + system, from ``wait4``; on a busy machine the CPU figures are the
steadier ones). A warm-up round is not counted: the first ``tfbuild header`` builds tfbuild's
caches, and every run writes the bytecode (``.pyc``) an installed package has
(``PYTHONDONTWRITEBYTECODE`` is cleared for the commands). ``--tfbuild`` names another ``tfbuild`` script (say, an
older checkout's) to compare with. Prints medians and minimums; asserts nothing. Goals: --help
well under 0.3 s, header at least 10 times faster than TensorFlow's tool.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TFBUILD = str(Path(PYTHON).with_name("tfbuild"))


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``argv`` to completion with its output discarded: wall and CPU seconds."""
    with open(os.devnull, "wb") as sink:
        start = time.perf_counter()
        process = subprocess.Popen(argv, env=env, stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit code {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--model", type=Path, help="a frozen GraphDef (default: MobileNetV2, made first)")
    parser.add_argument("--tfbuild", default=TFBUILD, help="the tfbuild script to time (default: this venv's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfbuild-startup-") as directory:
        work = Path(directory)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # the warm-up writes the .pyc files an install has
        model = args.model
        if model is None:
            model = work / "mobilenet_v2.pb"
            subprocess.run([PYTHON, str(REPO / "scripts" / "make_mobilenet_v2.py"), str(model)],
                           env=env, check=True, capture_output=True)
        commands = {
            "tfbuild --help": [args.tfbuild, "--help"],
            "tfbuild header MODEL": [args.tfbuild, "header", str(model), "-o", str(work / "ops_to_register.h")],
            "TF print_selective_registration_header": [
                PYTHON, "-m", "tensorflow.python.tools.print_selective_registration_header", f"--graphs={model}"],
        }
        for argv in commands.values():  # caches, page cache
            timed(argv, env)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, argv in commands.items():
                times[label].append(timed(argv, env))
        print(f"{'command':42s} {'median ms':>10s} {'min ms':>8s} {'cpu ms':>8s}   ({args.runs} runs, interleaved)")
        medians, cpus = {}, {}
        for label, runs in times.items():
            walls = [wall for wall, _ in runs]
            medians[label] = statistics.median(walls)
            cpus[label] = statistics.median(c for _, c in runs)
            print(f"{label:42s} {1000 * medians[label]:10.0f} {1000 * min(walls):8.0f} {1000 * cpus[label]:8.0f}")
        theirs, ours = "TF print_selective_registration_header", "tfbuild header MODEL"
        print(f"ratio TF tool / tfbuild header: {medians[theirs] / medians[ours]:.1f}x wall (medians), "
              f"{cpus[theirs] / cpus[ours]:.1f}x CPU")


if __name__ == "__main__":
    main()
