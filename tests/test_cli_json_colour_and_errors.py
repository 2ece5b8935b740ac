"""The command line's JSON, colour and error contract: a failing ``--json`` run still
prints one JSON object (the error in it), ``NO_COLOR`` and ``FORCE_COLOR`` as their conventions
say, and exit codes and messages that name what went wrong.

Real runs: :func:`tfbuild.cli.main` in-process, or the console script in its own process where
its stdout, its environment or its terminal matters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing_part

from tfbuild.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
NEG_MODEL = """\
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
"""
"""A model with an op the TF 1.x tree (tests/treegen.py) defines no kernel for: preflight fails (5)."""
ADD_MODEL = NEG_MODEL.replace('"Neg" input: "a"', '"Add" input: "a" input: "a"')


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None,
            stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        if name not in (env or {}):
            full_env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "tfbuild", *args], cwd=cwd, env=full_env, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=300, check=False)


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("note:")]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "internal error" not in lines[0], err
    return lines[0]


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.pbtxt"
    path.write_text(NEG_MODEL)
    return path


# --- --json: one JSON object, failed or not ----------------------------------------------------


def test_a_failing_json_run_prints_the_error_as_json(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing.pb"
    code = main(["analyze", str(missing), "--json"])
    captured = capsys.readouterr()
    assert code == 3, captured.err
    document = json.loads(captured.out)
    assert document == {"error": {"message": f"{missing}: no such file or directory", "hint": "check the model path",
                                  "exit_code": 3}}
    assert one_error_line(captured.err).startswith(f"error: {missing}: ")  # stderr says it too


def test_a_json_usage_error_is_json_too(tmp_path: Path, capsys) -> None:
    code = main(["analyze", "--json", "--bogus", str(tmp_path / "m.pb")])
    captured = capsys.readouterr()
    assert code == 2
    assert json.loads(captured.out)["error"]["message"] == "No such option: --bogus"


def test_the_dry_run_that_would_fail_preflight_prints_json(tf1_tree: Path, model: Path, capsys) -> None:
    code = main(["build", "--dry-run", "--json", "--model", str(model), "--source", str(tf1_tree),
                 "--target", "linux-x86_64", "--local", "--flavour", "makefile"])
    captured = capsys.readouterr()
    assert code == 5, captured.err
    error = json.loads(captured.out)["error"]
    assert error["exit_code"] == 5 and "Neg" in error["message"] and error["hint"]


def test_verify_json_without_a_build_prints_the_error(tmp_path: Path, capsys) -> None:
    code = main(["verify", "--out-dir", str(tmp_path), "--json"])
    captured = capsys.readouterr()
    assert code == 3, captured.err
    assert json.loads(captured.out)["error"]["message"] == f"{tmp_path}/manifest.json: no manifest, so no finished " \
        "build here"


def test_a_document_printed_before_the_failure_carries_the_error(tf1_tree: Path, model: Path, capsys) -> None:
    """``check --json`` prints its report, then fails (5): one object, the report and its error."""
    code = main(["check", str(model), "--source", str(tf1_tree), "--flavour", "makefile", "--json"])
    captured = capsys.readouterr()
    assert code == 5, captured.err
    document = json.loads(captured.out)
    assert document["ok"] is False and document["error"]["exit_code"] == 5


def test_a_successful_json_run_is_unchanged(tmp_path: Path, capsys) -> None:
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    assert main(["analyze", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert "error" not in document and document["models"]


def test_json_on_a_full_disk_still_names_stdout(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = run_cli("analyze", str(tmp_path / "missing.pb"), "--json", cwd=tmp_path, stdout=full.fileno())
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == "error: stdout: No space left on device"


# --- NO_COLOR and FORCE_COLOR ------------------------------------------------------------------

ESCAPE = "\x1b["


@pytest.mark.parametrize(
    ("env", "coloured"),
    [({}, False), ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": ""}, False), ({"NO_COLOR": "1"}, False),
     ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False)],
    ids=["piped", "force", "force-empty", "no-color", "both"],
)
def test_colour_in_a_pipe_follows_no_color_and_force_color(tmp_path: Path, env: dict[str, str],
                                                          coloured: bool) -> None:
    done = run_cli("analyze", str(tmp_path / "missing.pb"), cwd=tmp_path, env=env)
    assert done.returncode == 3
    assert (ESCAPE in done.stderr) is coloured, done.stderr


def test_force_color_keeps_a_pipes_layout(tmp_path: Path) -> None:
    """Colour, but no boxes and no 80-column wrapping: what is printed to a pipe is a file's."""
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    plain = run_cli("analyze", str(path), cwd=tmp_path)
    forced = run_cli("analyze", str(path), cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert plain.returncode == forced.returncode == 0
    assert ESCAPE in forced.stdout and "━" not in forced.stdout and "┃" not in forced.stdout
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", forced.stdout) == plain.stdout


@pytest.mark.parametrize(("env", "coloured"), [({}, True), ({"NO_COLOR": "1"}, False), ({"NO_COLOR": ""}, True)],
                         ids=["terminal", "no-color", "no-color-empty"])
def test_colour_on_a_terminal_follows_no_color(tmp_path: Path, env: dict[str, str], coloured: bool) -> None:
    import pty

    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm", **env}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        if name not in env:
            full_env.pop(name, None)
    parent, child = pty.openpty()
    try:
        process = subprocess.run([sys.executable, "-m", "tfbuild", "analyze", str(tmp_path / "missing.pb")],
                                 cwd=tmp_path, env=full_env, stdout=child, stderr=child, timeout=300, check=False)
        os.close(child)
        output = b""
        while True:
            try:
                chunk = os.read(parent, 65536)
            except OSError:  # the terminal's other end closed: all read
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(parent)
    assert process.returncode == 3
    assert b"missing.pb" in output
    assert (b"\x1b[" in output) is coloured, output


# --- exit codes and messages -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_a_timeout_that_is_no_number_of_seconds_is_refused_by_the_dry_run(tf1_tree: Path, tmp_path: Path,
                                                                        capsys, value: str) -> None:
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    code = main(["build", "--dry-run", "--model", str(path), "--source", str(tf1_tree), "--target", "linux-x86_64",
                 "--local", "--timeout", value])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--timeout" in one_error_line(err)


