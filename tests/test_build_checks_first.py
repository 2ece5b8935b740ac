"""``tfbuild build`` checks everything before it changes the tree, ``--dry-run`` gives the build's
verdict, and ``tfbuild edit --revert`` undoes everything a build changed.

Run through the real CLI (:func:`tfbuild.cli.main`, or a subprocess where a signal or an op
library's registrations must stay out of this process) on generated TensorFlow-shaped git trees
(``tests/treegen.py``), with real git and real programs on ``PATH``.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import treegen
from tree_snapshots import git, snapshot, write_min_model

from tfbuild.cli import main
from tfbuild.resources import examples_dir
from tfbuild.tree.work_branch import WORK_BRANCH

MIN_FILE = f"{treegen.KERNELS_DIR}/reduction_ops_min.cc"
HEADER_IN_TREE = treegen.OPS_TO_REGISTER_H


@pytest.fixture
def min_model(tmp_path: Path) -> Path:
    return write_min_model(tmp_path)


@pytest.fixture
def tree_without_min(tf1_tree: Path) -> Path:
    """The tf1 tree with Min's only kernel source deleted (and committed): no edit can fix it."""
    git(tf1_tree, "rm", "-q", MIN_FILE)
    git(tf1_tree, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
        "commit", "-qm", "no Min kernel")
    return tf1_tree


def path_without(tmp_path: Path, *programs: str) -> str:
    """A PATH on which every program of this machine's PATH is found except ``programs``."""
    bin_dir = tmp_path / f"path-without-{'-'.join(programs)}"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not Path(directory).is_dir():
            continue
        for program in Path(directory).iterdir():
            link = bin_dir / program.name
            if program.name not in programs and not link.exists() and os.access(program, os.X_OK):
                link.symlink_to(program)
    return str(bin_dir)


def build_argv(tree: Path, model: Path, out: Path, flavour: str, *more: str) -> list[str]:
    return ["build", "--target", "linux-x86_64", "--flavour", flavour, "--source", str(tree),
            "--model", str(model), "--out", str(out), "--jobs", "2", *more]


# -- the dry run's verdict is the build's ---------------------------------------------------------
@pytest.mark.parametrize("flavour", ["makefile", "bazel"])
def test_a_missing_kernel_source_is_exit_5_for_check_dry_run_and_build_alike(
    tree_without_min, min_model, tmp_path, capsys, flavour
):
    before = snapshot(tree_without_min)
    out = tmp_path / "out"
    check = main(["check", "--flavour", flavour, "--model", str(min_model), "--source", str(tree_without_min)])
    capsys.readouterr()
    dry = main(build_argv(tree_without_min, min_model, out, flavour, "--local", "--dry-run"))
    dry_err = capsys.readouterr().err
    real = main(build_argv(tree_without_min, min_model, out, flavour, "--local"))
    real_err = capsys.readouterr().err
    assert (check, dry, real) == (5, 5, 5)
    assert "No OpKernel was registered to support Op 'Min'" in dry_err
    assert [line for line in dry_err.splitlines() if line.startswith("error:")] == \
        [line for line in real_err.splitlines() if line.startswith("error:")]
    assert snapshot(tree_without_min) == before
    assert not out.exists()


