"""Bad paths and files given as inputs or outputs: each is one line ``error: <path or stdout>:
<problem>``, a documented exit code, nothing half-written and nothing of the user's replaced.

Real CLI runs: :func:`tfbuild.cli.main` in-process, or the console script in a subprocess where
the process's own stdout or a second process matters. Models are small text GraphDefs that need
no TensorFlow.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing_part

from tfbuild.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
MODEL_TEXT = """\
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
"""
INVALID_CONFIGS = Path(__file__).parent / "invalid_configs"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.pbtxt"
    path.write_text(MODEL_TEXT)
    return path


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None, stdout: int | None = subprocess.PIPE,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The console script in its own process (its own stdout, its own exit)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "tfbuild", *args], cwd=cwd, env=full_env, stdout=stdout,
        stderr=subprocess.PIPE, text=True, timeout=timeout, check=False,
    )


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


def assert_one_line(capsys: pytest.CaptureFixture[str], code: int, expected: int, *names: str) -> str:
    err = capsys.readouterr().err
    assert code == expected, err
    line = one_error_line(err)
    for name in names:
        assert name in line, line
    return line


# --- A. nothing of the user's replaced or lost: -o --------------------------------------------


def test_output_symlink_is_written_through_and_kept(model: Path, tmp_path: Path) -> None:
    target = tmp_path / "real" / "ops_to_register.h"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.h"
    link.symlink_to(target)
    assert main(["header", str(model), "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "SHOULD_REGISTER_OP" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["ops_to_register.h"]  # no temp file left


def test_output_dangling_symlink_creates_its_target(model: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.h"
    link.symlink_to(tmp_path / "made.h")
    assert main(["header", str(model), "-o", str(link)]) == 0
    assert link.is_symlink() and "SHOULD_REGISTER_OP" in (tmp_path / "made.h").read_text()


def test_output_symlink_loop_is_refused(model: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "a.h").symlink_to(tmp_path / "b.h")
    (tmp_path / "b.h").symlink_to(tmp_path / "a.h")
    code = main(["header", str(model), "-o", str(tmp_path / "a.h")])
    assert_one_line(capsys, code, 2, "a.h", "symlink loop")
    assert (tmp_path / "a.h").is_symlink()


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_output_device_is_refused_and_kept(model: Path, capsys, device: str) -> None:
    before = os.stat(device)
    assert stat.S_ISCHR(before.st_mode)
    code = main(["header", str(model), "-o", device])
    assert_one_line(capsys, code, 2, device, "device")
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_output_mknod_device_fifo_and_socket_are_refused(model: Path, tmp_path: Path, capsys) -> None:
    specials = []
    fifo = tmp_path / "fifo.h"
    os.mkfifo(fifo)
    specials.append((fifo, "FIFO"))
    node = tmp_path / "node.h"
    try:
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        specials.append((node, "device"))
    except PermissionError:  # not root: the FIFO and the socket still test the path
        pass
    sock_path = tmp_path / "sock.h"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        specials.append((sock_path, "socket"))
        for path, kind in specials:
            mode = path.lstat().st_mode
            code = main(["header", str(model), "-o", str(path)])
            assert_one_line(capsys, code, 2, str(path), kind)
            assert path.lstat().st_mode == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["model.pbtxt", *(p.name for p, _ in specials)])


def test_output_in_unwritable_directory_names_the_output(model: Path, tmp_path: Path, capsys) -> None:
    if os.geteuid() != 0:
        directory = tmp_path / "ro"
        directory.mkdir()
        directory.chmod(0o555)
        out = directory / "ops_to_register.h"
    else:  # root writes anywhere a mode bit forbids; sysfs refuses new files even to root
        out = Path("/sys/ops_to_register.h")
        if not Path("/sys/kernel").is_dir():
            missing_part("no sysfs (/sys) to stand in, for root, for a read-only directory")
    code = main(["header", str(model), "-o", str(out)])
    line = assert_one_line(capsys, code, 1, f"error: {out}: ")
    assert ".tmp" not in line and ".ops_to_register.h." not in line


# --- B. one line, a documented code: inputs ----------------------------------------------------


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_model_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, special: str) -> None:
    if special == "fifo":
        special = str(tmp_path / "model.pb")
        os.mkfifo(special)
    done = run_cli("analyze", special, cwd=tmp_path, timeout=30)  # unbounded read or a hang fails here
    assert done.returncode == 3, done.stderr
    line = one_error_line(done.stderr)
    assert special in line and ("device" in line or "FIFO" in line), line


def test_model_larger_than_the_limit_is_refused_unread(tmp_path: Path, capsys) -> None:
    from tfbuild.fileio import MODEL_SIZE_LIMIT

    big = tmp_path / "big.pb"
    with open(big, "wb") as handle:  # sparse: no disk used
        handle.truncate(MODEL_SIZE_LIMIT + 1)
    code = main(["analyze", str(big)])
    assert_one_line(capsys, code, 3, str(big), "larger than")


def test_model_symlink_loop_says_so(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.pb").symlink_to(tmp_path / "b.pb")
    (tmp_path / "b.pb").symlink_to(tmp_path / "a.pb")
    code = main(["analyze", str(tmp_path / "a.pb")])
    line = assert_one_line(capsys, code, 3, "a.pb", "symlink loop")
    assert "no such file" not in line


def test_unreadable_model_is_an_input_error(tmp_path: Path, model: Path, capsys) -> None:
    if os.geteuid() != 0:
        model.chmod(0)
        unreadable = model
    else:  # root reads any mode; /proc/self/mem is a regular file no one can read at offset 0
        unreadable = Path("/proc/self/mem")
    code = main(["analyze", str(unreadable)])
    assert_one_line(capsys, code, 3, str(unreadable), "cannot read")


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["header", "{model}", "-o"], "'-o' requires an argument"),
        (["frobnicate"], "No such command 'frobnicate'"),
        (["analyze", "--bogus", "{model}"], "No such option: --bogus"),
        (["toolchain", "frobnicate"], "No such command 'frobnicate'"),
    ],
    ids=["missing-o-value", "unknown-command", "unknown-option", "unknown-subcommand"],
)
def test_usage_errors_are_one_line_exit_2(model: Path, tmp_path: Path, args: list[str], names: str) -> None:
    done = run_cli(*(arg.format(model=model) for arg in args), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert names in one_error_line(done.stderr)
    assert "╭" not in done.stderr and "Usage:" not in done.stderr


def test_stdout_on_a_full_disk_names_stdout(model: Path, tmp_path: Path) -> None:
    for args in (["analyze", str(model)], ["analyze", str(model), "--json"]):
        with open("/dev/full", "w") as full:
            done = run_cli(*args, cwd=tmp_path, stdout=full.fileno())
        assert done.returncode == 1, done.stderr
        assert one_error_line(done.stderr) == "error: stdout: No space left on device"


def test_non_utf8_config_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "tfbuild.toml").write_bytes(b"[build]\njobs = 2 # caf\xe9\n")
    for args in (["config", "show"], ["config", "show", "--config", "tfbuild.toml"]):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        line = one_error_line(done.stderr)
        assert "tfbuild.toml" in line and "UTF-8" in line and "internal error" not in line


def test_config_that_is_a_directory_or_fifo(tmp_path: Path, capsys) -> None:
    (tmp_path / "conf.d").mkdir()
    os.mkfifo(tmp_path / "conf.fifo")
    for name, problem in (("conf.d", "directory"), ("conf.fifo", "FIFO")):
        code = main(["config", "show", "--config", str(tmp_path / name)])
        assert_one_line(capsys, code, 2, f"error: {tmp_path / name}: ", problem)


def test_bad_distcc_hosts_are_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["config", "show", "--config", str(INVALID_CONFIGS / "bad_distcc_host.toml")])
    assert_one_line(capsys, code, 2, "bad_distcc_host.toml", "'::::' is not a distcc host")
    monkeypatch.setenv("TFBUILD_DISTCC_HOSTS", ":::")
    code = main(["config", "show"])
    assert_one_line(capsys, code, 2, "TFBUILD_DISTCC_HOSTS", "':::' is not a distcc host")
    monkeypatch.setenv("TFBUILD_DISTCC_HOSTS", "10.0.0.5:3632/8 [::1]:3632 fe80::1 build-1.lan --localslots=2")
    assert main(["config", "show"]) == 0


@pytest.mark.parametrize("words", ["host:", "host:0", "host:99999", "-x", "[::1", "[nothost]:1"])
def test_distcc_host_words_that_name_no_host(words: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TFBUILD_DISTCC_HOSTS", words)
    code = main(["config", "show"])
    assert_one_line(capsys, code, 2, "is not a distcc host")


def test_default_op_with_empty_kernel_class_is_refused(model: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "ops_to_register.h"
    code = main(["header", str(model), "-o", str(out), "--default-ops", "NoOp:"])
    assert_one_line(capsys, code, 2, "'NoOp:'")
    assert not out.exists()


# --- manifest.json -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"target": 5}, "target: expected a string"), ({"artifacts": "x"}, "artifacts"), ({"models": {}}, "models"),
     ({"tensorflow": []}, "tensorflow")],
    ids=["target-int", "artifacts-str", "models-dict", "tensorflow-list"],
)
@pytest.mark.parametrize("command", [["report", "--out", "{out}"],
                                     ["linkflags", "--target", "linux-x86_64", "--artifacts", "{out}"]])
def test_manifest_with_wrong_types(tmp_path: Path, capsys, fields, message: str, command: list[str]) -> None:
    import json

    from manifests import manifest_data

    out = tmp_path / "out"
    out.mkdir()
    data = manifest_data(out)
    data.update(fields)
    (out / "manifest.json").write_text(json.dumps(data))
    code = main([word.format(out=out) for word in command])
    assert_one_line(capsys, code, 9, str(out / "manifest.json"), message)


def test_manifest_that_is_not_utf8_or_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "manifest.json").write_bytes(b'{"target": "\xff"}')
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / "manifest.json")
    for name, problem in (("bin", "not a valid manifest"), ("fifo", "FIFO")):
        done = run_cli("report", "--out", str(tmp_path / name), cwd=tmp_path, timeout=30)
        assert done.returncode == 9, done.stderr
        line = one_error_line(done.stderr)
        assert str(tmp_path / name / "manifest.json") in line and problem in line, line


def test_header_input_that_is_a_device_or_fifo(tmp_path: Path) -> None:
    """``tfbuild linkflags``/``edit``/``check`` read an ops_to_register.h: bounded, a FIFO refused."""
    import treegen

    tree = treegen.make_tf1_tree(tmp_path / "tf1")
    fifo = tmp_path / "ops_to_register.h"
    os.mkfifo(fifo)
    for header, kind in (("/dev/zero", "device"), (str(fifo), "FIFO")):
        done = run_cli("edit", "makefile", "--header", header, "--source", str(tree), "--dry-run",
                       cwd=tmp_path, timeout=60)
        assert done.returncode == 3, done.stderr
        line = one_error_line(done.stderr)
        assert header in line and kind in line, line
