"""Bad model inputs: one clear line naming the file, a non-zero exit code, and no header written.

The fixtures live in tests/invalid_inputs/ (one file or directory per kind of breakage); a few
more are generated here because they depend on the machine (missing paths, a fake .so).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tfbuild.cli import main

pytestmark = pytest.mark.tensorflow

INVALID = sorted((Path(__file__).parent / "invalid_inputs").iterdir())


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


def assert_one_line_error(capsys, code: int, expected_code: int, names: str) -> None:
    err = capsys.readouterr().err
    lines = _error_lines(err)
    assert code == expected_code, err
    assert len(lines) == 1, err
    assert names in lines[0], lines[0]


@pytest.mark.parametrize("bad", INVALID, ids=[p.name for p in INVALID])
def test_analyze_rejects_invalid_input(bad, capsys):
    code = main(["analyze", str(bad)])
    assert_one_line_error(capsys, code, 3, bad.name)


@pytest.mark.parametrize("bad", INVALID, ids=[p.name for p in INVALID])
def test_header_writes_nothing_for_invalid_input(bad, models, tmp_path, capsys):
    out = tmp_path / "ops_to_register.h"
    code = main(["header", str(models.cnn_pb), str(bad), "-o", str(out)])
    assert_one_line_error(capsys, code, 3, bad.name)
    assert list(tmp_path.iterdir()) == []


def test_missing_model_path(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "model.pb"
    code = main(["header", str(missing), "-o", str(tmp_path / "ops_to_register.h")])
    assert_one_line_error(capsys, code, 3, str(missing))
    assert not (tmp_path / "ops_to_register.h").exists()


def test_missing_op_library(models, tmp_path, capsys):
    library = tmp_path / "libmissing_ops.so"
    code = main(["analyze", str(models.cnn_pb), "--op-library", str(library)])
    assert_one_line_error(capsys, code, 3, str(library))


def test_unloadable_op_library(models, tmp_path, capsys):
    library = tmp_path / "libnot_elf.so"
    library.write_text("not a shared object\n")
    out = tmp_path / "ops_to_register.h"
    code = main(["header", str(models.cnn_pb), "--op-library", str(library), "-o", str(out)])
    assert_one_line_error(capsys, code, 3, str(library))
    assert not out.exists()


@pytest.mark.parametrize(
    "option", [["--default-ops", "NoOp"], ["--default-ops", "NoOp:NoOp:x"], ["--granularity", "file"]]
)
def test_bad_header_options_exit_2(models, tmp_path, capsys, option):
    out = tmp_path / "ops_to_register.h"
    code = main(["header", str(models.cnn_pb), "-o", str(out), *option])
    assert_one_line_error(capsys, code, 2, option[1])
    assert not out.exists()


def test_existing_header_survives_a_failed_run(models, tmp_path, capsys):
    out = tmp_path / "ops_to_register.h"
    assert main(["header", str(models.cnn_pb), "-o", str(out)]) == 0
    before = out.read_text()
    bad = Path(__file__).parent / "invalid_inputs" / "hostile_op_name.pbtxt"
    assert main(["header", str(bad), "-o", str(out)]) == 3
    assert out.read_text() == before