@pytest.mark.parametrize(("flavour", "entry", "diff_line"), [
    ("makefile", MIN_FILE, f"+{MIN_FILE}"),
    ("bazel", "reduction_ops_min.cc", '+        "reduction_ops_min.cc",'),
])
def test_the_dry_run_shows_every_edit_as_a_diff_and_changes_nothing(
    tf1_tree, min_model, tmp_path, capsys, monkeypatch, flavour, entry, diff_line
):
    before = snapshot(tf1_tree)
    out = tmp_path / "out"
    monkeypatch.setenv("PATH", failing_bazel(tmp_path, "exit 0"))  # a bazel: the dry run exits as the build would
    assert main(build_argv(tf1_tree, min_model, out, flavour, "--local", "--dry-run")) == 0
    text = capsys.readouterr().out
    edited = treegen.OP_FILES_TXT if flavour == "makefile" else treegen.KERNELS_BUILD
    assert f"--- a/{edited}\n+++ b/{edited}\n" in text
    lines = text.splitlines()
    assert diff_line in lines
    assert f"  one commit on {WORK_BRANCH}:" in lines
    assert f"    {edited}: 1 entry added" in lines and f"      + {entry}" in lines
    assert f"written by the build, untracked: {HEADER_IN_TREE}" in text
    assert f"undo every change with: tfbuild edit --revert --source {tf1_tree}" in text
    assert "preflight: passed" in text
    assert snapshot(tf1_tree) == before
    assert not out.exists()  # the dry run writes nothing, not even into --out


# -- nothing changes before every check has passed -----------------------------------------------
def test_a_local_makefile_build_without_autotools_stops_before_the_tree_changes(tf1_tree, min_model, tmp_path,
                                                                                capsys, monkeypatch):
    """protobuf's autogen.sh runs autoreconf: without it a --local build is refused up front, not
    five seconds later with "autoreconf: not found" (found on a real r1.9 build)."""
    before = snapshot(tf1_tree)
    monkeypatch.setenv("PATH", path_without(tmp_path, "autoreconf", "libtoolize"))
    out = tmp_path / "out"
    code = main(build_argv(tf1_tree, min_model, out, "makefile", "--local"))
    err = capsys.readouterr().err
    assert code == 6, err
    assert "autoreconf: not found on this machine" in err and "build protobuf" in err
    assert "Debian's autoconf package: apt-get install autoconf" in err
    # Each missing program named once, with the package that brings it.
    assert "also missing: libtoolize: not found on this machine" in err and "libtoolize: libtoolize" not in err
    assert "Debian's libtool package: apt-get install libtool" in err
    assert snapshot(tf1_tree) == before and not out.exists()


def test_no_bazel_on_path_stops_the_build_before_the_tree_changes(tf1_tree, min_model, tmp_path, capsys, monkeypatch):
    before = snapshot(tf1_tree)
    monkeypatch.setenv("PATH", path_without(tmp_path, "bazel", "bazelisk"))
    out = tmp_path / "out"
    code = main(build_argv(tf1_tree, min_model, out, "bazel", "--local"))
    err = capsys.readouterr().err
    assert code == 6, err
    assert "bazel: not found on this machine" in err
    assert snapshot(tf1_tree) == before  # byte-identical, same branch and commit, nothing untracked
    assert WORK_BRANCH not in before["branches"]
    assert not out.exists()

    assert main(build_argv(tf1_tree, min_model, out, "bazel", "--local", "--dry-run")) == 6  # the build's code
    text = capsys.readouterr().out
    assert "MISSING  bazel: not found on this machine" in text
    assert "The build would stop here, before changing anything" in text and "(exit 6)" in text
    assert snapshot(tf1_tree) == before


def test_an_unreachable_docker_engine_stops_the_build_before_the_tree_changes(
    tf1_tree, min_model, tmp_path, capsys, monkeypatch
):
    before = snapshot(tf1_tree)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'no-docker.sock'}")
    code = main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--no-local"))
    err = capsys.readouterr().err
    assert code == 6, err
    assert "the Docker engine is unreachable" in err
    assert snapshot(tf1_tree) == before


def test_a_dirty_tree_stops_the_build_before_anything_is_written(tf1_tree, min_model, tmp_path, capsys):
    list_file = tf1_tree / treegen.OP_FILES_TXT
    list_file.write_text(list_file.read_text() + "\n")
    before = snapshot(tf1_tree)
    code = main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--local"))
    err = capsys.readouterr().err
    assert code == 4, err
    assert "uncommitted changes" in err and len(err.strip().splitlines()) == 1
    assert snapshot(tf1_tree) == before
    assert not (tmp_path / "out").exists()


