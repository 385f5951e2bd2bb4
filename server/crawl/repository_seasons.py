"""Whole seasons' reads and writes: brands by source slug or name, their slugs, and whether a
brand's show of a season (or any task of the brand) is already queued."""

from __future__ import annotations

import json
from typing import Any

from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import Brand, CrawlTask

COLUMNS = (Brand.id, Brand.name, Brand.slugs)


async def brands_mentioning_slug(slug: str) -> list[dict[str, Any]]:
    """The ``id``, ``name`` and ``slugs`` of every brand whose slugs' JSON holds ``slug``."""
    return list(await Brand.select(*COLUMNS).where(Brand.slugs.like(f"%{json.dumps(slug)}%")))


async def brand_named(name: str) -> dict[str, Any] | None:
    """The ``id``, ``name`` and ``slugs`` of the brand called exactly ``name``."""
    return await Brand.select(*COLUMNS).where(Brand.name == name).first()


async def brand_named_in_any_case(name: str) -> dict[str, Any] | None:
    """The ``id``, ``name`` and ``slugs`` of the first brand called ``name`` in any case."""
    found = await rows(
        "SELECT id, name, slugs FROM brands WHERE lower(name) = {} ORDER BY id LIMIT 1",
        name.lower(),
    )
    return found[0] if found else None


async def set_brand_slugs(brand_id: int, slugs: dict[str, str], now: int) -> None:
    """Give the brand these per-source slugs (changed at ``now``)."""
    await Brand.update({Brand.slugs: json.dumps(slugs), Brand.updated_at: now}).where(
        Brand.id == brand_id
    )


async def season_task_active(brand_id: int, source: str, season: str) -> bool:
    """Whether a task for the brand's show of ``season`` on ``source`` is queued or running."""
    return bool(
        await CrawlTask.exists().where(
            (CrawlTask.brand_id == brand_id)
            & (CrawlTask.source == source)
            & (CrawlTask.season == season)
            & CrawlTask.status.is_in(["queued", "running"])
        )
    )


async def active_task_id(brand_id: int, source: str) -> int | None:
    """The id of the brand's oldest queued or running task on ``source``, or None."""
    row = (
        await CrawlTask.select(CrawlTask.id)
        .where(
            (CrawlTask.brand_id == brand_id)
            & (CrawlTask.source == source)
            & CrawlTask.status.is_in(["queued", "running"])
        )
        .order_by(CrawlTask.id)
        .first()
    )
    return int(row["id"]) if row else None
