"""How long the kernel index takes on a tree of thousands of kernel files, cold and from the
cache, next to the plain-grep approach (one ``grep -l 'REGISTER.*"Op"'`` per op).

    .venv/bin/python benchmarks/kernel_index_bench.py [--files 3000] [--ops 100] [--repeat 3]

Prints figures; asserts nothing. The tree comes from tests/treegen.make_large_tree: a TF
1.12-shaped tree plus generated kernel files in TensorFlow's four registration forms (plain,
local macro over TF_CALL_*, REGISTERn, multi-line with a guarded variant), each padded to the
size of a typical kernel file. The grep column also counts how many of the asked ops grep
finds at all: registrations whose Name("...") sits on a later line than the macro (as in
TensorFlow's multi-line form) are invisible to it, and it cannot tell CPU from GPU kernels.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import treegen

from tfbuild.tree.kernel_index import IndexStats, build_kernel_index


def _timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def _cpu_timed(action) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result): the machine may be shared, and
    CPU time is the steadier figure there."""
    cpu = time.process_time()
    wall, result = _timed(action)
    return wall, time.process_time() - cpu, result


def _grep(root: Path, ops: list[str]) -> tuple[float, int]:
    """Seconds for one grep per op over the kernels directory, and how many ops it found."""
    found = 0
    start = time.perf_counter()
    for op in ops:
        done = subprocess.run(
            ["grep", "-rlE", f'REGISTER.*"{op}"', "--include=*.cc", str(root / treegen.KERNELS_DIR)],
            capture_output=True, text=True,
        )
        found += bool(done.stdout.strip())
    return time.perf_counter() - start, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000, help="generated kernel files")
    parser.add_argument("--ops", type=int, default=100, help="ops asked about")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median printed)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tfbuild-kindex-bench-") as scratch:
        scratch_path = Path(scratch)
        seconds, root = _timed(lambda: treegen.make_large_tree(scratch_path / "tf", args.files))
        kernel_files = sorted((root / treegen.KERNELS_DIR).glob("*.cc"))
        size_mb = sum(p.stat().st_size for p in kernel_files) / 1e6
        print(f"tree: {len(kernel_files)} kernel .cc files, {size_mb:.1f} MB (generated in {seconds:.1f} s)")
        step = max(1, args.files // args.ops)
        # step + 1 is coprime with 4, so the sample covers all four registration forms
        ops = [treegen.large_tree_op((i * (step + 1)) % args.files) for i in range(min(args.ops, args.files))]

        cold, cold_cpu, warm = [], [], []
        stats = IndexStats()
        for attempt in range(args.repeat):
            cache = scratch_path / f"cache-{attempt}"
            stats = IndexStats()
            cold_s, cpu_s, index = _cpu_timed(
                lambda cache=cache, stats=stats: build_kernel_index(root, cache_dir=cache, stats=stats)
            )
            cold.append(cold_s)
            cold_cpu.append(cpu_s)
            warm_stats = IndexStats()
            warm_s, _ = _timed(
                lambda cache=cache, warm_stats=warm_stats: build_kernel_index(root, cache_dir=cache, stats=warm_stats)
            )
            assert warm_stats.cache_hit
            assert warm_stats.files_scanned == 0
            warm.append(warm_s)
        query_s, answers = _timed(lambda: [index.files_for_op(op) for op in ops])
        index_found = sum(bool(files) for files in answers)
        grep_runs = [_grep(root, ops) for _ in range(args.repeat)]
        grep_s = statistics.median(r[0] for r in grep_runs)
        grep_found = grep_runs[0][1]

        print(f"index cold  (one scan, {stats.files_scanned} files): {statistics.median(cold):7.2f} s  "
              f"(CPU {statistics.median(cold_cpu):.2f} s; {len(index.registrations)} CPU registrations, "
              f"{len(index.ops())} ops, {len(stats.notes)} notes)")
        print(f"index warm  (cache by commit):          {statistics.median(warm):7.3f} s")
        print(f"index query ({len(ops)} ops, files_for_op):       {query_s:7.3f} s   found {index_found}/{len(ops)}")
        print(f"grep        ({len(ops)} subprocesses):            {grep_s:7.2f} s   found {grep_found}/{len(ops)}")


if __name__ == "__main__":
    main()
