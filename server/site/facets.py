"""The filter sidebar of the home page: for each filter, its values with how many shows each.

Counts are faceted: a value's count is the number of published shows it would give with
the *other* active filters kept, so every link in the sidebar leads to a non-empty page.
Long lists (seasons, cities, brands) show their first ``TOP`` values; the chosen value is
always listed.

A count with no *other* filter active is read from ``public_facet_counts`` (kept exact by
triggers, migration 0032) instead of a GROUP BY over every published show, so the
unfiltered home page costs a few short reads however large the archive.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec
from msgspec import Struct

from rk.server.platform.db.sql_rows import LIVE, rows
from rk.server.site.show_filters import KINDS, ShowFilters, where

TOP = 12
YEARS = 50
"""The years listed (newest first)."""
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


class Facet(NamedTuple):
    """How one filter's values are counted: afresh (GROUP BY) and from the kept counts."""

    field: str
    """The ShowFilters field the count ignores."""
    expr: str
    order: str
    kept_order: str
    extra: str = ""
    join: str = ""
    kept_value: str = "c.value"
    kept_extra: str = ""
    kept_join: str = ""


FACETS = {
    "kind": Facet("kind", "a.kind", "a.kind", "c.value"),
    "year": Facet("year", YEAR_SQL, "value DESC", "c.value DESC"),
    "season": Facet(
        "season",
        "a.season",
        "MAX(a.date) DESC, value",
        f"(SELECT MAX(a.date) FROM articles a WHERE {LIVE} AND a.season = c.value) DESC, c.value",
    ),
    "city": Facet("city", "a.city", "n DESC, value", "c.n DESC, c.value"),
    "brand": Facet(
        "brand_id",
        "b.uid",
        "n DESC, MAX(b.name)",
        "c.n DESC, b.name",
        extra=", MAX(b.name) AS name",
        join=" JOIN brands b ON b.id = a.brand_id",
        kept_value="b.uid",
        kept_extra=", b.name AS name",
        kept_join=" JOIN brands b ON c.value = CAST(b.id AS VARCHAR(200))",
    ),
}


async def _group(
    filters: ShowFilters, name: str, chosen: str = "", top: int | None = TOP
) -> list[dict[str, object]]:
    """The counts of facet ``name``: from the kept counts (its ``top`` values, all when
    None, and the ``chosen`` one) when no other filter is set, else afresh (every value)."""
    facet = FACETS[name]
    kept = msgspec.structs.replace(
        filters, **{facet.field: 0 if facet.field in ("year", "brand_id") else ""}
    )
    if not kept.active:
        sql = (
            f"SELECT {facet.kept_value} AS value, c.n AS n{facet.kept_extra}"
            f" FROM public_facet_counts c{facet.kept_join}"
            " WHERE c.facet = {} AND c.n > 0 AND c.value <> ''"
        )
        limit = "" if top is None else f" LIMIT {top:d}"
        found = await rows(f"{sql} ORDER BY {facet.kept_order}{limit}", name)
        if chosen:
            found += await rows(f"{sql} AND {facet.kept_value} = {{}}", name, chosen)
        return found
    conditions, args = where(kept)
    return await rows(
        f"SELECT {facet.expr} AS value, COUNT(*) AS n{facet.extra} FROM articles a{facet.join}"
        f" WHERE {LIVE}{conditions} AND {facet.expr} <> '' GROUP BY {facet.expr}"
        f" ORDER BY {facet.order}",
        *args,
    )


async def _total(filters: ShowFilters) -> int:
    if not filters.active:
        found = await rows("SELECT n FROM public_facet_counts WHERE facet = 'total'")
    else:
        conditions, args = where(filters)
        found = await rows(f"SELECT COUNT(*) AS n FROM articles a WHERE {LIVE}{conditions}", *args)
    return int(str(found[0]["n"])) if found else 0


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
    year = str(filters.year or "")
    kinds = await _group(filters, "kind", filters.kind, top=None)
    years = await _group(filters, "year", year, top=YEARS)
    seasons = await _group(filters, "season", filters.season)
    cities = await _group(filters, "city", filters.city)
    brands = await _group(filters, "brand", filters.brand)
    return Facets(
        kind=[
            FacetValue(
                value=str(r["value"]),
                label=KINDS.get(str(r["value"]), str(r["value"])),
                count=int(str(r["n"])),
            )
            for r in kinds
        ],
        year=[v for v in _values(years, year, top=YEARS) if v.value.isdigit()],
        season=_values(seasons, filters.season),
        city=_values(cities, filters.city),
        brand=_values(brands, filters.brand, label_key="name"),
        total=await _total(filters),
    )
