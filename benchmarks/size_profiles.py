"""What each size profile buys on a real TensorFlow tree: sizes, latency and verification.

Builds the app's models for ``linux-x86_64`` with the contrib Makefile, once per row:

  full      the stock build: every kernel registered (``--default-ops all``), stock flags
  stock     selective, the tree's own flags
  balanced  selective, -O2 with function/data sections, --gc-sections, ICF, stripped
  small     selective, -Os but the model's hot kernels at -O2, same link options

then measures each build (``libtensorflow-core.a``, the ``benchmark`` program stripped, its
average latency over ``--runs`` runs on one thread, ``tfbuild verify``) and prints a Markdown
table with each row against ``full``. A row whose output directory already holds a
``manifest.json`` is measured, not rebuilt (``--measure-only`` never builds), so the slow part
can run once and the figures be taken again on a quiet machine. ccache (a Docker volume)
keeps objects between rows whose flags match; each profile changes the flags, so expect each
row to cost a full compile (about 40 minutes on 2 cores for TF 1.9).

Run it as the README's real-tree table was made::

    python benchmarks/size_profiles.py --source tf-r1.9 --out-root out \\
        --model mobilenet_v2_r1.9.pb --model control_flow_r1.9.pb \\
        --graph mobilenet_v2_r1.9.pb --input-layer images --input-shape 1,96,96,3 --output-layer Identity

The tree needs its ``downloads/`` filled (tfbuild's download step, or laid out by hand offline)
and the toolchain image (``tfbuild toolchain build``). Latency is wall-clock on this machine:
run with nothing else on the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROWS = {
    "full": ("stock full (every kernel)", ("--size-profile", "stock", "--default-ops", "all")),
    "stock": ("selective, stock flags", ("--size-profile", "stock")),
    "balanced": ("selective, balanced", ("--size-profile", "balanced")),
    "small": ("selective, small", ("--size-profile", "small")),
}
TARGET = "linux-x86_64"
PROTOBUF_LIB_DIR = "tensorflow/contrib/makefile/gen/protobuf/lib"
"""The tree's shared protobuf, which the Makefile's benchmark links dynamically."""
_AVERAGE = re.compile(r"Average inference timings in us: Warmup: \d+, no stats: (\d+)")
"""The benchmark's summary line; "no stats" is the pass without per-node timing, the one TF
compares with other libraries (the per-node pass after it is slower)."""


@dataclass(frozen=True)
class Row:
    name: str
    label: str
    out: Path
    build_seconds: float | None
    library_bytes: int
    benchmark_bytes: int
    benchmark_stripped_bytes: int
    latency_us: float
    latency_runs: int
    verify: str


def build(row: str, args: argparse.Namespace, out: Path) -> float | None:
    """Build one row unless its output directory already has a manifest; the seconds it took."""
    if (out / "manifest.json").is_file() or args.measure_only:
        return None
    argv = [
        args.tfbuild, "build", "--flavour", "makefile", "--target", TARGET,
        "--source", str(args.source), "--out", str(out), "--jobs", str(args.jobs),
        *(f"--model={model}" for model in args.model),
        *ROWS[row][1],
    ]
    print(f"building {row}: {' '.join(argv)}", file=sys.stderr, flush=True)
    start = time.monotonic()
    subprocess.run(argv, check=True)
    return time.monotonic() - start


def measure(row: str, args: argparse.Namespace, out: Path, build_seconds: float | None) -> Row:
    library = out / "libtensorflow-core.a"
    benchmark = out / "benchmark"
    for path in (library, benchmark):
        if not path.is_file():
            sys.exit(f"{path}: missing; build the '{row}' row first (drop --measure-only)")
    with tempfile.TemporaryDirectory() as scratch:
        stripped = Path(scratch) / "benchmark"
        shutil.copy2(benchmark, stripped)
        subprocess.run(["strip", str(stripped)], check=True)
        stripped_bytes = stripped.stat().st_size
    runs, average = latency(benchmark, args)
    return Row(
        name=row,
        label=ROWS[row][0],
        out=out,
        build_seconds=build_seconds,
        library_bytes=library.stat().st_size,
        benchmark_bytes=benchmark.stat().st_size,
        benchmark_stripped_bytes=stripped_bytes,
        latency_us=average,
        latency_runs=runs,
        verify=verification(out, args),
    )


def latency(benchmark: Path, args: argparse.Namespace) -> tuple[int, float]:
    """The benchmark's own average over ``args.runs`` runs on one thread, after 5 warm-up runs
    (``--max_time=0``: no time limit cuts the runs short)."""
    env = dict(os.environ, LD_LIBRARY_PATH=str(args.source / PROTOBUF_LIB_DIR))
    argv = [
        str(benchmark), f"--graph={args.graph}", f"--input_layer={args.input_layer}",
        f"--input_layer_shape={args.input_shape}", f"--output_layer={args.output_layer}",
        "--num_threads=1", f"--max_num_runs={args.runs}", "--max_time=0", "--warmup_runs=5",
    ]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    found = _AVERAGE.search(result.stdout + result.stderr)
    if result.returncode != 0 or not found:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        sys.exit(f"{benchmark}: the benchmark failed (exit {result.returncode}): {' | '.join(tail)}")
    return args.runs, float(found.group(1))


def verification(out: Path, args: argparse.Namespace) -> str:
    """``tfbuild verify`` on the build (run unless ``--no-verify``), as one table cell."""
    if not args.no_verify:
        subprocess.run([args.tfbuild, "verify", "--out", str(out)], check=False, capture_output=True)
    manifest = json.loads((out / "manifest.json").read_text())
    record = manifest.get("verify")
    if not record:
        return "not run"
    tensors = [tensor for model in record.get("models", []) for tensor in model.get("tensors", [])]
    worst = max((tensor.get("max_abs_diff") or 0.0 for tensor in tensors), default=0.0)
    verdict = "passed" if record.get("passed") else f"FAILED: {record.get('error')}"
    return f"{verdict}, {len(record.get('models', []))} models, {len(tensors)} tensors, max diff {worst:.1e}"


def table(rows: list[Row]) -> str:
    base = next((row for row in rows if row.name == "full"), None)
    lines = [
        "| build | `libtensorflow-core.a` | `benchmark`, stripped | vs. stock full "
        "| latency, 1 thread | vs. stock full | verify | build time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        size_ratio = f"1/{base.benchmark_stripped_bytes / row.benchmark_stripped_bytes:.1f}" if base else "-"
        speed_ratio = f"{row.latency_us / base.latency_us:.2f}x" if base else "-"
        built = f"{row.build_seconds / 60:.0f} min" if row.build_seconds is not None else "(earlier)"
        lines.append(
            f"| {row.label} | {_mb(row.library_bytes)} | {_mb(row.benchmark_stripped_bytes)} | {size_ratio} "
            f"| {row.latency_us / 1000:.2f} ms ({row.latency_runs} runs) | {speed_ratio} | {row.verify} | {built} |"
        )
    return "\n".join(lines)


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="TensorFlow 1.x tree (contrib Makefile)")
    parser.add_argument("--out-root", type=Path, required=True, help="one output directory per row below it")
    parser.add_argument("--model", action="append", required=True, help="the app's models (repeat)")
    parser.add_argument("--graph", type=Path, required=True, help="the frozen model the benchmark times")
    parser.add_argument("--input-layer", required=True)
    parser.add_argument("--input-shape", required=True, help="e.g. 1,96,96,3")
    parser.add_argument("--output-layer", required=True)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {', '.join(ROWS)}")
    parser.add_argument("--runs", type=int, default=100, help="benchmark runs per row (default 100)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--measure-only", action="store_true", help="never build; measure what is there")
    parser.add_argument("--no-verify", action="store_true", help="report the manifest's last verification")
    parser.add_argument("--tfbuild", default=shutil.which("tfbuild") or "tfbuild", help="the tfbuild command")
    args = parser.parse_args()
    args.source = args.source.resolve()
    names = [name.strip() for name in args.rows.split(",") if name.strip()]
    unknown = sorted(set(names) - set(ROWS))
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)}")
    rows = []
    for name in names:
        out = (args.out_root / name).resolve()
        seconds = build(name, args, out)
        rows.append(measure(name, args, out, seconds))
        print(f"measured {name}", file=sys.stderr, flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
