"""The geometry of a trend's line chart, worked out here so the template draws plain SVG.

No chart library and nothing from a CDN: the template writes ``<polyline>``, ``<circle>`` and
``<text>`` elements from these numbers, and Jinja escapes every label (season names are
crawled text). The y axis runs from 0 to a round share above the highest point; with many
seasons only every few are labelled, so labels never overlap; each season sits in the middle
of its own slot, so the first label has room.
"""

from __future__ import annotations

import math

from msgspec import Struct

from rk.server.trends.service import SeasonShare

WIDTH, HEIGHT = 960, 360
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 96
STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0)
"""Candidate distances between the y axis's gridlines (shares)."""
GRIDLINES = 4
MAX_LABELS = 12
"""Most season names written under the x axis."""
LABEL_CHARS = 18
WORDS = (("Ready-to-Wear", "RTW"), ("Menswear", "Men"), ("Haute Couture", "Couture"))
"""Collection words the axis shortens (the table and the tooltips keep the whole name)."""


class Tick(Struct, frozen=True, kw_only=True):
    """A horizontal gridline: its y and its label (``25%``)."""

    y: float
    label: str


class ChartPoint(Struct, frozen=True, kw_only=True):
    """One season's dot: where it is, its tooltip, and its x-axis label ("" when skipped)."""

    x: float
    y: float
    title: str
    label: str


class Chart(Struct, frozen=True, kw_only=True):
    """Everything the template needs to draw the chart."""

    width: int
    height: int
    left: int
    right: int
    baseline: float
    ticks: list[Tick]
    points: list[ChartPoint]
    line: str


def percent(share: float) -> str:
    """``0.1234`` → ``12.3%``."""
    return f"{share * 100:.1f}%"


def top_of(highest: float) -> float:
    """The y axis's top: the smallest ``GRIDLINES`` steps of one size covering ``highest``."""
    step = next((s for s in STEPS if s * GRIDLINES >= highest), STEPS[-1])
    return min(1.0, step * GRIDLINES) if highest > 0 else STEPS[0] * GRIDLINES


def short(name: str) -> str:
    """A season name for the axis: collection words shortened (``Fall 2025 RTW``), then cut
    to ``LABEL_CHARS`` (the table has it whole)."""
    for word, abbreviation in WORDS:
        name = name.replace(word, abbreviation)
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def chart_of(points: list[SeasonShare]) -> Chart:
    """The chart of a trend's points (oldest season first)."""
    top = top_of(max((p.share for p in points), default=0.0))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    every = max(1, math.ceil(len(points) / MAX_LABELS))

    def y_of(share: float) -> float:
        """The y of ``share`` (0 at the baseline, ``top`` at the plot's top)."""
        return round(TOP + plot_h * (1 - share / top), 1)

    def x_of(i: int) -> float:
        """The x of the ``i``-th season: the middle of its slot."""
        return round(LEFT + plot_w * (i + 0.5) / len(points), 1)

    dots = [
        ChartPoint(
            x=x_of(i),
            y=y_of(p.share),
            title=f"{p.season}: {percent(p.share)} ({p.matching} of {p.looks} looks)",
            label=short(p.season) if (len(points) - 1 - i) % every == 0 else "",
        )
        for i, p in enumerate(points)
    ]
    ticks = [
        Tick(y=y_of(top * k / GRIDLINES), label=f"{top * k / GRIDLINES * 100:g}%")
        for k in range(GRIDLINES + 1)
    ]
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        baseline=y_of(0.0),
        ticks=ticks,
        points=dots,
        line=" ".join(f"{d.x},{d.y}" for d in dots),
    )
