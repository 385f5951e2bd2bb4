"""SQL of the filter sidebar's counts: from the kept counts, or afresh under other filters.

A count with no *other* filter active is read from ``public_facet_counts`` (kept exact by
triggers, migration 0032) instead of a GROUP BY over every published show, so the
unfiltered home page costs a few short reads however large the archive.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from rk.server.platform.db.sql_rows import LIVE, marks, rows
from rk.server.site.repository.where import where
from rk.server.site.show_filters import ShowFilters
from rk.server.tags import SHOWN_STATES

YEAR_SQL = "SUBSTR(a.date, 1, 4)"


class Facet(NamedTuple):
    """How one filter's values are counted: afresh (GROUP BY) and from the kept counts."""

    expr: str
    order: str
    kept_order: str
    extra: str = ""
    join: str = ""
    kept_value: str = "c.value"
    kept_extra: str = ""
    kept_join: str = ""


FACETS = {
    "kind": Facet("a.kind", "a.kind", "c.value"),
    "season": Facet(
        "a.season",
        "MAX(a.date) DESC, value",
        f"(SELECT MAX(a.date) FROM articles a WHERE {LIVE} AND a.season = c.value) DESC, c.value",
    ),
    "city": Facet("a.city", "n DESC, value", "c.n DESC, c.value"),
    "brand": Facet(
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
"""Each facet by name (``kind``, ``season``, ``city``, ``brand``); a brand's ``value`` is its
uid and its ``name`` comes along. Years are the seasons' (``season_date_years``)."""


async def kept_counts(name: str, top: int | None, chosen: str = "") -> list[dict[str, Any]]:
    """Facet ``name``'s first ``top`` values (all when None) with their kept count ``n``, and
    the ``chosen`` one after them when given."""
    facet = FACETS[name]
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


async def kept_value_count(name: str) -> int:
    """How many values facet ``name`` has among published shows, from the kept counts."""
    found = await rows(
        f"SELECT COUNT(*) AS n FROM public_facet_counts c{FACETS[name].kept_join}"
        " WHERE c.facet = {} AND c.n > 0 AND c.value <> ''",
        name,
    )
    return int(str(found[0]["n"])) if found else 0


async def season_date_years(
    filters: ShowFilters, seasons: list[str] | None
) -> list[dict[str, Any]]:
    """Published shows matching ``filters`` (and of ``seasons`` when given) counted by season
    and show-date year: ``season``, ``year`` (the date's, "" when undated) and ``n``."""
    conditions, args = where(filters)
    if seasons is not None:
        conditions += f" AND a.season IN ({marks(len(seasons))})"
        args += seasons
    return await rows(
        f"SELECT a.season AS season, {YEAR_SQL} AS year, COUNT(*) AS n FROM articles a"
        f" WHERE {LIVE}{conditions} GROUP BY a.season, {YEAR_SQL}",
        *args,
    )


async def counted_afresh(name: str, filters: ShowFilters) -> list[dict[str, Any]]:
    """Every value of facet ``name`` among published shows matching ``filters``, counted."""
    facet = FACETS[name]
    conditions, args = where(filters)
    return await rows(
        f"SELECT {facet.expr} AS value, COUNT(*) AS n{facet.extra} FROM articles a{facet.join}"
        f" WHERE {LIVE}{conditions} AND {facet.expr} <> '' GROUP BY {facet.expr}"
        f" ORDER BY {facet.order}",
        *args,
    )


async def kept_total() -> int:
    """How many shows are published, from the kept counts."""
    found = await rows("SELECT n FROM public_facet_counts WHERE facet = 'total'")
    return int(str(found[0]["n"])) if found else 0


async def total(filters: ShowFilters) -> int:
    """How many published shows match ``filters``, counted afresh."""
    conditions, args = where(filters)
    found = await rows(f"SELECT COUNT(*) AS n FROM articles a WHERE {LIVE}{conditions}", *args)
    return int(str(found[0]["n"])) if found else 0


async def tag_counts(filters: ShowFilters) -> list[dict[str, Any]]:
    """The shown tags of published shows matching ``filters`` (its own tag filter left out),
    each with how many shows have a look tagged so, most first."""
    conditions, args = where(msgspec.structs.replace(filters, tag=""))
    return await rows(
        "SELECT t.tag AS value, COUNT(DISTINCT a.id) AS n FROM image_tags t"
        " JOIN images i ON i.id = t.image_id JOIN articles a ON a.id = i.article_id"
        f" WHERE {LIVE}{conditions} AND t.state IN {SHOWN_STATES}"
        " GROUP BY t.tag ORDER BY n DESC, t.tag",
        *args,
    )
