"""Horizontal bar charts as SVG text, for the HTML report to embed.

matplotlib draws them (its SVG backend alone: no pyplot state, no display). It is imported
inside :func:`bar_chart`, so only a report that is written pays for it. Text stays text in the
SVG (``svg.fonttype = none``), ids and metadata are fixed, so the same figures give the same
page, and every bar carries an id (``<chart>-bar-<n>``, ``<chart>-baseline-<n>`` for the
baseline's) so a test, or a reader's script, can find them.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

_COLOUR = "#2f6db5"
_BASELINE_COLOUR = "#c7c7c7"
_ROW_INCHES = 0.32


@dataclass(frozen=True)
class Bar:
    """One row: its label, its bytes, and the baseline's bytes (None: no baseline figure)."""

    label: str
    value: int
    baseline: int | None = None


def bar_chart(chart_id: str, title: str, bars: Sequence[Bar]) -> str:
    """An SVG (without the XML prolog) of ``bars``, top to bottom, with the baseline's bar under
    each one's when any bar has a baseline figure."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    with_baseline = any(bar.baseline is not None for bar in bars)
    height = 1.2 + _ROW_INCHES * len(bars) * (1.6 if with_baseline else 1.0)
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": chart_id, "font.size": 9}):
        figure = Figure(figsize=(8.0, height))
        axes = figure.add_subplot()
        rows = range(len(bars))
        thickness = 0.4 if with_baseline else 0.7
        positions = [-row for row in rows]
        drawn = axes.barh(
            [p + (thickness / 2 if with_baseline else 0) for p in positions],
            [bar.value for bar in bars],
            height=thickness,
            color=_COLOUR,
            label="this build",
        )
        for row, patch in enumerate(drawn.patches):
            patch.set_gid(f"{chart_id}-bar-{row}")
        if with_baseline:
            stock = axes.barh(
                [p - thickness / 2 for p in positions],
                [bar.baseline or 0 for bar in bars],
                height=thickness,
                color=_BASELINE_COLOUR,
                label="baseline",
            )
            for row, patch in enumerate(stock.patches):
                patch.set_gid(f"{chart_id}-baseline-{row}")
            figure.legend(loc="upper right", ncols=2, frameon=False)
        axes.bar_label(drawn, labels=[_human(bar.value) for bar in bars], padding=3, fontsize=7)
        axes.set_yticks(positions, [bar.label for bar in bars])
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: _human(value)))
        axes.set_title(title, loc="left")
        axes.spines[["top", "right"]].set_visible(False)
        figure.tight_layout()
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "tfbuild"})
    svg = buffer.getvalue()
    return svg[svg.index("<svg"):]


def _human(value: float) -> str:
    """Axis labels: 0, 512 B, 20 KB, 1.5 MB."""
    for unit, size in (("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(value) >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.0f} B" if value else "0"