# -- after the tree changed: what changed, and the one command that undoes it ---------------------
def failing_bazel(tmp_path: Path, script: str) -> str:
    """A PATH whose ``bazel`` runs ``script`` (configure.py is skipped: the tree looks configured)."""
    bin_dir = tmp_path / "fake-bazel"
    bin_dir.mkdir()
    bazel = bin_dir / "bazel"
    bazel.write_text(f"#!/bin/sh\n{script}\n")
    bazel.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize(("script", "code", "first_line"), [
    ("echo 'ERROR: bazel stub fails'; exit 3", 7, "error: build step 2/3"),
    ("kill -INT $PPID; sleep 30", 130, "interrupted"),
])
def test_a_stop_after_the_tree_changed_names_the_changes_and_the_revert_undoes_them(
    tf1_tree, min_model, tmp_path, script, code, first_line
):
    (tf1_tree / ".tf_configure.bazelrc").write_text("# configured\n")  # untracked: skips configure.py
    before = snapshot(tf1_tree)
    env = {**os.environ, "PATH": failing_bazel(tmp_path, script), "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", *build_argv(tf1_tree, min_model, tmp_path / "out", "bazel", "--local")],
        capture_output=True, text=True, env=env, timeout=300,
        # A suite started in the background (`pytest &` from a script) inherits SIGINT ignored,
        # and so would tfbuild: give it the terminal's default, as a user pressing Ctrl-C has.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines = [line for line in done.stderr.splitlines() if not line.startswith(("W0000", "I0000", "WARNING"))]
    assert done.returncode == code, done.stderr[-3000:]
    start = next(i for i, line in enumerate(lines) if line.startswith(first_line))
    report = lines[start + 1:]
    assert report[0] == f"the build stopped after changing the source tree {tf1_tree}:"
    assert report[1].startswith("  committed ") and f"on {WORK_BRANCH}: {treegen.KERNELS_BUILD} (+1)" in report[1]
    assert report[2] == f"  wrote {HEADER_IN_TREE} (untracked)"
    assert report[3] == f"undo it with: tfbuild edit --revert --source {tf1_tree}"
    assert git(tf1_tree, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    assert (tf1_tree / HEADER_IN_TREE).is_file()

    undo = shlex.split(report[3].removeprefix("undo it with: "))
    assert undo[0] == "tfbuild"
    assert main(undo[1:]) == 0
    assert snapshot(tf1_tree) == before  # byte-identical, on master, the header gone
    assert not (tf1_tree / HEADER_IN_TREE).exists()


@pytest.mark.compiler
def test_the_dry_run_lists_what_the_build_commits_and_the_revert_restores_the_tree(
    tf1_tree, min_model, tmp_path, capsys
):
    """A real local Makefile build: the entries the dry run shows are the ones committed, and
    ``tfbuild edit --revert`` (no flavour) removes the header the build wrote into the tree."""
    before = snapshot(tf1_tree)
    out = tmp_path / "out"
    argv = build_argv(tf1_tree, min_model, out, "makefile", "--local", "--default-ops", "NoOp:NoOp")
    assert main([*argv, "--dry-run"]) == 0
    planned = [line for line in capsys.readouterr().out.splitlines() if line.startswith("+tensorflow/")]
    assert main(argv) == 0, capsys.readouterr().err[-3000:]
    shown = capsys.readouterr().out
    committed = git(tf1_tree, "show", "--format=", WORK_BRANCH, "--", treegen.OP_FILES_TXT).splitlines()
    assert planned == [line for line in committed if line.startswith("+tensorflow/")] != []
    assert f"undo with: tfbuild edit --revert --source {tf1_tree}" in shown
    trailers = git(tf1_tree, "log", "-1", "--format=%B", WORK_BRANCH)
    assert f"Tfbuild-Generated: {HEADER_IN_TREE}" in trailers
    assert (tf1_tree / HEADER_IN_TREE).read_text() == (out / "header" / "ops_to_register.h").read_text()

    assert main(["edit", "--revert", "--source", str(tf1_tree)]) == 0
    assert f"removed {HEADER_IN_TREE}" in capsys.readouterr().out
    after = snapshot(tf1_tree)
    built = {path for path in after["files"] if path not in before["files"]}  # the build's own outputs
    # ... and version_info.cc, which the tree's Makefile writes (gen_git_source.sh) and git ignores, as in TF.
    assert all(path.startswith(("tensorflow/contrib/makefile/gen/", "tensorflow/contrib/makefile/downloads/"))
               or path == "tensorflow/core/util/version_info.cc" for path in built), built
    assert {path: after["files"][path] for path in before["files"]} == before["files"]
    assert (after["branch"], after["head"], after["branches"]) == (before["branch"], before["head"], before["branches"])


def test_edit_makefile_revert_still_works_and_revert_needs_no_flavour(tf1_tree, min_model, capsys):
    before = snapshot(tf1_tree)
    assert main(["edit", "makefile", "--model", str(min_model), "--source", str(tf1_tree)]) == 0
    assert f"undo with: tfbuild edit --revert --source {tf1_tree}" in capsys.readouterr().out
    assert main(["edit", "makefile", "--revert", "--source", str(tf1_tree)]) == 0
    assert snapshot(tf1_tree) == before
    assert main(["edit", "--source", str(tf1_tree)]) == 2  # editing does need a flavour
    assert "edit needs a flavour" in capsys.readouterr().err


# -- an op library's dry run reads its sources, compiles nothing ----------------------------------
@pytest.mark.tensorflow
@pytest.mark.compiler
def test_an_op_library_dry_run_compiles_nothing_and_its_header_is_the_builds(tmp_path):
    """The dry run reads the op sources (this process loads no library: TensorFlow's op registry
    is per process); the real build, in a subprocess, compiles them and asks TensorFlow."""
    from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
    from tfbuild.pipeline.run import run_build

    example = examples_dir() / "custom_ops"
    sources = sorted(str(source) for source in example.glob("*.cc"))
    listing = sorted(p.name for p in example.iterdir())
    dry_out, real_out = tmp_path / "dry", tmp_path / "real"
    options = resolve_build_options(
        Flags.named(target="linux-x86_64", local=True, dry_run=True, jobs=2, output_dir=str(dry_out),
                    models=[str(example / "model.pbtxt")], op_sources=sources),
        environ={}, cwd=tmp_path,
    )
    dry = run_build(options)
    assert not dry_out.exists() and sorted(p.name for p in example.iterdir()) == listing  # nothing compiled
    assert "Op library kernels, read from the sources rather than compiled:" in dry.text
    assert "    ExampleScale: ExampleScaleOp<CPUDevice, float>; ExampleScaleOp<CPUDevice, int32>" in dry.text
    assert "ExampleSquare" not in dry.header_text  # the model does not use it

    argv = ["build", "--target", "linux-x86_64", "--local", "--model", str(example / "model.pbtxt"),
            "--jobs", "2", "--out", str(real_out), *(arg for source in sources for arg in ("--op-source", source))]
    real = subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True, timeout=600)
    assert real.returncode == 0, real.stderr[-3000:]
    assert (real_out / "header" / "ops_to_register.h").read_text() == dry.header_text


