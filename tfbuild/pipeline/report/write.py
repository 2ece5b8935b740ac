"""Make a build's size report and keep it: ``report.md``, ``report.html`` and ``report.json`` in
the output directory, and, for a stock build, its figures as the baseline of its key.

``tfbuild build`` calls this after writing the manifest, and ``tfbuild report`` on any output
directory; both print the Markdown. Each file is written atomically, so a report that fails
half-way leaves the previous one whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfbuild.fileio import atomic_write_text
from tfbuild.pipeline.report.baseline import record_baseline
from tfbuild.pipeline.report.render import render_html, render_json, render_markdown
from tfbuild.pipeline.report.sizes import REPORT_JSON, SizeReport, make_size_report

REPORT_MD = "report.md"
REPORT_HTML = "report.html"


@dataclass(frozen=True)
class WrittenReport:
    report: SizeReport
    markdown: str
    json: str
    files: tuple[Path, ...]
    recorded: Path | None
    """The baseline record a stock build wrote (None for a selective build)."""


def write_size_report(
    output_dir: Path, *, baseline_dir: Path | None = None, nm: str | None = None, cache_root: Path | None = None
) -> WrittenReport:
    """Report on the build in ``output_dir`` (see :func:`~.sizes.make_size_report`), write the
    three files there, and record a stock build's figures as its key's baseline."""
    report = make_size_report(output_dir, baseline_dir=baseline_dir, nm=nm, cache_root=cache_root)
    build = report.build
    markdown = render_markdown(report)
    as_json = render_json(report)
    files = (
        atomic_write_text(build.output_dir / REPORT_MD, markdown),
        atomic_write_text(build.output_dir / REPORT_HTML, render_html(report)),
        atomic_write_text(build.output_dir / REPORT_JSON, as_json),
    )
    recorded = None
    if build.stock and build.key is not None:
        recorded = record_baseline(build.key, build.figures(), root=cache_root)
    return WrittenReport(report, markdown, as_json, files, recorded)
