"""A trend as CSV: one row per season, cells safe to open in a spreadsheet.

Season names are crawled text: a cell that a spreadsheet would read as a formula (starting
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written with a leading
apostrophe (OWASP's advice for CSV injection), so it shows as text and never runs.
"""

from __future__ import annotations

import csv
import io
import re

from rk.server.trends.service import Trend

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
HEADER = ("season", "season_slug", "looks", "looks_with", "share")


def safe_cell(value: str | int | float) -> str:
    """``value`` as a cell a spreadsheet shows as text, never as a formula."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def trend_csv(trend: Trend) -> bytes:
    """The CSV of ``trend``: a header, then each season oldest first (UTF-8)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    for p in trend.points:
        row = (p.season, p.slug, p.looks, p.matching, f"{p.share:.6f}")
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue().encode()


def csv_filename(trend: Trend) -> str:
    """``rk-trend-tag-trench-coat.csv``: ASCII letters, digits and hyphens only."""
    words = "-".join(re.findall(r"[a-z0-9]+", trend.name.lower()))[:60] or "unnamed"
    return f"rk-trend-{trend.by}-{words}.csv"
