"""What TensorFlow's Android Java API costs over the C++ runtime on one build: the same model
through ``TensorFlowInferenceInterface`` (feed, run, fetch, as an app does per frame) on this
machine's Java VM, and through the build's C++ ``benchmark`` program.

    python benchmarks/jvm_latency.py --out-dir OUT --graph MODEL.pb \\
        --input-layer images --input-shape 1,96,96,3 --output-layer Identity [--runs 50]

OUT is a linux-x86_64 build made with ``--java-api tensorflow`` (its JNI library runs here; an
Android ``.so`` cannot) whose tree still has the ``benchmark`` it built (``OUT/benchmark``).
Both sides run with their default threading (TensorFlowInferenceInterface has no thread
option) after the same warm-up runs; the Java side's figure includes the feed and fetch copies
an app pays, the benchmark's only the run. Prints both averages and their ratio. Wall-clock
figures on a shared machine: run with nothing else on the cores, and quote ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HARNESS = HERE / "TfiiLatency.java"
STAND_INS = REPO / "templates" / "android" / "stand_ins"
PROTOBUF_LIB_DIR = "tensorflow/contrib/makefile/gen/protobuf/lib"
_AVERAGE = re.compile(r"Average inference timings in us: Warmup: \d+, no stats: (\d+)")
WARMUP = 5


def _average(argv: list[str], env: dict[str, str] | None = None) -> float:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    found = _AVERAGE.search(done.stdout + done.stderr)
    if done.returncode != 0 or not found:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        sys.exit(f"{argv[0]}: failed (exit {done.returncode}): {' | '.join(tail)}")
    return float(found.group(1))


def java_average(out: Path, record: dict[str, Any], args: argparse.Namespace, work: Path) -> float:
    """Compile the harness with the build's Java API and the run-time stand-ins, and run it."""
    sources = [HARNESS, *sorted(STAND_INS.rglob("*.java")), *(out / source for source in record["java_sources"])]
    classes = work / "classes"
    subprocess.run(["javac", "--release", "8", "-encoding", "UTF-8", "-nowarn", "-Xlint:-options",
                    "-d", str(classes), *map(str, sources)], check=True)
    library = Path(out / record["library"])
    return _average(["java", f"-Djava.library.path={library.parent}", "-cp", str(classes), "TfiiLatency",
                     str(args.graph), args.input_layer, args.input_shape, args.output_layer, str(WARMUP),
                     str(args.runs)])


def cpp_average(out: Path, manifest: dict[str, Any], args: argparse.Namespace) -> float:
    source = Path(manifest["tensorflow"]["source"]) if isinstance(manifest.get("tensorflow"), dict) else None
    env = dict(os.environ)
    if source is not None:
        env["LD_LIBRARY_PATH"] = str(source / PROTOBUF_LIB_DIR)
    return _average([
        str(out / "benchmark"), f"--graph={args.graph}", f"--input_layer={args.input_layer}",
        f"--input_layer_shape={args.input_shape}", f"--output_layer={args.output_layer}",
        f"--max_num_runs={args.runs}", "--max_time=0", f"--warmup_runs={WARMUP}"], env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--graph", type=Path, required=True)
    parser.add_argument("--input-layer", required=True)
    parser.add_argument("--input-shape", required=True)
    parser.add_argument("--output-layer", required=True)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    out = args.out_dir.resolve()
    manifest = json.loads((out / "manifest.json").read_text())
    record = manifest.get("android_jni") or {}
    if record.get("java_api") != "tensorflow" or not (out / "benchmark").is_file():
        sys.exit(f"{out}: not a linux build of TensorFlow's Java API with its benchmark "
                 "(tfbuild build --target linux-x86_64 --java-api tensorflow)")
    with tempfile.TemporaryDirectory(prefix="tfii-latency-") as work:
        java = java_average(out, record, args, Path(work))
    cpp = cpp_average(out, manifest, args)
    print(f"TensorFlowInferenceInterface (feed, run, fetch): {java / 1000:.2f} ms average over {args.runs} runs")
    print(f"C++ benchmark (run):                            {cpp / 1000:.2f} ms average over {args.runs} runs")
    print(f"ratio: {java / cpp:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
