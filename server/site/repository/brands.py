"""SQL of the public brands: those with a published show, from the kept counts.

A brand's count is read from ``public_facet_counts`` (kept by triggers, migration 0032),
where a brand's value is its id as text.
"""

from __future__ import annotations

from typing import Any

from rk.server.brands import UID_MATCH
from rk.server.platform.db.sql_rows import rows

PUBLISHED = (
    "SELECT b.id, b.uid, b.name, c.n FROM public_facet_counts c"
    " JOIN brands b ON c.value = CAST(b.id AS VARCHAR(200)) WHERE c.facet = 'brand' AND c.n > 0"
)
"""Brands with at least one published show, and how many (``n``)."""


async def published_brands() -> list[dict[str, Any]]:
    """Every brand with a published show: id, uid, name and its count ``n``."""
    return await rows(PUBLISHED)


async def published_brand(uid: str) -> dict[str, Any] | None:
    """The brand with this uid or old uid, while it has a published show; None otherwise.

    A brand the public cannot see must not tell its name, through a page or a filter.
    """
    found = await rows(f"{PUBLISHED} AND {UID_MATCH}", uid, uid)
    return min(found, key=lambda r: r["uid"] != uid) if found else None  # its own uid first
