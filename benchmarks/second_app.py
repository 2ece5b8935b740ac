"""A second app on the same tree: its build time against the first (cold) one, with one header
for all sources and with per-file selection (``--per-file-selection``).

    .venv/bin/python benchmarks/second_app.py [--source TREE --model-a A --model-b B]

Without ``--source`` it builds a generated TF 1.x-shaped tree (tests/treegen.py) for two small
apps that differ in one op (Add in A, Sqrt in B). Each mode gets its own copy of the tree:
app A cold (nothing built), then app B on what A left. The builds are ``--local`` contrib
Makefile builds, so the reuse is make's own (up-to-date objects); ccache in the toolchain
containers reuses the same way. Prints wall times, the ratio and the objects compiled (from
make's dry run); asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

APP_A = [["Relu", "ReluOp<CPUDevice, float>"], ["Add", "BinaryOp<CPUDevice, functor::add<float>>"]]
APP_B = [["Relu", "ReluOp<CPUDevice, float>"], ["Sqrt", "UnaryOp<CPUDevice, functor::sqrt<float>>"]]
MODES = (("one header", ()), ("per-file selection", ("--per-file-selection",)))


def build(tree: Path, model: Path, out: Path, extra: tuple[str, ...], jobs: int) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "-q", "build", "--flavour", "makefile", "--target", "linux-x86_64",
         "--source", str(tree), "--model", str(model), "--local", "--out", str(out), "--jobs", str(jobs), *extra],
        capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"build of {model} failed ({done.returncode}): {done.stderr[-2000:]}")
    counted = re.search(r"(\d+) objects to compile", (out / "linux-x86_64.build.log").read_text())
    return seconds, int(counted.group(1)) if counted else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="a TF 1.x tree (a git checkout); copied once per mode")
    parser.add_argument("--model-a", type=Path)
    parser.add_argument("--model-b", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfbuild-second-app-") as scratch_name:
        scratch = Path(scratch_name)
        model_a, model_b = args.model_a, args.model_b
        if model_a is None or model_b is None:
            model_a, model_b = scratch / "a.json", scratch / "b.json"
            model_a.write_text(json.dumps(APP_A))
            model_b.write_text(json.dumps(APP_B))
        rows = []
        for mode, extra in MODES:
            tree = scratch / f"tree-{len(rows)}"
            if args.source is not None:
                shutil.copytree(args.source, tree, symlinks=True)
            else:
                from treegen import make_tf1_tree

                make_tf1_tree(tree)
            cold, cold_objects = build(tree, model_a, scratch / f"out-{len(rows)}-a", extra, args.jobs)
            warm, warm_objects = build(tree, model_b, scratch / f"out-{len(rows)}-b", extra, args.jobs)
            rows.append((mode, cold, cold_objects, warm, warm_objects))
    print("| mode | app A, cold | app B, same tree | B / A |")
    print("|---|---|---|---|")
    for mode, cold, cold_objects, warm, warm_objects in rows:
        print(f"| {mode} | {cold:.1f} s ({cold_objects} objects) | {warm:.1f} s ({warm_objects} objects) "
              f"| {100 * warm / cold:.0f}% |")


if __name__ == "__main__":
    main()
