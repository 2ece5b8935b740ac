"""A size report as Markdown, as an HTML page with bar charts, and as JSON.

The Markdown and HTML come from ``templates/report/`` and are rendered from one view of the
report (:func:`report_view`): rows of already formatted cells, so the two cannot disagree on a
figure and the templates hold layout only. The JSON has every row (the other two show the
largest :data:`TOP_ROWS`) and the build's figures, which a later ``tfbuild report --baseline``
reads instead of measuring this build again.
"""

from __future__ import annotations

import json
from typing import Any

from tfbuild import __version__
from tfbuild.pipeline.report.attribution import GROUPS
from tfbuild.pipeline.report.chart import Bar, bar_chart
from tfbuild.pipeline.report.linker_map import MAP_GROUPS
from tfbuild.pipeline.report.sizes import ArtifactReport, SizeReport
from tfbuild.templating import render

SCHEMA = 1
TOP_ROWS = 25
CHART_ROWS = 15
OUTSIDE_SYMBOLS = "not in a symbol"


def render_markdown(report: SizeReport) -> str:
    return render("report/report.md.j2", **report_view(report))


def render_html(report: SizeReport) -> str:
    """The page: the Markdown's tables, and a bar chart of the artifacts and of each one's bytes."""
    view = report_view(report)
    charts = [bar_chart("artifacts", "Artifact sizes", [
        Bar(item.name, item.size, item.baseline.size if item.baseline else None) for item in report.build.artifacts
    ])]
    for number, artifact in enumerate(report.build.artifacts):
        if artifact.attribution is not None:
            charts.append(bar_chart(f"where-{number}", "Code and data, by kernel file and group",
                                    _where_bars(artifact)))
    return render("report/report.html.j2", **view, charts=charts)


def render_json(report: SizeReport) -> str:
    return json.dumps(report_json(report), indent=2) + "\n"


def report_json(report: SizeReport) -> dict[str, object]:
    """Every figure of the report, and the build's figures for a later report's baseline."""
    build = report.build
    baseline = report.baseline
    return {
        "schema": SCHEMA,
        "tfbuild_version": __version__,
        "output_dir": str(build.output_dir),
        "target": build.target,
        "flavour": build.flavour,
        "tensorflow_version": build.tensorflow_version,
        "source": build.source,
        "commit": build.commit,
        "selection": build.selection,
        "stock": build.stock,
        "size_profile": build.size_profile,
        "baseline": None if baseline is None else {
            "origin": baseline.origin,
            "where": str(baseline.where),
            "output_dir": baseline.figures.output_dir,
            "stock": baseline.figures.stock,
            "mismatches": list(report.baseline_mismatches),
        },
        "baseline_status": report.baseline_status,
        "artifacts": [_artifact_json(item) for item in build.artifacts],
        "models": [
            {"name": m.name, "size": m.size, "deflated": m.compressed,
             "benchmark": None if m.benchmark is None else {"argv": list(m.benchmark.argv), "note": m.benchmark.note}}
            for m in build.models
        ],
        "notes": list(build.notes),
        "figures": build.figures().to_dict(),
    }


def _artifact_json(item: ArtifactReport) -> dict[str, object]:
    attribution = item.attribution
    baseline_files = item.baseline.files if item.baseline else {}
    return {
        "name": item.name,
        "kind": item.kind,
        "size": item.size,
        "sha256": item.sha256,
        "baseline_size": item.baseline.size if item.baseline else None,
        "saved": item.saved,
        "note": item.note,
        "attribution": None if attribution is None else {
            "tool": attribution.tool,
            "object_kind": attribution.object_kind,
            "symbol_bytes": attribution.symbol_bytes,
            "outside_symbols": item.outside_symbols,
            "groups": dict(attribution.groups),
            "baseline_groups": dict(item.baseline.groups) if item.baseline else None,
            "files": [
                {"file": f.file, "bytes": f.bytes, "baseline_bytes": baseline_files.get(f.file), "ops": list(f.ops)}
                for f in attribution.files
            ],
            "ops": [{"ops": list(o.ops), "bytes": o.bytes, "files": list(o.files)} for o in attribution.ops],
            "empty_kernel_files": attribution.empty_kernel_files,
            "notes": list(attribution.notes),
            "sections": dict(attribution.sections),
        },
    }


def report_view(report: SizeReport) -> dict[str, object]:
    """What both templates show, each cell formatted."""
    build = report.build
    has_baseline = report.baseline is not None
    return {
        "title": f"Size report: {build.target} ({build.flavour})",
        "facts": _facts(report),
        "baseline_status": report.baseline_status,
        "mismatches": report.baseline_mismatches,
        "has_baseline": has_baseline,
        "artifacts": [_artifact_row(item) for item in build.artifacts],
        "models": [
            {"name": m.name, "size": _bytes(m.size),
             "deflated": _bytes(m.compressed) if m.compressed is not None else "(file gone)",
             "share": _share(m.compressed, m.size) if m.compressed is not None else ""}
            for m in build.models
        ],
        "benchmarks": [
            {"name": m.name, "command": m.benchmark.text, "note": m.benchmark.note or ""}
            for m in build.models if m.benchmark is not None
        ],
        "details": [_details(item, has_baseline) for item in build.artifacts if item.attribution is not None],
        "notes": build.notes,
        "outside_symbols": OUTSIDE_SYMBOLS,
    }