# -- what a --local plan needs from this machine --------------------------------------------------
def path_with(tmp_path: Path, *programs: str) -> str:
    """A PATH holding only ``programs`` (as found on this machine's PATH)."""
    import shutil

    bin_dir = tmp_path / f"path-with-{'-'.join(programs)}"
    bin_dir.mkdir()
    for program in programs:
        found = shutil.which(program)
        assert found is not None, program
        (bin_dir / program).symlink_to(found)
    return str(bin_dir)


@pytest.mark.parametrize(("target", "compilers"), [
    ("linux-x86_64", {"gcc"}),  # the contrib Makefile's own default, no CXX given
    ("pi-armv7", {"arm-linux-gnueabihf-g++", "arm-linux-gnueabihf-ar"}),  # CXX=, AR=, MAKEFLAGS=CC=
])
def test_a_local_makefile_plan_needs_the_compilers_its_make_command_names(
    pristine_trees, tmp_path, monkeypatch, target, compilers
):
    from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
    from tfbuild.pipeline.flavours import plan_build
    from tfbuild.pipeline.flavours.makefile import PROTOBUF_PROGRAMS
    from tfbuild.pipeline.prerequisites import check_prerequisites
    from tfbuild.toolchain.targets import get_target
    from tfbuild.tree.facts import read_tree_facts

    tree = pristine_trees["tf1"]
    options = resolve_build_options(
        Flags.named(target=target, flavour="makefile", local=True, source=str(tree), jobs=2,
                    output_dir=str(tmp_path / "out")),
        environ={}, cwd=tmp_path,
    )
    plan = plan_build(options, header_text="// header\n", tree=read_tree_facts(tree))
    # autotools are found: a --local build bootstraps protobuf with them (checked on their own below)
    autotools = [program for program in PROTOBUF_PROGRAMS if program != "make"]
    monkeypatch.setenv("PATH", path_with(tmp_path, "make", "bash", "mkdir", *autotools))
    found = {p.what: p for p in check_prerequisites(plan, get_target(target), options)}
    assert found["make"].ok and found[f"{treegen.MAKEFILE.rsplit('/', 1)[0]}/download_dependencies.sh"].ok
    missing = {what for what, p in found.items() if not p.ok}
    assert missing == compilers
    assert all(p.error is not None and p.error.exit_code == 6 for p in found.values() if not p.ok)
    assert not (tmp_path / "out").exists()


