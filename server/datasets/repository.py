"""The datasets slice's SQL: which published images an export takes, and what it says of them.

Only live, published articles' images are read (``LIVE``), on every call: an image
unpublished between planning and writing is not written.
"""

from __future__ import annotations

from typing import Any

from rk.server.datasets.filters import ExportFilters
from rk.server.platform.db.sql_rows import LIVE, marks, rows

CHUNK = 500
"""Ids per ``IN (…)`` list (well under both engines' parameter limits)."""
FROM = (
    "FROM images i JOIN articles a ON a.id = i.article_id"
    f" LEFT JOIN brands b ON b.id = a.brand_id WHERE {LIVE}"
)
COLUMNS = (
    "i.id, i.key, i.sha1, i.size, i.width, i.height, i.role, i.position, i.look_number,"
    " i.model_name, i.source_url, a.id AS article_id, a.kind, a.title, a.season, a.city,"
    " a.date, a.source, a.url, a.designer, a.author, COALESCE(b.name, '') AS brand,"
    " COALESCE(b.uid, '') AS brand_uid"
)


def _where(filters: ExportFilters) -> tuple[str, list[Any]]:
    """The filters as SQL conditions after ``FROM``, with their values."""
    sql, args = "", []
    if filters.season:
        sql += " AND LOWER(a.season) = LOWER({})"
        args.append(filters.season)
    if filters.brand:
        sql += " AND (b.uid = {} OR LOWER(b.name) = LOWER({}))"
        args += [filters.brand, filters.brand]
    if filters.kind:
        sql += " AND a.kind = {}"
        args.append(filters.kind)
    return sql, args


async def planned_ids(filters: ExportFilters) -> list[int]:
    """Every published image under ``filters``, by id."""
    where, args = _where(filters)
    found = await rows(f"SELECT i.id {FROM}{where} ORDER BY i.id", *args)
    return [int(row["id"]) for row in found]


async def planned_bytes(filters: ExportFilters) -> int:
    """The stored originals' bytes under ``filters`` (sizes the ingest recorded)."""
    where, args = _where(filters)
    found = await rows(f"SELECT COALESCE(SUM(i.size), 0) AS n {FROM}{where}", *args)
    return int(found[0]["n"])


async def samples(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The rows of those of ``ids`` still published, by id."""
    out: dict[int, dict[str, Any]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        sql = f"SELECT {COLUMNS} {FROM} AND i.id IN ({marks(len(chunk))})"
        out.update({int(row["id"]): row for row in await rows(sql, *chunk)})
    return out


async def colours(ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Each image's palette (name, hex, share), largest share first."""
    out: dict[int, list[dict[str, Any]]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        found = await rows(
            "SELECT image_id, name, hex, share FROM image_colours"
            f" WHERE image_id IN ({marks(len(chunk))}) ORDER BY image_id, rank",
            *chunk,
        )
        for row in found:
            colour = {"name": row["name"], "hex": row["hex"], "share": round(row["share"], 4)}
            out.setdefault(int(row["image_id"]), []).append(colour)
    return out


async def tags(ids: list[int]) -> dict[int, list[str]]:
    """Each image's tags that count (the model's and the moderators' confirmed), A–Z."""
    out: dict[int, list[str]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        found = await rows(
            "SELECT image_id, tag FROM image_tags WHERE state IN ('auto', 'confirmed')"
            f" AND image_id IN ({marks(len(chunk))}) ORDER BY image_id, tag",
            *chunk,
        )
        for row in found:
            out.setdefault(int(row["image_id"]), []).append(str(row["tag"]))
    return out


async def vectors(model: str, ids: list[int]) -> dict[int, bytes]:
    """Each image's stored vector under ``model`` (float32 little-endian bytes)."""
    out: dict[int, bytes] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        found = await rows(
            "SELECT image_id, vector FROM image_embeddings WHERE model = {}"
            f" AND image_id IN ({marks(len(chunk))})",
            model,
            *chunk,
        )
        out.update({int(row["image_id"]): bytes(row["vector"]) for row in found})
    return out


async def vector_dim(model: str) -> int:
    """The dimension of ``model``'s vectors (0: it has none)."""
    found = await rows("SELECT MAX(dim) AS d FROM image_embeddings WHERE model = {}", model)
    return int(found[0]["d"] or 0)
