"""Every command's parameters follow one convention (tfbuild/cli/params.py): values named by what
they are, never by their Python type; flag names from one vocabulary; TOML table names in help
texts shown, not eaten as Rich markup; old spellings still accepted."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import missing_part
from typer.core import TyperArgument, TyperGroup, TyperOption

from tfbuild.cli import _MODULES, _command

METAVAR = re.compile(r"^(?:[A-Z][A-Z0-9_]*(?:[:/=,.][A-Z0-9_.]*)*(?:,\.\.\.)?|[a-z0-9-]+(?:\|[a-z0-9-]+)+)$")
"""``MODEL``, ``HOST:PORT/LIMIT``, ``NAME=D0,D1,...``, ``OP:CLASS,...``, or a choice ``kernel|op``."""
PYTHON_TYPES = re.compile(r"<(?:list|int|str|float|path|bool)[^>]*>|\{[a-z_]+\}|\[x[<>]=|x>=|\brange\b")
VOCABULARY = {
    # what a command works on and writes
    "--source", "--config", "--output", "-o", "--out-dir", "--artifacts", "--header", "--model", "-m",
    "--op-library", "--op-source", "--baseline", "--workdir", "--reference-op-library", "--output-tensor",
    # how it runs
    "--jobs", "-j", "--timeout", "--local", "--no-local", "--dry-run", "--json", "--strict", "--force",
    "--revert", "--allow-dirty", "--gitlab", "--help", "--debug", "--quiet", "-q", "--verbose", "-v", "--version",
    "--install-completion", "--show-completion",
    # what it builds
    "--target", "--app", "--flavour", "--ops-library-name", "--protobuf-rename", "--protobuf-runtime", "--no-protobuf-rename",
    "--extra-cflag", "--size-profile", "--per-file-selection", "--one-selection", "--source-date-epoch",
    "--default-ops", "--granularity", "--tag", "--signature", "--export", "--jni", "--ref", "--nm",
    # Android, images, caches
    "--sdk", "--ndk", "--api-level", "--build-tools", "--ndk-api-level", "--mobile-types", "--java-package",
    "--jni-library", "--java-api", "--maven-repo", "--coordinates", "--android-jar", "--runner", "--base-image", "--cache-prefix", "--remote-cache", "--distcc-host", "--suite", "--mirror",
    "--base", "--build-arg",
    # vendor: local git mirrors for an offline Bazel build
    "--mirrors", "--repository", "--vendor-dir", "--analysis-only",
    # verify
    "--tolerance", "--seed", "--input-shape", "--intermediates",
    # models
    "--min-bytes", "--min-elements", "--output-node",
}
HIDDEN_ALIASES = {"--out", "--output", "--model", "-m"}
"""Old spellings kept working (hidden): ``--out`` for ``--out-dir``, verify's ``--output`` for
``--output-tensor``, ``--model`` for a MODEL argument."""
BUILD_OPTIONS = {"--model"}
"""Options of ``build`` (and ``config show``, which takes all of build's) made from the option
declarations: the models stay ``--model`` there, a declaration being an option, not an argument."""
DECLARED_COMMANDS = {"tfbuild build", "tfbuild config show"}


def all_commands() -> list[tuple[str, object]]:
    """Every command and group of the app, by its command line (``tfbuild config show``)."""
    found, todo = [], [("tfbuild", _command())]
    while todo:
        name, command = todo.pop()
        found.append((name, command))
        if isinstance(command, TyperGroup):
            todo.extend((f"{name} {sub}", child) for sub, child in command.commands.items())
    return found


COMMANDS = all_commands()


def test_every_command_is_walked():
    """The click command the CLI runs is Typer's (``typer.main.get_command``) with every command."""
    assert isinstance(COMMANDS[0][1], TyperGroup) and COMMANDS[0][1] is _command()
    assert {name for name, _ in COMMANDS} >= {f"tfbuild {name}" for name in _MODULES} | {
        "tfbuild config show", "tfbuild toolchain list", "tfbuild protobuf rename"}


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_parameters_follow_the_convention(name, command):
    for param in command.params:
        if isinstance(param, TyperOption) and not param.is_flag and not param.count and not param.hidden:
            assert param.metavar and METAVAR.match(param.metavar), (name, param.opts, param.metavar)
        if isinstance(param, TyperArgument):
            assert param.metavar and METAVAR.match(param.metavar), (name, param.name, param.metavar)
        for flag in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())):
            if not flag.startswith("-") or (name in DECLARED_COMMANDS and flag in BUILD_OPTIONS):
                continue  # build's models stay an option: its parameters come from the option declarations
            old_spelling_beside_new = flag == "--out" and "--out-dir" in getattr(param, "opts", ())
            assert flag in VOCABULARY or (flag in HIDDEN_ALIASES and (param.hidden or old_spelling_beside_new)), (
                name, flag)
        if isinstance(param, TyperOption) and param.hidden:
            assert set(param.opts) <= HIDDEN_ALIASES, (name, param.opts)


