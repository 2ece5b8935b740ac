"""Reproducible artifacts: the same app built twice, clean, from trees and into output
directories at other paths, gives the same bytes; the manifest says how.

The end-to-end test builds a generated TF 1.x tree twice with the contrib Makefile (real make,
real g++) and compares the sha256 of every artifact. The prefix maps are checked on their own
with the real compiler, on the shape that makes them necessary in a real tree: a header reached
through an absolute include path (the Makefile's ``-I$(MAKEFILE_DIR)/downloads/...`` and
``$(PROTOGENDIR)``), whose ``__FILE__`` lands in the object.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from treegen import make_tf1_tree

from tfbuild.errors import ConfigError
from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
from tfbuild.pipeline.flavours import plan_build
from tfbuild.pipeline.planning.reproducible import ZIP_EPOCH, choose_epoch, deterministic_ar_flags, prefix_maps
from tfbuild.tree.facts import read_tree_facts

OPS = [["Const", "ConstantOp"], ["Relu", "ReluOp<CPUDevice, float>"]]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_ar_flags_get_deterministic_mode_once():
    assert deterministic_ar_flags("-r") == "-rD"
    assert deterministic_ar_flags("r") == "rD"
    assert deterministic_ar_flags("-rD") == "-rD"
    assert deterministic_ar_flags("") == "-rD"
    assert deterministic_ar_flags("-crs extra") == "-crsD extra"


def test_the_epoch_is_the_given_one_else_the_trees_commit_time_else_fixed(tmp_path, pristine_trees):
    assert choose_epoch(1234, pristine_trees["tf1"])[0] == 1234
    head = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=pristine_trees["tf1"], capture_output=True,
                          text=True, check=True).stdout.strip()
    epoch, origin = choose_epoch(None, pristine_trees["tf1"])
    assert epoch == int(head) and "commit time" in origin
    assert choose_epoch(None, tmp_path) == (ZIP_EPOCH, "fixed: 1980-01-01 (no tree commit and none given)")


def test_a_path_that_cannot_be_mapped_is_refused_with_a_fix():
    with pytest.raises(ConfigError, match="cannot be mapped for a reproducible build"):
        prefix_maps({PurePosixPath("/a=b/tree"): "."})


def _plan(tree: Path, out: Path, **cli):
    options = resolve_build_options(
        Flags.named(target="linux-x86_64", flavour="makefile", local=True, source=str(tree), jobs=2,
                    output_dir=str(out), **cli),
        environ={}, cwd=out.parent,
    )
    return plan_build(options, header_text="// header\n", tree=read_tree_facts(tree))


def test_the_plan_maps_the_tree_and_header_and_runs_at_one_time(pristine_trees, tmp_path):
    tree = pristine_trees["tf1"]
    plan = _plan(tree, tmp_path / "out", source_date_epoch=1700000000)
    make = next(step for step in plan.steps if step.name.startswith("build TensorFlow"))
    optflags = next(arg for arg in make.argv if arg.startswith("OPTFLAGS="))
    assert f"-ffile-prefix-map={tree}=." in optflags
    assert f"-ffile-prefix-map={tmp_path / 'out' / 'header'}=tfbuild-header" in optflags
    assert "ARFLAGS=-rD" in make.argv  # the tree's own -r, deterministic
    assert plan.env["SOURCE_DATE_EPOCH"] == "1700000000"
    assert plan.reproducibility is not None and plan.reproducibility.source_date_epoch == 1700000000


@pytest.mark.compiler
def test_the_prefix_map_makes_objects_independent_of_the_trees_path(tmp_path):
    """Real g++: a kernel that includes a downloaded header by an absolute path, the way the
    Makefile's INCLUDES reach protobuf and Eigen, compiled in two trees at two paths."""
    objects = {}
    for name in ("a", "tree-b"):
        tree = tmp_path / name
        downloads = tree / "tensorflow/contrib/makefile/downloads/protobuf/src/google/protobuf/stubs"
        downloads.mkdir(parents=True)
        (downloads / "logging.h").write_text(
            "inline const char* check_site() { return __FILE__; }  // GOOGLE_CHECK's LogMessage(__FILE__, ...)\n")
        (tree / "kernel.cc").write_text('#include "google/protobuf/stubs/logging.h"\n'
                                        "const char* site() { return check_site(); }\n")
        include = f"-I{tree}/tensorflow/contrib/makefile/downloads/protobuf/src"
        for mapped in (False, True):
            flags = list(prefix_maps({PurePosixPath(str(tree)): "."})) if mapped else []
            out = tree / f"kernel-{mapped}.o"
            subprocess.run(["g++", "-O2", "-DNDEBUG", include, *flags, "-c", "kernel.cc", "-o", str(out)],
                           cwd=tree, check=True)
            objects[(name, mapped)] = out.read_bytes()
    assert objects[("a", False)] != objects[("tree-b", False)]  # the tree's path is in the object
    assert objects[("a", True)] == objects[("tree-b", True)]
    assert b"./tensorflow/contrib/makefile/downloads/protobuf/src/google/protobuf/stubs/logging.h" in objects[("a", True)]


@pytest.mark.compiler
def test_two_clean_builds_at_other_paths_give_the_same_artifacts(tmp_path):
    """The same app, built twice with the contrib Makefile on this machine: two clean copies of
    the tree at different paths, two output directories. Every artifact has the same sha256;
    the manifests record the epoch (the tree's commit time), the maps and the ar flags."""
    model = tmp_path / "ops.json"
    model.write_text(json.dumps(OPS))
    digests, manifests = [], []
    for name in ("first", "second-build"):
        tree = make_tf1_tree(tmp_path / name / "tf1")
        out = tmp_path / f"out-{name}"
        done = subprocess.run(
            [sys.executable, "-m", "tfbuild", "-q", "build", "--target", "linux-x86_64", "--flavour", "makefile",
             "--source", str(tree), "--model", str(model), "--default-ops", "NoOp:NoOp", "--local",
             "--out", str(out), "--jobs", "2"],
            capture_output=True, text=True,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        manifest = json.loads((out / "manifest.json").read_text())
        manifests.append(manifest)
        digests.append({record["name"]: record["sha256"] for record in manifest["artifacts"]})
        for record in manifest["artifacts"]:
            assert _sha256(out / record["name"]) == record["sha256"]
    assert digests[0] == digests[1]
    assert set(digests[0]) == {"libtensorflow-core.a", "libprotobuf.a", "libnsync.a", "benchmark"}
    first = manifests[0]["reproducibility"]
    assert first["source_date_epoch"] == manifests[1]["reproducibility"]["source_date_epoch"]
    assert "commit time" in first["epoch_from"] and first["ar_flags"] == "-rD" and first["not_identical"] == []
    make = next(command for command in manifests[0]["effective_flags"] if command["step"].startswith("build TensorFlow"))
    assert make["argv"][0] == "make" and "ARFLAGS=-rD" in make["argv"]
    shutil.rmtree(tmp_path / "first")
