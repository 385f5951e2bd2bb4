"""The filter sidebar of the home page: for each filter, its values with how many shows each.

Counts are faceted: a value's count is the number of published shows it would give with
the *other* active filters kept, so every link in the sidebar leads to a non-empty page.
Long lists (seasons, cities, brands) show their first ``TOP`` values; the chosen value is
always listed.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

from rk.server.services.public_sql import LIVE, rows
from rk.server.services.show_filters import KINDS, ShowFilters, where

TOP = 12
YEAR_SQL = "SUBSTR(a.date, 1, 4)"


class FacetValue(Struct, frozen=True, kw_only=True):
    """One value of a filter: what the URL carries, what the page shows, how many shows."""

    value: str
    label: str
    count: int


class Facets(Struct, frozen=True, kw_only=True):
    """Every filter's values under the current filters."""

    kind: list[FacetValue]
    year: list[FacetValue]
    season: list[FacetValue]
    city: list[FacetValue]
    brand: list[FacetValue]
    total: int


async def _group(
    filters: ShowFilters, drop: str, expr: str, order: str, extra: str = "", join: str = ""
) -> list[dict[str, object]]:
    kept = msgspec.structs.replace(filters, **{drop: 0 if drop in ("year", "brand_id") else ""})
    conditions, args = where(kept)
    return await rows(
        f"SELECT {expr} AS value, COUNT(*) AS n{extra} FROM articles a{join}"
        f" WHERE {LIVE}{conditions} AND {expr} <> '' GROUP BY {expr} ORDER BY {order}",
        *args,
    )


def _values(
    found: list[dict[str, object]], chosen: str, top: int = TOP, label_key: str = "value"
) -> list[FacetValue]:
    values = [
        FacetValue(value=str(r["value"]), label=str(r[label_key]), count=int(str(r["n"])))
        for r in found
    ]
    shown = values[:top]
    if chosen and all(v.value != chosen for v in shown):
        shown += [v for v in values if v.value == chosen]
    return shown


async def facets(filters: ShowFilters) -> Facets:
    """The sidebar for ``filters``."""
    kinds = await _group(filters, "kind", "a.kind", "a.kind")
    years = await _group(filters, "year", YEAR_SQL, "value DESC", join="")
    seasons = await _group(filters, "season", "a.season", "MAX(a.date) DESC, value")
    cities = await _group(filters, "city", "a.city", "n DESC, value")
    brands = await _group(
        filters,
        "brand_id",
        "b.uid",
        "n DESC, MAX(b.name)",
        extra=", MAX(b.name) AS name",
        join=" JOIN brands b ON b.id = a.brand_id",
    )
    conditions, args = where(filters)
    total = await rows(f"SELECT COUNT(*) AS n FROM articles a WHERE {LIVE}{conditions}", *args)
    return Facets(
        kind=[
            FacetValue(
                value=str(r["value"]),
                label=KINDS.get(str(r["value"]), str(r["value"])),
                count=int(str(r["n"])),
            )
            for r in kinds
        ],
        year=[v for v in _values(years, str(filters.year or ""), top=50) if v.value.isdigit()],
        season=_values(seasons, filters.season),
        city=_values(cities, filters.city),
        brand=_values(brands, filters.brand, label_key="name"),
        total=int(str(total[0]["n"])),
    )