def test_a_program_an_earlier_step_makes_is_not_looked_for_before_the_build(pristine_trees, tmp_path):
    """A desktop JVM library generates saved_model.proto with the tree's protoc, which the
    plan's protobuf step builds: a fresh tree has none yet, and that is no missing program."""
    from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
    from tfbuild.pipeline.flavours import plan_build
    from tfbuild.pipeline.prerequisites import check_prerequisites
    from tfbuild.toolchain.targets import get_target
    from tfbuild.tree.facts import read_tree_facts

    tree = pristine_trees["tf1"]
    options = resolve_build_options(
        Flags.named(target="linux-x86_64", flavour="makefile", local=True, source=str(tree), jobs=2,
                    java_api="tensorflow", output_dir=str(tmp_path / "out")),
        environ={}, cwd=tmp_path,
    )
    plan = plan_build(options, header_text="// header\n", tree=read_tree_facts(tree))
    protoc = next(step.argv[0] for step in plan.steps if step.name.startswith("generate saved_model.proto"))
    assert not Path(protoc).exists()
    makers = [step.name for step in plan.steps if str(protoc) in map(str, step.makes)]
    assert makers == ["build protobuf (compile_linux_protobuf.sh)"]
    found = {p.what: p for p in check_prerequisites(plan, get_target("linux-x86_64"), options)}
    assert protoc not in found and all(p.ok for what, p in found.items() if "protoc" in what)


