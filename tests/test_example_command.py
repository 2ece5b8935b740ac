"""``tfbuild example`` as a user runs it: exit code, what it prints, what it leaves behind."""

from __future__ import annotations

import re

import pytest
from example_run import example_run

from tfbuild.cli import main
from tfbuild.pipeline.example import ExamplePaths


def test_an_output_path_that_is_a_file_is_a_config_error(tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("not a directory")
    assert main(["example", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "output directory is a file" in err


@pytest.mark.compiler
@pytest.mark.tensorflow
def test_example_builds_both_libraries_and_reports_their_sizes(tmp_path_factory):
    run = example_run(tmp_path_factory).check()
    paths = ExamplePaths.under(run.out_dir)
    assert paths.header.is_file()
    sizes = {}
    for label, library in (("plain", paths.plain_library), ("selective", paths.selective_library)):
        match = re.search(rf"^{label} library +(\S+) +([\d,]+) bytes$", run.stdout, re.MULTILINE)
        assert match, run.stdout
        assert match.group(1) == str(library) and library.is_file()
        sizes[label] = int(match.group(2).replace(",", ""))
        assert sizes[label] == library.stat().st_size
    reduction = re.search(r"^reduction +([\d.]+)%$", run.stdout, re.MULTILINE)
    assert reduction, run.stdout
    assert float(reduction.group(1)) == pytest.approx(
        100 * (1 - sizes["selective"] / sizes["plain"]), abs=0.05
    )
    print(f"tfbuild example took {run.seconds:.0f} s; sizes {sizes}")


@pytest.mark.compiler
@pytest.mark.tensorflow
def test_example_prints_the_op_table_of_the_model(tmp_path_factory):
    stdout = example_run(tmp_path_factory).check().stdout
    for used in ("ExampleScale", "ExampleClip", "ExampleCount"):
        assert re.search(rf"^{used} +", stdout, re.MULTILINE), stdout  # a pipe: a plain table
    assert "ExampleScaleOp<CPUDevice, int32>" in stdout
    assert "ExampleSquare" not in stdout  # in the library, not in the model
