"""The storage sweep's reads and writes: keys live images name, claimed and waiting keys,
and the image rows still without a size."""

from __future__ import annotations

from rk.core.api.keys import rendition_originals
from rk.server.platform.db.sql_rows import marks, rows
from rk.server.platform.db.tables import Image, IngestJob, MediaClaim

LIVE_IMAGES = (
    "SELECT i.id, i.key, i.thumb_key FROM images i JOIN articles a ON a.id = i.article_id"
    " WHERE a.deleted_at = 0"
)


async def keys_named_by_live_images(keys: list[str]) -> set[str]:
    """Those of ``keys`` an image of a live article names (as original or thumbnail), or
    whose original it names (a rendition)."""
    rungs = {key: originals for key in keys if (originals := rendition_originals(key))}
    named = [key for key in keys if key not in rungs]
    wanted = named + [original for originals in rungs.values() for original in originals]
    if not wanted:
        return set()
    among = marks(len(wanted))
    found = await rows(
        f"{LIVE_IMAGES} AND (i.key IN ({among}) OR i.thumb_key IN ({among}))", *wanted, *wanted
    )
    live = {k for row in found for k in (row["key"], row["thumb_key"])}
    kept = live & set(named)
    return kept | {key for key, originals in rungs.items() if live.intersection(originals)}


async def live_image_keys_after(column: str, last: str, batch: int) -> list[str]:
    """Up to ``batch`` distinct ``column`` keys (``key`` or ``thumb_key``) of live images,
    in key order, after ``last``."""
    found = await rows(
        f"SELECT DISTINCT i.{column} AS k FROM images i JOIN articles a"
        f" ON a.id = i.article_id WHERE a.deleted_at = 0 AND i.{column} > {{}}"
        f" ORDER BY i.{column} LIMIT {{}}",
        last,
        batch,
    )
    return [str(row["k"]) for row in found]


async def live_renditions_after(last: str, batch: int) -> list[tuple[str, str]]:
    """Up to ``batch`` recorded ladders with a rung, ``(original key, widths)``, of originals a
    live image uses, in key order, after key ``last``."""
    found = await rows(
        "SELECT r.key AS k, r.widths AS w FROM image_renditions r WHERE r.widths <> ''"
        " AND r.key > {} AND EXISTS (SELECT 1 FROM images i JOIN articles a"
        " ON a.id = i.article_id WHERE i.key = r.key AND a.deleted_at = 0)"
        " ORDER BY r.key LIMIT {}",
        last,
        batch,
    )
    return [(str(row["k"]), str(row["w"])) for row in found]


async def keys_claimed_by_running_jobs() -> set[str]:
    """Every key a running ingest job claims."""
    running = IngestJob.select(IngestJob.id).where(IngestJob.status == "processing")
    found = await MediaClaim.select(MediaClaim.key).where(MediaClaim.job_id.is_in(running))
    return {row["key"] for row in found}


async def waiting_show_payloads() -> list[str]:
    """The payloads of show ingest jobs (kind ``crawl``) waiting or running."""
    found = await IngestJob.select(IngestJob.payload).where(
        (IngestJob.kind == "crawl") & IngestJob.status.is_in(["pending", "processing"])
    )
    return [row["payload"] for row in found]


async def unsized_image_keys(limit: int) -> list[str]:
    """Up to ``limit`` distinct original keys of image rows still 0×0."""
    found = await (
        Image.select(Image.key)
        .where((Image.width == 0) & (Image.height == 0) & (Image.key != ""))
        .distinct()
        .limit(limit)
    )
    return [row["key"] for row in found]


async def set_image_size(key: str, width: int, height: int) -> int:
    """Give the 0×0 image rows of original ``key`` this size; how many rows were sized."""
    done = (
        await Image.update({Image.width: width, Image.height: height})
        .where((Image.key == key) & (Image.width == 0) & (Image.height == 0))
        .returning(Image.id)
    )
    return len(done)
