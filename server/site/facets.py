"""The filter sidebar of the home page: for each filter, its values with how many shows each.

Counts are faceted: a value's count is the number of published shows it would give with
the *other* active filters kept, so every link in the sidebar leads to a non-empty page.
Long lists (seasons, years, cities, brands) show their first values and say how many more
there are (``more``); ``?all=<filter>`` lists every one, and the chosen value is always
listed. With no *other* filter active the counts are the ones the database keeps
(``repository.facets``), so the unfiltered home page costs a few short reads. A year is
the season's year (``seasons.names``), the date's for a season that names none.
"""

from __future__ import annotations

from collections import Counter

import msgspec
from msgspec import Struct, field

from rk.server.site.repository.facets import (
    counted_afresh,
    kept_counts,
    kept_total,
    kept_value_count,
    season_date_years,
    tag_counts,
    total,
)
from rk.server.site.repository.seasons import published_seasons
from rk.server.site.seasons.names import season_year
from rk.server.site.show_filters import KINDS, ShowFilters

TOP = 12
YEARS = 50
"""The years listed (newest first) until every one is asked for."""
IGNORES = {"kind": "kind", "season": "season", "city": "city", "brand": "brand_id"}
"""The ShowFilters field each facet's count leaves out."""


class FacetValue(Struct, frozen=True, kw_only=True):
    """One value of a filter: what the URL carries, what the page shows, how many shows."""

    value: str
    label: str
    count: int


class Facets(Struct, frozen=True, kw_only=True):
    """Every filter's values under the current filters; ``more`` says how many values each
    long filter has beyond those listed (``?all=<filter>`` lists them)."""

    kind: list[FacetValue]
    year: list[FacetValue]
    season: list[FacetValue]
    city: list[FacetValue]
    brand: list[FacetValue]
    total: int
    tag: list[FacetValue] = []
    """The tags of the listed shows' looks, most shows first (zero-shot tags, docs/tags.md)."""
    more: dict[str, int] = field(default_factory=dict)


class Counted(Struct, frozen=True, kw_only=True):
    """A facet's counted values (``value``, ``n``, maybe ``name``) and how many it has."""

    found: list[dict[str, object]]
    values: int


def _without(filters: ShowFilters, name: str) -> ShowFilters:
    """``filters`` less facet ``name``'s own filter."""
    if name == "year":
        return msgspec.structs.replace(filters, year=0, year_seasons=(), yearless_seasons=())
    field_name = IGNORES[name]
    return msgspec.structs.replace(filters, **{field_name: 0 if field_name == "brand_id" else ""})


async def _group(
    filters: ShowFilters, name: str, chosen: str = "", top: int | None = TOP
) -> Counted:
    """The counts of facet ``name``: from the kept counts (its ``top`` values, all when
    None, and the ``chosen`` one) when no other filter is set, else afresh (every value)."""
    kept = _without(filters, name)
    if not kept.active:
        found = await kept_counts(name, top, chosen)
        values = len(found) if top is None else await kept_value_count(name)
        return Counted(found=found, values=values)
    found = await counted_afresh(name, kept)
    return Counted(found=found, values=len(found))


async def _years(filters: ShowFilters) -> list[dict[str, object]]:
    """Each year's count, newest first: a season's shows count in its name's year, the shows
    of a season naming none in their date's year."""
    kept = _without(filters, "year")
    counts: Counter[str] = Counter()
    if kept.active:
        dated = await season_date_years(kept, None)
    else:
        yearless = []
        for row in await published_seasons():
            year = season_year(str(row["name"]))
            if year is None:
                yearless.append(str(row["name"]))
            else:
                counts[str(year)] += int(str(row["n"]))
        dated = await season_date_years(kept, yearless) if yearless else []
    for row in dated:
        year = season_year(str(row["season"]))
        counts[str(year) if year is not None else str(row["year"])] += int(str(row["n"]))
    found = [{"value": v, "n": n} for v, n in counts.items() if v.isdigit() and n > 0]
    return sorted(found, key=lambda r: str(r["value"]), reverse=True)


async def _total(filters: ShowFilters) -> int:
    return await total(filters) if filters.active else await kept_total()


def _values(
    found: list[dict[str, object]], chosen: str, top: int | None = TOP, label_key: str = "value"
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
    """The sidebar for ``filters`` (every value of ``filters.expand``'s facet)."""
    year = str(filters.year or "")

    def top(name: str, first: int = TOP) -> int | None:
        return None if filters.expand == name else first

    kinds = await _group(filters, "kind", filters.kind, top=None)
    years = await _years(filters)
    seasons = await _group(filters, "season", filters.season, top("season"))
    cities = await _group(filters, "city", filters.city, top("city"))
    brands = await _group(filters, "brand", filters.brand, top("brand"))
    tags = await tag_counts(filters)
    listed = {
        "year": _values(years, year, top=top("year", YEARS)),
        "season": _values(seasons.found, filters.season, top("season")),
        "city": _values(cities.found, filters.city, top("city")),
        "brand": _values(brands.found, filters.brand, top("brand"), label_key="name"),
        "tag": _values(tags, filters.tag, top("tag")),
    }
    counted = {
        "year": len(years),
        "season": seasons.values,
        "city": cities.values,
        "brand": brands.values,
        "tag": len(tags),
    }
    return Facets(
        kind=[
            FacetValue(
                value=str(r["value"]),
                label=KINDS.get(str(r["value"]), str(r["value"])),
                count=int(str(r["n"])),
            )
            for r in kinds.found
        ],
        year=listed["year"],
        season=listed["season"],
        city=listed["city"],
        brand=listed["brand"],
        tag=listed["tag"],
        total=await _total(filters),
        more={name: max(0, counted[name] - len(listed[name])) for name in listed},
    )
