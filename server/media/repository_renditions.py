"""SQL of rendition ladders: the one each original has (``image_renditions``), recording one,
and the originals of live images that have none yet (the backfill's work list)."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import ImageRendition

TODO = (
    " FROM images i JOIN articles a ON a.id = i.article_id WHERE a.deleted_at = 0"
    " AND NOT EXISTS (SELECT 1 FROM image_renditions r WHERE r.key = i.key)"
)
"""Images of live articles (pending and rejected included: they may be published) whose
original has no recorded ladder."""
RECORD = (
    "INSERT INTO image_renditions (key, widths, made_at) VALUES ({}, {}, {})"
    " ON CONFLICT (key) DO UPDATE SET widths = excluded.widths, made_at = excluded.made_at"
)


async def recorded_ladder(key: str) -> str | None:
    """The widths recorded for original ``key``'s ladder (None: it has none yet)."""
    row = (
        await ImageRendition.select(ImageRendition.widths).where(ImageRendition.key == key).first()
    )
    return None if row is None else str(row["widths"])


async def record_ladder(key: str, widths: str, now: int) -> None:
    """Record that original ``key``'s ladder has the rungs ``widths``, made at ``now``."""
    await rows(RECORD, key, widths, now)


async def count_originals_to_do() -> int:
    """How many distinct originals of live images have no recorded ladder."""
    [row] = await rows(f"SELECT COUNT(DISTINCT i.key) AS n{TODO}")
    return int(row["n"])


async def originals_to_do_after(last: str, batch: int) -> list[str]:
    """Up to ``batch`` of those originals, in key order, after key ``last``."""
    found = await rows(
        f"SELECT DISTINCT i.key AS k{TODO} AND i.key > {{}} ORDER BY i.key LIMIT {{}}",
        last,
        batch,
    )
    return [str(row["k"]) for row in found]
