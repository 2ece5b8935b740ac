"""Two CI workers sharing one remote cache: the second worker's build against the first's.

    .venv/bin/python benchmarks/remote_cache.py [--flavour makefile|bazel ...]

Starts Debian's nginx with WebDAV on loopback (as tests/remote_servers.py does), makes one
generated TF 1.x-shaped tree (tests/treegen.py), copies it once per worker (same commit, own
directory), and builds the same app on worker A and then worker B, each in the toolchain
container with fresh, empty cache volumes (own --cache-prefix) and ``--remote-cache`` pointing
at nginx. Then worker C, as fresh, builds a second app (Sqrt instead of Add). Makefile builds
use per-file selection throughout, so C reuses the objects whose own selection is unchanged;
Bazel has no such mode. Prints wall times, the ratio to worker A, and the remote hits that ccache
or Bazel counted (the manifest's ``compile_cache``); asserts nothing. Needs Docker, the
toolchain images and nginx (scripts/install-system-deps.sh).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

APP_A = [["Relu", "ReluOp<CPUDevice, float>"], ["Add", "BinaryOp<CPUDevice, functor::add<float>>"]]
APP_B = [["Relu", "ReluOp<CPUDevice, float>"], ["Sqrt", "UnaryOp<CPUDevice, functor::sqrt<float>>"]]


def build(tree: Path, model: Path, out: Path, flavour: str, prefix: str, url: str, *extra: str) -> tuple[float, dict]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "-q", "build", "--flavour", flavour, "--target", "linux-x86_64",
         "--source", str(tree), "--model", str(model), "--out", str(out), "--jobs", "2",
         "--cache-prefix", prefix, "--remote-cache", url, *extra],
        capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"build on {tree.name} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, json.loads((out / "manifest.json").read_text())["compile_cache"] or {}


def main() -> None:
    from real_build_plans import prepare_tf1_tree
    from remote_servers import nginx_cache, remove_cache_volumes

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flavour", action="append", choices=("makefile", "bazel"))
    args = parser.parse_args()
    prefixes: list[str] = []
    rows = []
    with tempfile.TemporaryDirectory(prefix="tfbuild-remote-cache-") as scratch_name:
        scratch = Path(scratch_name)
        model_a, model_b = scratch / "a.json", scratch / "b.json"
        model_a.write_text(json.dumps(APP_A))
        model_b.write_text(json.dumps(APP_B))
        try:
            for flavour in args.flavour or ["makefile", "bazel"]:
                base = prepare_tf1_tree(scratch / flavour / "checkout", scratch / flavour / "android")
                with nginx_cache(scratch / flavour / "nginx") as server:
                    cold = None
                    # The Makefile fleet builds with per-file selection, so a second app shares
                    # the objects whose own selection did not change (Bazel has no such mode).
                    extra = ("--per-file-selection",) if flavour == "makefile" else ()
                    workers = (("A, cold", model_a), ("B, same app", model_a), ("C, second app", model_b))
                    for name, model in workers:
                        tree = scratch / flavour / f"tree-{name[0]}"
                        shutil.copytree(base, tree, symlinks=True)
                        prefixes.append(f"tfbuild-bench-{uuid.uuid4().hex[:8]}")
                        seconds, stats = build(tree, model, scratch / flavour / f"out-{name[0]}", flavour,
                                               prefixes[-1], server.url, *extra)
                        cold = cold or seconds
                        rows.append((flavour, name, seconds, seconds / cold, stats))
        finally:
            remove_cache_volumes(prefixes)
    print("| flavour | worker | wall | vs. A | remote hits (engine's count) |")
    print("|---|---|--:|--:|---|")
    for flavour, name, seconds, ratio, stats in rows:
        hits = f"{stats.get('remote_hits', 0)} of {stats.get('compiles', 0)}" if stats else "-"
        print(f"| {flavour} | {name} | {seconds:.1f} s | {ratio:.0%} | {hits} |")


if __name__ == "__main__":
    main()
