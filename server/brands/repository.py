"""The brands' reads and writes: brands by uid, id or name, new brands, the uid alphabet."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rk.server.platform.db.sql_rows import rows, transaction
from rk.server.platform.db.tables import Brand, InstanceSecret

UID_MATCH = "(b.uid = {} OR (b.old_uid = {} AND b.old_uid <> ''))"
"""SQL matching brand ``b`` by either uid; pass the uid twice."""
COLUMNS = (Brand.id, Brand.uid, Brand.name, Brand.slugs)


async def instance_secret(name: str) -> str | None:
    """The value of instance secret ``name``, or None when it was never drawn."""
    row = (
        await InstanceSecret.select(InstanceSecret.value).where(InstanceSecret.name == name).first()
    )
    return None if row is None else str(row["value"])


async def brand_id_with_uid(uid: str) -> int | None:
    """The id of the brand whose uid, or else pre-0050 uid, is ``uid``."""
    row = await Brand.select(Brand.id).where(Brand.uid == uid).first()
    if row is None:
        row = await Brand.select(Brand.id).where(Brand.old_uid == uid).first()
    return int(row["id"]) if row else None


async def brand_by_uid(uid: str) -> dict[str, Any] | None:
    """The brand's id, uid, name and slugs by its uid."""
    return await Brand.select(*COLUMNS).where(Brand.uid == uid).first()


async def brand_by_old_uid(uid: str) -> dict[str, Any] | None:
    """The brand's id, uid, name and slugs by its pre-0050 uid."""
    return await Brand.select(*COLUMNS).where(Brand.old_uid == uid).first()


async def brand_by_id(brand_id: int) -> dict[str, Any] | None:
    """The brand's id, uid, name and slugs by its id."""
    return await Brand.select(*COLUMNS).where(Brand.id == brand_id).first()


async def brands_of_length(length: int) -> list[dict[str, Any]]:
    """The brands whose name has ``length`` characters: every name that can equal one of
    that length ignoring case (SQLite's ``lower`` folds ASCII only, so callers compare)."""
    return await rows(
        "SELECT id, uid, name, slugs FROM brands WHERE length(name) = {} ORDER BY id", length
    )


async def brands_mentioning(slug: str) -> list[dict[str, Any]]:
    """The brands whose slugs JSON mentions ``slug`` (a superset: LIKE's ``_`` matches any
    character; callers check which source holds it)."""
    return list(await Brand.select(*COLUMNS).where(Brand.slugs.like(f"%{json.dumps(slug)}%")))


async def create_brand(
    name: str, slugs: str, now: int, uid_for: Callable[[int], Awaitable[str]]
) -> int:
    """Insert a brand (``slugs`` as JSON) and give it ``uid_for(its id)``; its id."""
    async with transaction():
        row = await Brand.insert(
            Brand(
                uid=f"new-{time.monotonic_ns()}",
                name=name,
                slugs=slugs,
                created_at=now,
                updated_at=now,
            )
        ).returning(Brand.id)
        brand_id = int(row[0]["id"])
        await Brand.update({Brand.uid: await uid_for(brand_id)}).where(Brand.id == brand_id)
    return brand_id


async def brands_in_name_order(prefix: str = "") -> list[dict[str, Any]]:
    """Every brand's id, uid, name and slugs by name; only names starting ``prefix`` if given."""
    query = Brand.select(*COLUMNS).order_by(Brand.name)
    if prefix:
        query = query.where(Brand.name.ilike(f"{prefix}%"))
    return list(await query)