@pytest.mark.parametrize("flag", ["--timeout", "--tolerance"])
def test_verify_refuses_a_nan_or_infinite_bound(tmp_path: Path, capsys, flag: str) -> None:
    for value in ("nan", "inf"):
        code = main(["verify", "--out-dir", str(tmp_path), flag, value])
        err = capsys.readouterr().err
        assert code == 2, err
        assert flag in one_error_line(err)


def test_an_unwritable_cache_is_a_note_and_analyze_goes_on(tmp_path: Path) -> None:
    """The cache is optional: under a path no one can write (a file where a directory should be:
    root writes through any mode bit), analyze says so once and succeeds."""
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    done = run_cli("analyze", str(path), cwd=tmp_path, env={"TFBUILD_CACHE_DIR": str(blocker / "cache")})
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "cache cannot be written" in line]
    assert len(notes) == 1 and "TFBUILD_CACHE_DIR" in notes[0], done.stderr
    assert "Add" in done.stdout


def test_tf_op_files_that_is_a_directory_is_a_tree_error(tf1_tree: Path, model: Path, capsys) -> None:
    listed = tf1_tree / "tensorflow/contrib/makefile/tf_op_files.txt"
    listed.unlink()
    listed.mkdir()
    (listed / "x").write_text("")
    subprocess.run(["git", "-C", str(tf1_tree), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tf1_tree), "commit", "-qm", "a directory"], check=True)
    for command in (["edit", "makefile", str(model), "--dry-run"], ["check", str(model), "--flavour", "makefile"],
                    ["build", "--model", str(model), "--target", "linux-x86_64", "--local", "--dry-run"]):  # not Bazel
        code = main([*command, "--source", str(tf1_tree)])
        err = capsys.readouterr().err
        assert code == 4, err
        line = one_error_line(err)
        assert str(listed) in line and "Is a directory" in line, line


