"""How much a second app's build on the same tree gains from the caches in named volumes.

For each flavour, on a fresh TF 1.x-shaped test tree (tests/treegen.py) with fresh cache
volumes, in the real toolchain containers:

  1. app A, cold   (empty ccache / Bazel output root)
  2. app B, warm   (a different model, so a different ops_to_register.h; same tree and caches)
  3. app A again   (back to the first header: what the caches hold for it)

and prints the wall-clock times. Run: ``.venv/bin/python benchmarks/cache_reuse_bench.py``
(needs Docker, the base image and network-free toolchain images; ``--flavour`` picks one).
Every kernel file includes the header (op_kernel.h -> selective_registration.h ->
ops_to_register.h), so a new header changes every kernel's preprocessed text: expect step 2 to
gain mostly what does not depend on the header, and step 3 to show the caches at work.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from real_build_plans import app_header, prepare_tf1_tree, tree_plan

from tfbuild.pipeline.planning.executor import execute_plan
from tfbuild.toolchain.engine import docker_client

RUNS = (("app_a", "app A, cold caches"), ("app_b", "app B, same tree, warm caches"), ("app_a", "app A again"))


def without_disk_cache(plan):
    """The plan without Bazel's ``--disk_cache`` (the flavour passes it), to show what the
    output root alone keeps: only the last build's outputs, so switching back rebuilds."""
    steps = tuple(
        dataclasses.replace(step, argv=tuple(a for a in step.argv if not a.startswith("--disk_cache=")))
        for step in plan.steps
    )
    return dataclasses.replace(plan, steps=steps)


def bench_flavour(
    flavour: str, scratch: Path, headers: dict[str, Path], *, disk_cache: bool = False
) -> list[tuple[str, float]]:
    prefix = f"tfbuild-bench-{uuid.uuid4().hex[:8]}"
    name = f"{flavour}+disk_cache" if disk_cache else flavour
    tree = prepare_tf1_tree(scratch / f"tree-{name}", scratch / "android")
    timings = []
    try:
        for index, (app, label) in enumerate(RUNS):
            out = scratch / f"out-{name}-{index}"
            plan = tree_plan("linux-x86_64", flavour, tree, app, headers[app], out, cache_prefix=prefix)
            if flavour == "bazel" and not disk_cache:
                plan = without_disk_cache(plan)
            started = time.monotonic()
            execute_plan(plan)
            timings.append((label, time.monotonic() - started))
            print(f"  {name:18} {label:32} {timings[-1][1]:6.1f} s", flush=True)
    finally:
        for volume in docker_client().volumes.list(filters={"name": prefix}):
            volume.remove(force=True)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flavour", choices=("makefile", "bazel", "bazel+disk_cache"), action="append")
    flavours = parser.parse_args().flavour or ["makefile", "bazel", "bazel+disk_cache"]
    with tempfile.TemporaryDirectory(prefix="tfbuild-cache-bench-") as scratch_name:
        scratch = Path(scratch_name)
        headers = {app: app_header(app, scratch / f"header-{app}") for app in ("app_a", "app_b")}
        print("cache reuse, linux-x86_64 in the toolchain containers (wall clock):")
        results = {
            flavour: bench_flavour(flavour.split("+")[0], scratch, headers, disk_cache=flavour.endswith("+disk_cache"))
            for flavour in flavours
        }
    print()
    for flavour, timings in results.items():
        cold = timings[0][1]
        summary = ", ".join(f"{label}: {seconds:.1f} s ({seconds / cold:.0%})" for label, seconds in timings)
        print(f"{flavour}: {summary}")


if __name__ == "__main__":
    main()
