"""The ``WHERE`` conditions of checked show filters, shared by show lists and facet counts."""

from __future__ import annotations

from rk.server.site.show_filters import ShowFilters


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
    if filters.year:
        clauses.append("a.date >= {} AND a.date < {}")
        args += [f"{filters.year:04d}", f"{filters.year + 1:04d}"]
    return "".join(f" AND {clause}" for clause in clauses), args
