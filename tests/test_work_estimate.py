"""The dry run says what each step of a Makefile build compiles and what it reuses.

On the generated TF 1.x tree: before any build, protobuf and nsync are to be compiled and every
TensorFlow object; the count equals what the real build then compiles (the executor's ``make
-n`` count in the log). After the build a dry run with the same flags reuses protobuf, nsync and
every object; one with other flags (a size profile) compiles them all again, and says why.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfbuild.cli import main


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model_ops.json"
    path.write_text(json.dumps([["Const", "ConstantOp"], ["Relu", "ReluOp<CPUDevice, float>"]]))
    return path


def build_argv(tree: Path, model: Path, out: Path, *more: str) -> list[str]:
    return ["build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree), "--model",
            str(model), "--out", str(out), "--jobs", "2", "--local", *more]


def work(text: str) -> dict[str, str]:
    """The dry run's per-step lines, by step name (without its number and fix-ups)."""
    section = text.split("What the build compiles and what it reuses, step by step")[1].split("Prerequisites", maxsplit=1)[0]
    lines = [line.strip() for line in section.splitlines()[1:] if line.strip()]
    found = {}
    for line in lines:
        name, _, what = re.sub(r" \[fix-up: [^]]*\]", "", re.sub(r"^\d+\. ", "", line)).partition(": ")
        found[name] = what
    return found


@pytest.mark.compiler
def test_the_dry_run_tells_a_cold_build_from_a_rebuild(tf1_tree, model, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(build_argv(tf1_tree, model, out, "--dry-run")) == 0
    cold = work(capsys.readouterr().out)
    assert cold["download dependencies"] == "downloads the dependencies' sources (nothing compiled)"
    assert cold["build protobuf (compile_linux_protobuf.sh)"].startswith("compiles protobuf")
    assert cold["build nsync (host)"].startswith("compiles nsync")
    total = int(re.fullmatch(r"compiles (\d+) TensorFlow objects \(none built yet\)",
                             cold["build TensorFlow (linux-x86_64)"]).group(1))

    assert main(build_argv(tf1_tree, model, out)) == 0, capsys.readouterr().err[-3000:]
    capsys.readouterr()
    log = (out / "linux-x86_64.build.log").read_text()
    assert f"    {total} objects to compile (make -n)" in log  # what make itself counted

    assert main(build_argv(tf1_tree, model, out, "--dry-run")) == 0
    warm = work(capsys.readouterr().out)
    assert warm["download dependencies"].startswith("reuses what an earlier build made (tensorflow/contrib/makefile/")
    for step in ("build protobuf (compile_linux_protobuf.sh)", "build nsync (host)"):
        assert warm[step].startswith("reuses what an earlier build made") and warm[step].endswith("nothing compiled")
    assert warm["build TensorFlow (linux-x86_64)"].startswith(
        f"compiles 0 of {total} TensorFlow objects and reuses {total} built with the same flags")

    assert main(build_argv(tf1_tree, model, out, "--dry-run", "--size-profile", "small")) == 0
    other = work(capsys.readouterr().out)
    assert other["build TensorFlow (linux-x86_64)"] == (
        f"compiles all {total} TensorFlow objects: the {total} built before used other flags and are removed first")

    # An nsync.a with no record of its flags (TensorFlow's own compile_nsync.sh made it, or a tfbuild
    # from before the record): the dry run says it is compiled again, and the build does so.
    [stamp] = (tf1_tree / "tensorflow/contrib/makefile/downloads/nsync/builds").glob("*.tfbuild-flags.sha256")
    stamp.unlink()
    assert main(build_argv(tf1_tree, model, out, "--dry-run")) == 0
    unrecorded = work(capsys.readouterr().out)["build nsync (host)"]
    assert unrecorded.startswith("compiles nsync") and unrecorded.endswith("none were recorded: removed first)")
    assert main(build_argv(tf1_tree, model, out)) == 0, capsys.readouterr().err[-3000:]
    capsys.readouterr()
    log = (out / "linux-x86_64.build.log").read_text()
    assert "no record of the flags of earlier builds in this tree: removing" in log
    assert "build nsync (host): skipped" not in log
    assert stamp.is_file()
    assert main(build_argv(tf1_tree, model, out, "--dry-run")) == 0
    assert work(capsys.readouterr().out)["build nsync (host)"].startswith("reuses what an earlier build made")
