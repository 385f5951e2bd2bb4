"""The trends' pure parts: the chart's geometry and the CSV's cells (issue 30)."""

from __future__ import annotations

import csv
import io

import pytest

from rk.server.trends.chart import GRIDLINES, MAX_LABELS, chart_of, short, top_of
from rk.server.trends.csv_export import csv_filename, safe_cell, trend_csv
from rk.server.trends.service import SeasonShare, Trend


def point(i: int, looks: int = 10, matching: int = 1) -> SeasonShare:
    """Season ``i``'s point: ``matching`` of ``looks`` looks."""
    return SeasonShare(
        season=f"Fall {2000 + i} Ready-to-Wear",
        slug=f"fall-{2000 + i}-ready-to-wear",
        looks=looks,
        matching=matching,
        share=matching / looks,
    )


@pytest.mark.parametrize(
    ("highest", "top"), [(0.0, 0.04), (0.03, 0.04), (0.125, 0.2), (0.75, 0.8), (1.0, 1.0)]
)
def test_the_axis_top_is_a_round_share_above_the_highest_point(highest: float, top: float) -> None:
    assert top_of(highest) == pytest.approx(top)
    assert top_of(highest) >= highest


def test_points_sit_in_their_slots_higher_share_higher_up_and_labels_never_crowd() -> None:
    chart = chart_of([point(0, matching=1), point(1, matching=5), point(2, matching=0)])
    xs = [p.x for p in chart.points]
    assert chart.left < xs[0] < xs[1] < xs[2] < chart.right
    assert chart.points[1].y < chart.points[0].y < chart.points[2].y == chart.baseline
    assert [t.label for t in chart.ticks] == ["0%", "20%", "40%", "60%", "80%"][: GRIDLINES + 1]
    assert chart.points[0].title == "Fall 2000 Ready-to-Wear: 10.0% (1 of 10 looks)"
    assert chart.points[0].label == "Fall 2000 RTW"
    many = chart_of([point(i) for i in range(40)])
    labelled = [p for p in many.points if p.label]
    assert len(labelled) <= MAX_LABELS
    assert many.points[-1].label, "the latest season is always labelled"
    assert short("Copenhagen Spring 2031 Haute Couture Extra") == "Copenhagen Spring…"


@pytest.mark.parametrize("text", ["=1+1", "+1", "-2", "@SUM(A1)", "\tx", "\rx"])
def test_formula_cells_are_written_as_text(text: str) -> None:
    assert safe_cell(text) == "'" + text


def test_the_csv_parses_back_and_its_filename_is_plain() -> None:
    trend = Trend(by="colour", name="sky blue", points=[point(0, 8, 2), point(1, 4, 1)])
    rows = list(csv.reader(io.StringIO(trend_csv(trend).decode())))
    assert rows == [
        ["season", "season_slug", "looks", "looks_with", "share"],
        ["Fall 2000 Ready-to-Wear", "fall-2000-ready-to-wear", "8", "2", "0.250000"],
        ["Fall 2001 Ready-to-Wear", "fall-2001-ready-to-wear", "4", "1", "0.250000"],
    ]
    assert safe_cell(12) == "12"
    assert csv_filename(trend) == "rk-trend-colour-sky-blue.csv"
    assert csv_filename(Trend(by="tag", name='"; rm -rf /', points=[])) == "rk-trend-tag-rm-rf.csv"
