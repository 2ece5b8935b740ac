"""``tfbuild report``: the size report of a finished build, as ``tfbuild build`` prints at its end.

It reads the output directory's ``manifest.json`` and artifacts, compares them with a stock
build (``--baseline OUT_DIR``, or the one recorded for the same tree, target and flavour), writes
``report.md``, ``report.html`` and ``report.json`` there and prints the Markdown (``--json``: the
JSON). matplotlib, which draws the HTML's charts, is imported only when the command runs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app, stderr
from tfbuild.cli.output import emit_json, lazy_console
from tfbuild.cli.params import either

_plain = lazy_console(markup=False)


@app.command("report")
def report_command(
    out_dir: Path | None = typer.Option(
        None, "--out-dir", metavar="DIR", help="Output directory of a finished build (holds manifest.json). Required."
    ),
    out_alias: Path | None = typer.Option(None, "--out", hidden=True),
    baseline: Path | None = typer.Option(
        None, "--baseline", metavar="DIR",
        help="Output directory of the build to compare with (default: the stock build recorded for the "
        "same tree commit, target and flavour; record one with tfbuild build --default-ops all).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of Markdown."),
    nm: str | None = typer.Option(
        None, "--nm", metavar="PATH",
        help="nm program to read symbols with (default: one that reads the artifact's machine).",
    ),
) -> None:
    """Print and write a build's size report: sizes against a stock build, bytes by kernel file and op."""
    from tfbuild.pipeline.report.write import write_size_report

    out = either(out_dir, out_alias, "--out-dir", "--out", required=True)
    assert out is not None
    written = write_size_report(out, baseline_dir=baseline, nm=nm)
    if as_json:
        emit_json(written.json, newline=False)
    else:
        _plain.print(written.markdown, end="")
    for path in written.files:
        stderr.print(f"wrote {path}", markup=False)
    key = written.report.build.key
    if written.recorded is not None and key is not None:
        stderr.print(f"recorded as the baseline of {key.describe()}: {written.recorded}", markup=False)
