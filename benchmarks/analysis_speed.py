"""Wall time, CPU time and peak memory of a warm ``tfbuild header`` next to TensorFlow's own
``python -m tensorflow.python.tools.print_selective_registration_header`` on the same GraphDef.

    .venv/bin/python benchmarks/analysis_speed.py [--runs 5] [--nodes 100000]

Two models: MobileNetV2 as scripts/make_mobilenet_v2.py writes it (a frozen GraphDef of a few
hundred nodes), and a generated GraphDef of ``--nodes`` nodes (a chain of Conv2D, BiasAdd, Relu,
MatMul, AddV2, Mul, Cast, Identity and ConcatV2 nodes over float32 and int32, each with the
attrs TensorFlow writes). "Warm" means tfbuild's caches (the wheel's proto descriptors, the
kernel registry) exist: the first run builds them, by importing TensorFlow once in a child
process, and is shown apart. Each command runs as its own process; its peak RSS comes from
``wait4``. Both headers are compared line by line (``//`` lines aside). Prints figures and the
ratios; asserts nothing. Goal: at least 10 times faster, at most a quarter of the memory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TFBUILD = str(Path(PYTHON).with_name("tfbuild"))


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process
    peak_rss_mb: float


def run(argv: list[str], env: dict[str, str], stdout: Path | None = None) -> Run:
    """Run ``argv`` to completion; its wall time, CPU time and peak RSS."""
    with open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        process = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4, not by Popen
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit code {process.returncode}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)  # ru_maxrss is in KiB on Linux


def median_run(runs: list[Run]) -> Run:
    return Run(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.peak_rss_mb for r in runs),
    )


def generated_graph(path: Path, nodes: int) -> Path:
    """A GraphDef of ``nodes`` nodes, written with tfbuild's TensorFlow-free message classes."""
    sys.path.insert(0, str(REPO))
    from tfbuild.model.protos import message_class

    graph = message_class("tensorflow.GraphDef")()
    float32, int32 = 1, 3
    placeholder = graph.node.add(name="input", op="Placeholder")
    placeholder.attr["dtype"].type = float32
    kinds = [
        ("Conv2D", float32, {"strides": [1, 1, 1, 1], "padding": b"SAME", "data_format": b"NHWC"}),
        ("BiasAdd", float32, {"data_format": b"NHWC"}),
        ("Relu", float32, {}),
        ("MatMul", float32, {"transpose_a": False, "transpose_b": False}),
        ("AddV2", float32, {}),
        ("Mul", int32, {}),
        ("Cast", None, {"SrcT": float32, "DstT": int32, "Truncate": False}),
        ("Identity", int32, {}),
        ("ConcatV2", float32, {"N": 2, "Tidx": int32}),
    ]
    previous = "input"
    for index in range(nodes - 1):
        op, dtype, attrs = kinds[index % len(kinds)]
        node = graph.node.add(name=f"n{index}", op=op, input=[previous, previous])
        if dtype is not None:
            node.attr["T"].type = dtype
        for name, value in attrs.items():
            if isinstance(value, list):
                node.attr[name].list.i.extend(value)
            elif isinstance(value, bool):
                node.attr[name].b = value
            elif isinstance(value, bytes):
                node.attr[name].s = value
            elif name in ("SrcT", "DstT", "Tidx"):
                node.attr[name].type = value
            else:
                node.attr[name].i = value
        previous = node.name
    path.write_bytes(graph.SerializeToString())
    return path


def header_body(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not line.startswith("//")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfbuild-analysis-speed-") as directory:
        work = Path(directory)
        env = dict(os.environ, TFBUILD_CACHE_DIR=str(work / "cache"), TF_CPP_MIN_LOG_LEVEL="2")
        mobilenet = work / "mobilenet_v2.pb"
        subprocess.run([PYTHON, str(REPO / "scripts" / "make_mobilenet_v2.py"), str(mobilenet)],
                       env=env, check=True, capture_output=True)
        big = generated_graph(work / "big.pb", args.nodes)
        models = {"MobileNetV2": mobilenet, f"{args.nodes:,}-node GraphDef": big}
        ours_out, theirs_out = work / "ours.h", work / "theirs.h"
        cold = run([TFBUILD, "header", str(mobilenet), "-o", str(ours_out)], env)
        print(f"first tfbuild run (builds the caches, imports TensorFlow in a child): "
              f"{cold.wall:.2f} s wall, {cold.peak_rss_mb:.0f} MB peak RSS\n")
        print(f"{'model':24s} {'command':28s} {'wall s':>8s} {'cpu s':>8s} {'peak MB':>8s}"
              f"   ({args.runs} runs, medians)")
        for label, model in models.items():
            ours_argv = [TFBUILD, "header", str(model), "-o", str(ours_out)]
            theirs_argv = [PYTHON, "-m", "tensorflow.python.tools.print_selective_registration_header",
                           f"--graphs={model}"]
            run(ours_argv, env)  # warm this model's page cache too
            ours = median_run([run(ours_argv, env) for _ in range(args.runs)])
            theirs = median_run([run(theirs_argv, env, stdout=theirs_out) for _ in range(args.runs)])
            same = header_body(ours_out) == header_body(theirs_out)
            for command, figures in (("tfbuild header (warm)", ours), ("TF print_selective_...", theirs)):
                print(f"{label:24s} {command:28s} {figures.wall:8.2f} {figures.cpu:8.2f} {figures.peak_rss_mb:8.0f}")
            print(f"{'':24s} {'ratio TF / tfbuild':28s} {theirs.wall / ours.wall:7.1f}x {theirs.cpu / ours.cpu:7.1f}x "
                  f"{theirs.peak_rss_mb / ours.peak_rss_mb:7.1f}x   headers equal: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
