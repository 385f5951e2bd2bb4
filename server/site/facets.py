"""The filter sidebar of the home page: for each filter, its values with how many shows each.

Counts are faceted: a value's count is the number of published shows it would give with
the *other* active filters kept, so every link in the sidebar leads to a non-empty page.
Long lists (seasons, cities, brands) show their first ``TOP`` values; the chosen value is
always listed. With no *other* filter active the counts are the ones the database keeps
(``repository.facets``), so the unfiltered home page costs a few short reads.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

from rk.server.site.repository.facets import counted_afresh, kept_counts, kept_total, total
from rk.server.site.show_filters import KINDS, ShowFilters

TOP = 12
YEARS = 50
"""The years listed (newest first)."""
IGNORES = {"kind": "kind", "year": "year", "season": "season", "city": "city", "brand": "brand_id"}
"""The ShowFilters field each facet's count leaves out."""


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
    filters: ShowFilters, name: str, chosen: str = "", top: int | None = TOP
) -> list[dict[str, object]]:
    """The counts of facet ``name``: from the kept counts (its ``top`` values, all when
    None, and the ``chosen`` one) when no other filter is set, else afresh (every value)."""
    field = IGNORES[name]
    kept = msgspec.structs.replace(filters, **{field: 0 if field in ("year", "brand_id") else ""})
    if not kept.active:
        return await kept_counts(name, top, chosen)
    return await counted_afresh(name, kept)


async def _total(filters: ShowFilters) -> int:
    return await total(filters) if filters.active else await kept_total()


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
