"""The ``WHERE`` conditions of checked show filters, shared by show lists and facet counts."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import marks
from rk.server.site.show_filters import ShowFilters
from rk.server.tags import SHOWN_STATES

TAGGED = (
    "EXISTS (SELECT 1 FROM images ti JOIN image_tags t ON t.image_id = ti.id"
    f" WHERE ti.article_id = a.id AND t.tag = {{}} AND t.state IN {SHOWN_STATES})"
)
"""A show with a look tagged so (a shown tag: the model's, or confirmed)."""


def where(filters: ShowFilters) -> tuple[str, list[object]]:
    """SQL conditions (after ``LIVE``) and their arguments for ``filters`` (alias ``a``)."""
    clauses: list[str] = []
    args: list[object] = []
    for column, value in (
        ("a.brand_id", filters.brand_id),
        ("a.season", filters.season),
        ("a.city", filters.city),
        ("a.kind", filters.kind),
    ):
        if value:
            clauses.append(f"{column} = {{}}")
            args.append(value)
    if filters.tag:
        clauses.append(TAGGED)
        args.append(filters.tag)
    if filters.year:
        clause, year_args = year_clause(filters)
        clauses.append(clause)
        args += year_args
    return "".join(f" AND {clause}" for clause in clauses), args


def year_clause(filters: ShowFilters) -> tuple[str, list[object]]:
    """The shows of ``filters.year``: those of its seasons, and the ones dated that year among
    the seasons that name no year (every show by its date when neither is known)."""
    dated = "a.date >= {} AND a.date < {}"
    span: list[object] = [f"{filters.year:04d}", f"{filters.year + 1:04d}"]
    named, yearless = list(filters.year_seasons), list(filters.yearless_seasons)
    if not named and not yearless:
        return dated, span
    clause = f"(a.season IN ({marks(len(yearless))}) AND {dated})" if yearless else "1 = 0"
    if not named:
        return clause, [*yearless, *span]
    return f"(a.season IN ({marks(len(named))}) OR {clause})", [*named, *yearless, *span]
