"""SQL of the public seasons: every season with published shows, its count and newest date,
the shows of some seasons by name, and the season of the newest runway show.

Counts are the kept ones (``public_facet_counts``, migration 0032); the newest date of a
season is one index read per season (``articles_public_season_idx``).
"""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows

PUBLISHED_SEASONS = (
    "SELECT c.value AS name, c.n AS n,"
    f" (SELECT MAX(a.date) FROM articles a WHERE {LIVE} AND a.season = c.value) AS latest"
    " FROM public_facet_counts c WHERE c.facet = 'season' AND c.n > 0"
)
"""Each season's name, its published count ``n`` and its newest show date ``latest``."""


async def published_seasons() -> list[dict[str, Any]]:
    """Every season with a published show (the nameless "" included): name, n, latest."""
    return await rows(PUBLISHED_SEASONS)


async def season_members(names: list[str]) -> list[dict[str, Any]]:
    """The published shows of these seasons: id, kind, title and brand name ("" for none)."""
    if not names:
        return []
    return await rows(
        "SELECT a.id, a.kind, a.title, COALESCE(b.name, '') AS brand_name FROM articles a"
        " LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE {LIVE} AND a.season IN ({marks(len(names))})",
        *names,
    )


async def newest_season(kind: str = "") -> str:
    """The season of the newest published show (of ``kind`` when given) that names one; ""
    when none does."""
    only = " AND a.kind = {}" if kind else ""
    found = await rows(
        f"SELECT a.season FROM articles a WHERE {LIVE}{only} AND a.season <> ''"
        " ORDER BY a.date DESC, a.id DESC LIMIT 1",
        *([kind] if kind else []),
    )
    return str(found[0]["season"]) if found else ""