def test_report_with_an_nm_that_fails_is_a_toolchain_error(tmp_path: Path, capsys) -> None:
    from manifests import write_manifest

    out = write_manifest(tmp_path / "out", artifacts=[{"name": "libtrue.so", "kind": "shared-lib"}])
    (out / "libtrue.so").write_bytes(Path(sys.executable).resolve().read_bytes())  # an ELF file
    code = main(["report", "--out", str(out), "--nm", "/bin/false"])
    err = capsys.readouterr().err
    assert code == 6, err
    assert "/bin/false could not read" in one_error_line(err)


PLAN_APPS = """\
[apps.fine]
models = ["m.pbtxt"]
targets = ["linux-x86_64"]
"""


@pytest.mark.parametrize(
    ("table", "problem"),
    [('[apps.a]\nmodels = ["m.pbtxt"]\ntargets = []\n', "[apps.a] targets is empty"),
     ('[apps.a]\nmodels = ["m.pbtxt"]\ntargets = ["linux-x86_64", "linux-x86_64"]\n',
      "[apps.a] targets names linux-x86_64 twice"),
     ('[apps.a]\nmodels = ["m.pbtxt"]\ntargets = ["linux-x86_64"]\nsize_profile = "tiny"\n',
      "[apps.a] size_profile: unknown size profile 'tiny'"),
     ('[build]\njobs = 0\n', "[build] jobs")],
    ids=["no-targets", "a-target-twice", "unknown-profile", "bad-build-value"],
)
def test_plan_refuses_what_build_app_refuses(tmp_path: Path, monkeypatch, capsys, table: str, problem: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.pbtxt").write_text(ADD_MODEL)
    (tmp_path / "tfbuild.toml").write_text(PLAN_APPS + table)
    for command in (["plan"], ["plan", "--json"]):
        code = main(command)
        err = capsys.readouterr().err
        assert code == 2, err
        assert problem in one_error_line(err)


def test_build_app_refuses_a_target_named_twice(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.pbtxt").write_text(ADD_MODEL)
    (tmp_path / "tfbuild.toml").write_text('[apps.a]\nmodels = ["m.pbtxt"]\ntargets = ["linux-x86_64", '
                                           '"linux-x86_64"]\n')
    code = main(["build", "--app", "a", "--target", "linux-x86_64", "--dry-run"])
    assert "targets names linux-x86_64 twice" in one_error_line(capsys.readouterr().err)
    assert code == 2


def test_stdout_closed_is_refused_before_anything_runs(tmp_path: Path, model: Path) -> None:
    out = tmp_path / "ops_to_register.h"
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "header", str(model), "-o", str(out)], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, timeout=120, check=False, close_fds=True,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 1, done.stderr
    assert "stdout is closed" in one_error_line(done.stderr)
    assert not out.exists()


def test_no_command_prints_the_usage_when_piped(tmp_path: Path) -> None:
    done = run_cli(cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("Usage: tfbuild [OPTIONS] COMMAND") and "analyze" in done.stderr
    group = run_cli("config", cwd=tmp_path)
    assert group.returncode == 2 and group.stderr.startswith("Usage: tfbuild config")


# --- unclear messages --------------------------------------------------------------------------


def _graph_calling_a_function(path: Path) -> Path:
    """A GraphDef whose node ``y`` has the op ``scaled_relu``: a function of its library, which
    TensorFlow runs as a call (its nodes Relu and Mul), no kernel of its own."""
    from tfbuild.model.protos import message_class

    graph = message_class("tensorflow.GraphDef")()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = 1
    graph.node.add(name="y", op="scaled_relu", input=["x"])
    function = graph.library.function.add()
    function.signature.name = "scaled_relu"
    function.signature.input_arg.add(name="a", type=1)
    function.signature.output_arg.add(name="out", type=1)
    relu = function.node_def.add(name="r", op="Relu", input=["a"])
    relu.attr["T"].type = 1
    double = function.node_def.add(name="d", op="Mul", input=["r:activations:0", "r:activations:0"])
    double.attr["T"].type = 1
    function.ret["out"] = "d:z:0"
    path.write_bytes(graph.SerializeToString())
    return path


def test_a_node_that_calls_a_library_function_is_accepted(tmp_path: Path, capsys) -> None:
    model = _graph_calling_a_function(tmp_path / "calls.pb")
    assert main(["analyze", str(model), "--json"]) == 0, capsys.readouterr().err
    document = json.loads(capsys.readouterr().out)
    assert {op["op"] for op in document["ops"]} >= {"Relu", "Mul"}
    assert "scaled_relu" not in {op["op"] for op in document["ops"]} and not document["problems"]
    header = tmp_path / "ops_to_register.h"
    assert main(["header", str(model), "-o", str(header)]) == 0
    assert '"Relu"' in header.read_text() and "scaled_relu" not in header.read_text()


@pytest.mark.tensorflow
def test_tensorflow_runs_the_node_that_calls_a_library_function(tmp_path: Path) -> None:
    """The oracle: TensorFlow itself runs the graph above, so tfbuild must accept it."""
    import numpy as np
    import tensorflow as tf

    model = _graph_calling_a_function(tmp_path / "calls.pb")
    graph_def = tf.compat.v1.GraphDef.FromString(model.read_bytes())
    with tf.compat.v1.Session(graph=tf.Graph()) as session:
        tf.import_graph_def(graph_def, name="")
        (result,) = session.run(["y:0"], {"x:0": np.array([-1.0, 3.0], dtype=np.float32)})
    assert result.tolist() == [0.0, 9.0]


def test_a_missing_output_node_is_named_by_its_flag(tmp_path: Path, capsys) -> None:
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    code = main(["analyze", str(path), "--output-node", "nothere"])
    line = one_error_line(capsys.readouterr().err)
    assert code == 2 and "--output-node nothere: no such node" in line, line


def test_an_unreachable_docker_engine_is_said_without_a_python_repr(tf1_tree: Path, tmp_path: Path) -> None:
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    socket = tmp_path / "no-engine.sock"
    done = run_cli("build", "--dry-run", "--model", str(path), "--source", str(tf1_tree), "--target",
                   "linux-x86_64", "--flavour", "makefile", cwd=tmp_path, env={"DOCKER_HOST": f"unix://{socket}"})
    assert done.returncode == 6, done.stderr
    line = [line for line in done.stderr.splitlines() if line.startswith("error: ")][-1]
    assert f"the Docker engine is unreachable at unix://{socket}: No such file or directory" in line, line
    assert "Error(" not in line and "('" not in line, line


MATMUL_WITH_NEW_ATTRS = """\
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
""" + "".join(
    f'node {{ name: "{name}" op: "MatMul" input: "{source}" input: "a" attr {{ key: "T" value {{ type: DT_FLOAT }} }} '
    'attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } } '
    'attr { key: "grad_a" value { b: false } } attr { key: "grad_b" value { b: false } } }\n'
    for name, source in (("m", "a"), ("m2", "m"))
)


def test_check_shows_each_gap_once_and_no_opdef(tf1_tree: Path, tmp_path: Path, capsys) -> None:
    """TensorFlow 2's MatMul has grad_a and grad_b, which TF 1.13's refuses: one gap naming both,
    no line longer than the refusal's bound, TensorFlow's OpDef not pasted."""
    from tfbuild.tree.compat import SHORT_ERROR

    model = tmp_path / "matmul.pbtxt"
    model.write_text(MATMUL_WITH_NEW_ATTRS)
    code = main(["check", str(model), "--source", str(tf1_tree), "--flavour", "makefile"])
    captured = capsys.readouterr()
    assert code == 5, captured.err
    gaps = [line for line in captured.out.splitlines() if line.startswith("  MatMul: ")]
    assert len(gaps) == 1 and "attrs 'grad_a', 'grad_b'" in gaps[0], captured.out
    assert "Op<name=MatMul; ...>" in gaps[0] and "attr=transpose_a" not in gaps[0]
    assert "1 gap(s)" in captured.out
    assert len(gaps[0]) <= len("  MatMul: ") + SHORT_ERROR
    error = one_error_line(captured.err)
    assert "attr=transpose_a" not in error and "more gap" not in error


def test_the_dry_run_prints_a_script_once(tf1_tree: Path, tmp_path: Path, capsys) -> None:
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    code = main(["build", "--dry-run", "--model", str(path), "--source", str(tf1_tree), "--target", "linux-x86_64",
                 "--local", "--flavour", "makefile"])
    out = capsys.readouterr().out
    assert code in (0, 6), out  # 6: a local tool missing; the plan is printed all the same
    scripts = [line for line in out.splitlines() if line.strip().startswith("SCRIPT")]
    repeated = [line for line in scripts if "the script of step" in line]
    assert repeated, out  # the two absl fix-ups run one script
    assert out.count("| # A tfbuild fix-up's literal edit") == 1, out


def test_the_benchmark_line_gives_open_dimensions_a_size() -> None:
    from tfbuild.model.benchmark import benchmark_command
    from tfbuild.model.graph_summary import summarize_graph
    from tfbuild.model.protos import message_class

    graph = message_class("tensorflow.GraphDef")()
    count = graph.node.add(name="count", op="Placeholder")
    count.attr["dtype"].type = 3
    count.attr["shape"].shape.dim.add(size=-1)
    state = graph.node.add(name="state", op="Placeholder")
    state.attr["dtype"].type = 1
    state.attr["shape"].shape.unknown_rank = True
    graph.node.add(name="out", op="Add", input=["count", "state"])
    command = benchmark_command("loop.pb", "graphdef", summarize_graph(graph))
    assert command is not None
    assert "--input_layer_shape=16:" in command.argv and "-1" not in command.text
    assert command.note is not None and "count made 1 (a batch) or 16" in command.note
    assert "state: no known rank" in command.note


def test_a_read_only_working_directory_stops_the_dry_run_and_the_build_alike(tf1_tree: Path, tmp_path: Path) -> None:
    """The default output directory is under the current one: where that cannot be written, the
    dry run exits as the build does (1), and the build stops before the tree changes. Root writes
    through any mode bit, so root's stand-in is a directory the kernel refuses it (/proc/1)."""
    if os.geteuid() != 0:
        cwd = tmp_path / "read-only"
        cwd.mkdir()
        cwd.chmod(0o555)
    else:
        cwd = Path("/proc/1")
        if os.access(cwd, os.W_OK):
            missing_part("no /proc to stand in, for root, for a directory it cannot write")
    path = tmp_path / "add.pbtxt"
    path.write_text(ADD_MODEL)
    head = subprocess.run(["git", "-C", str(tf1_tree), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    common = ["--model", str(path), "--source", str(tf1_tree), "--target", "linux-x86_64", "--local", "--flavour",
              "makefile"]
    for dry in (["--dry-run"], []):
        done = run_cli("build", *dry, *common, cwd=cwd)
        assert done.returncode == 1, done.stderr
        line = [line for line in done.stderr.splitlines() if line.startswith("error: ")][-1]
        assert f"{cwd}/tfbuild-out/linux-x86_64: cannot be written" in line, line
    assert subprocess.run(["git", "-C", str(tf1_tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout == head
    assert subprocess.run(["git", "-C", str(tf1_tree), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""