# -- a tree the container cannot read as this machine does ----------------------------------------
def test_an_absolute_protobuf_host_link_is_named_before_a_container_build(
    tf1_tree, min_model, tmp_path, capsys, docker_stand_in
):
    """compile_linux_protobuf.sh, run on this machine, links gen/protobuf-host to gen/protobuf by
    absolute path; in the container (tree at /src) that link leads nowhere, and the Makefile
    would fail much later on a missing protobuf header. The check names the link and the fix.
    (The stand-in engine has every image: the link is the one thing missing, so the dry run
    exits 4 with or without a real engine here; the build with one is the next test.)"""
    gen = tf1_tree / "tensorflow" / "contrib" / "makefile" / "gen"
    (gen / "protobuf" / "include").mkdir(parents=True)
    (gen / "protobuf-host").symlink_to(gen / "protobuf")
    before = snapshot(tf1_tree)
    code = main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--dry-run"))
    printed = capsys.readouterr().out
    assert code == 4  # a dry run lists what is missing, plans all the same, and exits as the build would
    line = next(line for line in printed.splitlines() if "protobuf-host" in line)
    assert line.strip().startswith("MISSING") and f"links to {gen / 'protobuf'}" in line
    assert "make the link relative: ln -sfn protobuf " in line
    assert snapshot(tf1_tree) == before


@pytest.mark.docker
def test_the_build_stops_on_that_link_before_the_tree_changes(tf1_tree, min_model, tmp_path, capsys):
    gen = tf1_tree / "tensorflow" / "contrib" / "makefile" / "gen"
    (gen / "protobuf").mkdir(parents=True)
    (gen / "protobuf-host").symlink_to(gen / "protobuf")
    before = snapshot(tf1_tree)
    assert main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile")) == 4
    assert "protobuf-host: links to" in capsys.readouterr().err
    assert snapshot(tf1_tree) == before
    (gen / "protobuf-host").unlink()
    (gen / "protobuf-host").symlink_to("protobuf")  # the fix the hint gives: now the check passes
    assert main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--dry-run")) == 0
    assert "protobuf-host" not in capsys.readouterr().out
    (gen / "protobuf-host").unlink()  # as the script leaves it when it ran in the container
    (gen / "protobuf-host").symlink_to("/src/tensorflow/contrib/makefile/gen/protobuf")
    assert main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--dry-run")) == 0
    assert "protobuf-host" not in capsys.readouterr().out


def test_a_container_made_link_is_named_before_a_local_build(tf1_tree, min_model, tmp_path, capsys):
    """The reverse, found on a real 1.15.5 tree: after a container build, gen/protobuf-host links
    to /src/...; a --local build's protobuf step then stops at once on ``ln -s`` ("File exists").
    The local build names the link and the relative fix before the tree changes; with the fix,
    the check passes."""
    gen = tf1_tree / "tensorflow" / "contrib" / "makefile" / "gen"
    (gen / "protobuf" / "include").mkdir(parents=True)
    (gen / "protobuf-host").symlink_to("/src/tensorflow/contrib/makefile/gen/protobuf")
    before = snapshot(tf1_tree)
    assert main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--local")) == 4
    err = capsys.readouterr().err
    assert "protobuf-host: links to /src/tensorflow/contrib/makefile/gen/protobuf, a path of the toolchain" in err
    assert "make the link relative: ln -sfn protobuf " in err
    assert snapshot(tf1_tree) == before and not (tmp_path / "out").exists()
    (gen / "protobuf-host").unlink()
    (gen / "protobuf-host").symlink_to("protobuf")  # the fix the hint gives
    assert main(build_argv(tf1_tree, min_model, tmp_path / "out", "makefile", "--local", "--dry-run")) == 0
    assert "protobuf-host" not in capsys.readouterr().out


@pytest.mark.parametrize(("program", "package"), [
    ("libtoolize", "libtool"), ("autoreconf", "autoconf"), ("automake", "automake"), ("make", "make"),
    ("/usr/bin/g++", "g++"), ("aarch64-linux-gnu-g++", "g++-aarch64-linux-gnu"),
    ("arm-linux-gnueabihf-ar", "binutils-arm-linux-gnueabihf"), ("bazel", None),
])
def test_a_missing_program_names_the_debian_package_that_brings_it(program, package):
    from tfbuild.toolchain.debian_packages import debian_package, install_hint

    assert debian_package(program) == package
    assert (f"apt-get install {package}" in install_hint(program)) if package else "install it" in install_hint(program)