def test_output_and_directories_and_jobs_are_named_alike():
    for name, command in COMMANDS:
        for param in command.params:
            opts = set(getattr(param, "opts", ()))
            if "--jobs" in opts:
                assert "-j" in opts and param.min == 1, name
            if "--out-dir" in opts:
                assert param.metavar == "DIR", name
            if "--output" in opts and not param.hidden:
                assert "-o" in opts and param.metavar == "PATH", name
            if "--source" in opts:
                assert param.default is None, f"{name}: --source resolves as everywhere, no default of its own"


def run_help(*args: str, terminal: bool = False) -> str:
    env = {**os.environ, "COLUMNS": "200"}
    argv = [sys.executable, "-m", "tfbuild", *args, "--help"]
    if terminal:  # a pseudo-terminal: the boxed Rich help
        argv = ["script", "-qec", " ".join(argv), "/dev/null"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout)


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
def test_help_shows_toml_table_names_and_no_python_types(terminal):
    if terminal and subprocess.run(["sh", "-c", "command -v script"], capture_output=True).returncode:
        missing_part("no script(1) to give the help a terminal (apt-get install bsdutils)")
    header = run_help("header", terminal=terminal)
    assert "[header] default_ops" in header and "[build] source" in header
    assert "MODEL" in header and "<list[Path]>" not in header and "{models}" not in header
    plan = run_help("plan", terminal=terminal)
    assert "[apps.NAME]" in " ".join(plan.split())
    for command in (("verify",), ("example",), ("kernels",), ("edit",), ("check",), ("compat",), ("aar",)):
        text = run_help(*command, terminal=terminal)
        described = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("Usage", "│ Usage")))
        assert not PYTHON_TYPES.search(described), (command, text)
    if not terminal:
        assert not re.search("[\u2500-\u257f]", header)


def test_kernels_help_names_its_exit_code():
    assert "Exit code 4" in " ".join(run_help("kernels").split())


@pytest.mark.parametrize("argv", [["verify", "--output", "x", "--out", "nowhere"],
                                  ["report", "--out", "nowhere"]])
def test_old_spellings_still_parse(argv, tmp_path):
    done = subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode != 2 or "No such option" not in done.stderr, done.stderr
    assert "No such option" not in done.stderr


def test_models_are_positional_and_the_old_option_still_works(tmp_path):
    for argv in (["check", "--flavour", "makefile", "model.pb"], ["check", "--flavour", "makefile", "-m", "model.pb"]):
        done = subprocess.run([sys.executable, "-m", "tfbuild", *argv, "--source", str(tmp_path)],
                              capture_output=True, text=True, cwd=tmp_path)
        assert "No such option" not in done.stderr and "Got unexpected extra argument" not in done.stderr, done.stderr


def test_jobs_must_be_at_least_one():
    done = subprocess.run([sys.executable, "-m", "tfbuild", "example", "-j", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "-j" in done.stderr


def test_a_required_source_tree_missing_is_one_clear_line(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in ("TFBUILD_SOURCE", "TFBUILD_CONFIG")}
    done = subprocess.run([sys.executable, "-m", "tfbuild", "kernels", "Conv2D"], capture_output=True, text=True,
                          cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "no TensorFlow source tree given" in done.stderr and "TFBUILD_SOURCE" in done.stderr
    (tmp_path / "tfbuild.toml").write_text(f'[build]\nsource = "{tmp_path / "tf"}"\n')
    done = subprocess.run([sys.executable, "-m", "tfbuild", "kernels", "Conv2D"], capture_output=True, text=True,
                          cwd=tmp_path, env=env)
    assert str(tmp_path / "tf") in done.stderr  # the file's tree is the one looked at


def test_a_mistyped_option_is_not_answered_with_an_old_spelling():
    done = subprocess.run([sys.executable, "-m", "tfbuild", "linkflags", "--outt", "x"], capture_output=True, text=True)
    assert done.returncode == 2 and "No such option: --outt" in done.stderr
    assert "--out)" not in done.stderr and "--out," not in done.stderr, done.stderr