def _facts(report: SizeReport) -> list[str]:
    build = report.build
    facts = [f"build: {build.output_dir}", f"TensorFlow {build.tensorflow_version}"]
    if build.source:
        facts.append(f"tree {build.source}" + (f" at {build.commit[:12]}" if build.commit else ""))
    facts.append(f"header: registers {build.selection}" + (": a stock build" if build.stock else ""))
    if build.size_profile:
        facts.append(f"size profile: {build.size_profile}")
    return facts


def _artifact_row(item: ArtifactReport) -> dict[str, str]:
    baseline = item.baseline
    return {
        "name": item.name,
        "kind": item.kind or "",
        "baseline": _bytes(baseline.size) if baseline else "",
        "size": _bytes(item.size),
        "saved": _saved(item.saved, baseline.size if baseline else None),
        "note": item.note or "",
    }


def _details(item: ArtifactReport, has_baseline: bool) -> dict[str, object]:
    """One artifact's attribution: groups, kernel files and ops, largest first."""
    attribution = item.attribution
    assert attribution is not None
    base_files = item.baseline.files if item.baseline else {}
    gone = {file: size for file, size in base_files.items() if file not in {f.file for f in attribution.files}}
    return {
        "name": item.name,
        "tool": attribution.tool,
        "object_kind": attribution.object_kind,
        "symbol_bytes": _bytes(attribution.symbol_bytes),
        "outside": _bytes(item.outside_symbols or 0),
        "groups": [
            {"name": bar.label, "baseline": _bytes(bar.baseline) if bar.baseline is not None else "",
             "bytes": _bytes(bar.value), "share": _share(bar.value, item.size)}
            for bar in _group_bars(item)
        ],
        "files": [
            {"file": f.file, "ops": ", ".join(f.ops), "bytes": _bytes(f.bytes),
             "baseline": _bytes(base_files[f.file]) if f.file in base_files else ""}
            for f in attribution.files[:TOP_ROWS]
        ],
        "more_files": _more(attribution.files[TOP_ROWS:], "kernel file"),
        "ops": [
            {"ops": o.label, "bytes": _bytes(o.bytes), "files": ", ".join(o.files)} for o in attribution.ops[:TOP_ROWS]
        ],
        "more_ops": _more(attribution.ops[TOP_ROWS:], "op row"),
        "unnamed_kernel_bytes": _bytes(attribution.groups.get("kernels", 0) - attribution.op_bytes),
        "empty_kernel_files": attribution.empty_kernel_files,
        "gone": f"{len(gone):,} kernel file(s) of the baseline have no code or data left here "
        f"({_bytes(sum(gone.values()))} bytes there)" if gone and has_baseline else "",
        "notes": attribution.notes,
        "sections": [
            {"name": name, "bytes": _bytes(size), "share": _share(size, item.size)}
            for name, size in attribution.sections.items()
        ],
    }


def _group_bars(item: ArtifactReport) -> list[Bar]:
    """Each group's bytes and the bytes in no symbol, with the baseline's when it has them."""
    attribution = item.attribution
    assert attribution is not None
    baseline = item.baseline
    base_groups = baseline.groups if baseline is not None and baseline.groups else None
    shown = (*GROUPS, *(group for group in MAP_GROUPS if group in attribution.groups))
    bars = [
        Bar(group, attribution.groups.get(group, 0), base_groups.get(group, 0) if base_groups else None)
        for group in shown
    ]
    base_outside = baseline.size - sum(base_groups.values()) if baseline is not None and base_groups else None
    return [*bars, Bar(OUTSIDE_SYMBOLS, item.outside_symbols or 0, base_outside)]


def _where_bars(item: ArtifactReport) -> list[Bar]:
    """The chart of one artifact's code and data: its largest kernel files, then each group."""
    attribution = item.attribution
    assert attribution is not None
    base_files = item.baseline.files if item.baseline is not None and item.baseline.files else None
    files = [
        Bar(f.file.rsplit("/", 1)[-1], f.bytes, base_files.get(f.file, 0) if base_files is not None else None)
        for f in attribution.files[:CHART_ROWS]
    ]
    groups = [bar for bar in _group_bars(item) if bar.label != OUTSIDE_SYMBOLS]  # it would dwarf the code
    return files + [Bar(f"[{bar.label}]", bar.value, bar.baseline) for bar in groups]


def _more(rest: tuple[Any, ...], what: str) -> str:
    if not rest:
        return ""
    return f"and {len(rest):,} more {what}(s), {_bytes(sum(row.bytes for row in rest))} bytes (all in report.json)"


def _bytes(value: int) -> str:
    return f"{value:,}"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else ""


def _saved(saved: int | None, baseline: int | None) -> str:
    if saved is None or not baseline:
        return ""
    return f"{saved:,} ({100 * saved / baseline:.1f}%)"
