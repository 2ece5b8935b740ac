"""What a CI job relies on from the command line, whatever the command: help that tells the truth
(no ``<bool>`` on flags, the environment variables each option reads, shell completion), one
line instead of a traceback for a closed pipe, a full disk or a tfbuild bug (the traceback only
with ``--debug``), ``tfbuild config show`` saying where each option came from, and the example
``tfbuild.toml`` being one tfbuild reads."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.pipeline.declarations.options import OPTIONS, Flags, resolve_with_origins

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_CONFIG = REPO / "examples" / "tfbuild.toml"
COMMANDS = (
    (), ("build",), ("analyze",), ("header",), ("kernels",), ("check",), ("compat",), ("source",), ("verify",),
    ("report",), ("linkflags",), ("targets",), ("aar",), ("config", "show"), ("toolchain", "build"), ("edit", "makefile"),
)


def help_text(capsys, monkeypatch, *command: str) -> str:
    monkeypatch.setenv("COLUMNS", "200")
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "tfbuild")
def test_no_help_shows_a_bool_type_on_a_flag(capsys, monkeypatch, command):
    text = help_text(capsys, monkeypatch, *command)
    assert "Usage: tfbuild" in text
    assert "<bool>" not in text


def test_build_help_names_every_variable_each_option_reads(capsys, monkeypatch):
    text = " ".join(help_text(capsys, monkeypatch, "build").replace("│", " ").split())  # rows wrap: compare words
    for option in OPTIONS:
        names = ", ".join(f"${name}" for name in option.variables)
        assert f"(env: {names})" in text, option.name
    assert "(env: $TFBUILD_ANDROID_NDK, $ANDROID_NDK_HOME, $ANDROID_NDK_ROOT)" in text


def test_shell_completion_is_on(capsys, monkeypatch):
    text = help_text(capsys, monkeypatch)
    assert "--install-completion" in text and "--show-completion" in text


def test_a_closed_stdout_is_one_line_not_a_traceback():
    """``tfbuild targets | head -0``: the reader is gone before the table is written."""
    run = subprocess.Popen([sys.executable, "-m", "tfbuild", "targets"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=REPO)
    assert run.stdout is not None and run.stderr is not None
    run.stdout.close()
    code = run.wait(timeout=60)
    err = run.stderr.read().decode()
    assert code == 1
    assert err.splitlines() == ["error: stdout was closed before the output was written (broken pipe)"], err


def test_a_full_disk_is_one_line_naming_the_file(capsys, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/out/manifest.json")

    monkeypatch.setattr("tfbuild.toolchain.targets.load_targets", full)
    assert main(["targets"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == ["error: /out/manifest.json: No space left on device"]


def test_a_tfbuild_bug_is_one_line_and_its_traceback_needs_debug(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("profile")

    monkeypatch.setattr("tfbuild.toolchain.targets.load_targets", broken)
    assert main(["targets"]) == 70
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("error: internal error (KeyError: 'profile'); run again with --debug for the traceback")
    with pytest.raises(KeyError):
        main(["--debug", "targets"])


def test_config_show_says_where_each_value_came_from(tmp_path, monkeypatch, capsys):
    config = tmp_path / "tfbuild.toml"
    config.write_text('[build]\ntarget = "pi-armv7"\njobs = 3\n[android]\nmobile_types = "full"\n')
    monkeypatch.chdir(tmp_path)
    for name in ("TFBUILD_JOBS", "TFBUILD_TARGET", "TFBUILD_CONFIG", "TFBUILD_SIZE_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TFBUILD_SIZE_PROFILE", "small")
    assert main(["config", "show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["config_file"] == str(config)
    options = shown["options"]
    assert options["target"] == {"value": "pi-armv7", "origin": f"{config}: [build] target"}
    assert options["jobs"] == {"value": 3, "origin": f"{config}: [build] jobs"}
    assert options["size_profile"] == {"value": "small", "origin": "$TFBUILD_SIZE_PROFILE"}
    assert options["mobile_types"]["origin"] == f"{config}: [android] mobile_types"
    assert options["local"] == {"value": False, "origin": "default"}
    assert main(["config", "show"]) == 0
    table = capsys.readouterr().out
    assert re.search(r"^size_profile +small +\$TFBUILD_SIZE_PROFILE$", table, re.MULTILINE)  # plain: a pipe


def test_the_example_config_is_read_whole(monkeypatch):
    """Every key of examples/tfbuild.toml is one tfbuild knows (unknown keys are errors)."""
    for option in OPTIONS:
        for name in option.variables:
            monkeypatch.delenv(name, raising=False)
    resolved = resolve_with_origins(Flags(), environ={}, cwd=REPO, config_file=EXAMPLE_CONFIG)
    assert resolved.options.target == "android-arm64" and resolved.options.size_profile == "balanced"
    assert resolved.options.android.java_package == "com.example.camera"
    assert resolved.options.models == ((REPO / "examples/custom_ops/model.pbtxt").resolve(),)
    keys = re.findall(r"^(\w+) = ", EXAMPLE_CONFIG.read_text(), flags=re.MULTILINE)
    assert len(keys) == len([o for o in resolved.origins.values() if o.startswith(str(EXAMPLE_CONFIG))])


# -- --json on the commands that report, and tables a CI log can read ------------------------------
def test_targets_json_and_a_plain_table_when_stdout_is_not_a_terminal(capsys):
    assert main(["targets", "--json"]) == 0
    targets = {t["name"]: t for t in json.loads(capsys.readouterr().out)}
    assert targets["android-arm64"]["platform"] == "android" and "makefile" in targets["android-arm64"]["flavours"]
    assert main(["targets"]) == 0
    table = capsys.readouterr().out
    assert not re.search("[┃│┏━]", table)
    row = next(line for line in table.splitlines() if line.startswith("android-arm64"))
    assert "Android arm64-v8a" in row  # the whole row on one line, description included


def test_check_and_compat_json(tf1_tree, tmp_path, capsys):
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"], ["Nope", "NopeOp"]]))
    code = main(["check", "--flavour", "makefile", "--model", str(model), "--source", str(tf1_tree), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 5 and report["ok"] is False and "Nope" in [gap["op"] for gap in report["gaps"]]
    graph = tmp_path / "identity.pbtxt"
    graph.write_text('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
                     'node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n')
    code = main(["compat", str(graph), "--source", str(tf1_tree), "-o", str(tmp_path / "copy.pbtxt"), "--json"])
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert code == 0 and summary["written"] is True and summary["checked_nodes"] == 2
    assert summary["output"] == str(tmp_path / "copy.pbtxt")


def test_build_dry_run_json_is_the_plan(tf1_tree, tmp_path, capsys):
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    code = main(["build", "--source", str(tf1_tree), "--model", str(model), "--out", str(tmp_path / "out"),
                 "--target", "linux-x86_64", "--flavour", "makefile", "--local", "--dry-run", "--json"])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert code == 0 and document["dry_run"] is True
    plan = document["plan"]
    assert plan["target"] == "linux-x86_64" and plan["flavour"] == "makefile"
    assert any(step["argv"][0] == "make" for step in plan["steps"])
    assert "SHOULD_REGISTER_OP_KERNEL" in document["header"]


@pytest.mark.parametrize("case", ["input", "directory", "under-a-file"])
def test_an_output_path_that_cannot_be_written_is_one_line_and_leaves_nothing(tf1_tree, tmp_path, capsys, case):
    graph = tmp_path / "model.pbtxt"
    graph.write_text('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n')
    before = graph.read_bytes()
    (tmp_path / "a-dir").mkdir()
    (tmp_path / "a-file").write_text("keep me\n")
    target = {"input": graph, "directory": tmp_path / "a-dir", "under-a-file": tmp_path / "a-file" / "copy.pbtxt"}[case]
    code = main(["compat", str(graph), "--source", str(tf1_tree), "-o", str(target)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    assert err[0].startswith(f"error: {target}: ")
    assert code == 2
    assert graph.read_bytes() == before and (tmp_path / "a-file").read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p != tf1_tree) == ["a-dir", "a-file", "model.pbtxt"]
    assert list((tmp_path / "a-dir").iterdir()) == []


def test_header_reads_the_header_table_build_reads_and_refuses_its_input_as_output(tmp_path, capsys, monkeypatch):
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    for name in ("TFBUILD_DEFAULT_OPS", "TFBUILD_HEADER_GRANULARITY", "TFBUILD_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tfbuild.toml").write_text('[header]\ndefault_ops = ""\ngranularity = "op"\n')
    assert main(["header", str(model), "-o", "h.h", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["default_ops"], summary["granularity"], summary["ops"]) == ("", "op", ["Const"])
    assert "NoOp" not in (tmp_path / "h.h").read_text()  # the file's default_ops, not the built-in one
    assert main(["header", str(model), "-o", "h.h", "--default-ops", "NoOp:NoOp", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ops"] == ["Const", "NoOp"]  # the flag wins over the file
    monkeypatch.setenv("TFBUILD_HEADER_GRANULARITY", "kernel")
    assert main(["header", str(model), "-o", "h.h", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["granularity"] == "kernel"  # the variable over the file

    before = model.read_bytes()
    assert main(["header", str(model), "-o", str(model)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {model}: -o names the input model")
    assert model.read_bytes() == before
