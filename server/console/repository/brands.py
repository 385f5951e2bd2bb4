"""SQL of the console's brands: keyset pages by name, name search, rename, history."""

from __future__ import annotations

import json
import time
from typing import Any

from rk.server.console.job_rows import JOB_COLUMNS
from rk.server.console.repository.where import Where, page_rows
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import Brand


def like(text: str) -> str:
    """A ``LIKE … ESCAPE '\\'`` pattern of names containing ``text`` (any case)."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def brand_page_rows(query: str, after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` brands by name containing ``query``, after the name ``after``, with
    their count of articles not deleted."""
    where = (
        Where()
        .add("LOWER(b.name) LIKE {} ESCAPE '\\'", like(query), when=bool(query))
        .add("b.name > {}", after, when=after is not None)
    )
    select = (
        "SELECT b.id, b.uid, b.name, b.slugs, b.created_at,"
        " (SELECT COUNT(*) FROM articles a WHERE a.brand_id = b.id AND a.deleted_at = 0)"
        " AS articles FROM brands b"
    )
    return await page_rows(select, where, "b.name", limit)


async def names_like(pattern: str, limit: int) -> list[dict[str, Any]]:
    """``uid`` and ``name`` of up to ``limit`` brands whose lower-case name is LIKE ``pattern``."""
    return await rows(
        "SELECT uid, name FROM brands WHERE LOWER(name) LIKE {} ESCAPE '\\' ORDER BY name LIMIT {}",
        pattern,
        limit,
    )


async def rename_brand(brand_id: int, name: str, slugs: dict[str, str]) -> None:
    """Set a brand's name and slugs."""
    await Brand.update(
        {Brand.name: name, Brand.slugs: json.dumps(slugs), Brand.updated_at: int(time.time())}
    ).where(Brand.id == brand_id)


async def brand_job_rows(brand_id: int, limit: int) -> list[dict[str, Any]]:
    """The brand's ingest jobs newest first (``JOB_COLUMNS``)."""
    return await rows(
        f"SELECT {JOB_COLUMNS} FROM ingest_jobs j WHERE j.brand_id = {{}}"
        " ORDER BY j.id DESC LIMIT {}",
        brand_id,
        limit,
    )
