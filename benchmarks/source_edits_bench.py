"""How long the source-tree steps take: BUILD-file edit, preflight, edit + commit, revert.

1. ``add_kernel_sources`` on a synthetic kernels/BUILD the size of TensorFlow's (~6,000 lines).
2. On ``make_large_tree`` (a TF 1.x-shaped git checkout plus N generated kernel files), with a
   JSON ops list needing 50 of the generated ops: preflight (cold kernel index, then warm),
   ``tfbuild edit makefile`` (plan + commit), preflight again, a second edit (no change), and
   the revert.

Run: ``.venv/bin/python benchmarks/source_edits_bench.py [--files N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import treegen
from test_kernels_build import ANDROID_BUILD

from tfbuild.tree.build_files.kernels_build import add_kernel_sources
from tfbuild.tree.edits import EditRequest, run_edit, run_revert
from tfbuild.tree.preflight import PreflightRequest, run_preflight

_RULE = """tf_kernel_library(
    name = "op_{i}",
    srcs = [
        "op_{i}.cc",
        "op_{i}_impl.cc",
    ],
    hdrs = ["op_{i}.h"],
    deps = [
        ":bounds_check",
        "//tensorflow/core:framework",
    ],
)

"""


def timed(label: str, action):
    start = time.perf_counter()
    result = action()
    print(f"{label:<46} {time.perf_counter() - start:8.3f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="generated kernel files (default 1000)")
    args = parser.parse_args()

    build = "".join(_RULE.format(i=i) for i in range(470)) + ANDROID_BUILD
    print(f"synthetic kernels/BUILD: {build.count(chr(10))} lines, {len(build)} bytes")
    timed("add_kernel_sources (3 sources, 1 header)", lambda: add_kernel_sources(
        build, sources=["reduction_ops_min.cc", "pad_op.cc", "zeta_op.cc"], headers=["pad_op.h"], family="android"))

    with tempfile.TemporaryDirectory() as scratch:
        scratch_dir = Path(scratch)
        tree = timed(f"make_large_tree({args.files})", lambda: treegen.make_large_tree(scratch_dir / "tf", args.files))
        model = scratch_dir / "ops.json"
        step = max(1, args.files // 50)
        model.write_text(json.dumps([[treegen.large_tree_op(n), ""] for n in range(0, args.files, step)]))
        cache = scratch_dir / "index-cache"
        check = PreflightRequest(source=tree, flavour="makefile", models=(model,), cache_dir=cache)
        report = timed("preflight, cold kernel index", lambda: run_preflight(check))
        print(f"  {len(report.checked_ops)} ops checked, {len(report.gaps)} gaps")
        timed("preflight, warm kernel index", lambda: run_preflight(check))
        edit = EditRequest(source=tree, flavour="makefile", models=(model,), cache_dir=cache)
        outcome = timed("edit makefile (plan + commit)", lambda: run_edit(edit))
        print(f"  {sum(len(e.added) for e in outcome.plan.edits)} files added")
        report = timed("preflight after the edit", lambda: run_preflight(check))
        print(f"  {len(report.gaps)} gaps")
        timed("edit again (no change)", lambda: run_edit(edit))
        timed("revert", lambda: run_revert(tree))


if __name__ == "__main__":
    main()
