"""The SQL of exports: published images by id with what their credits and captions need."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows

COLUMNS = (
    "i.id, i.article_id, i.role, i.position, i.key, i.thumb_key, i.sha1, i.width, i.height,"
    " i.look_number, i.model_name, a.kind, a.title, a.season, a.city, a.date, a.source, a.url,"
    " a.designer, a.author, COALESCE(b.name, '') AS brand_name,"
    " (SELECT r.widths FROM image_renditions r WHERE r.key = i.key) AS rendition_widths"
)


async def export_rows(image_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Those of ``image_ids`` that are published and live, by id."""
    if not image_ids:
        return {}
    found = await rows(
        f"SELECT {COLUMNS} FROM images i JOIN articles a ON a.id = i.article_id"
        f" LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE i.id IN ({marks(len(image_ids))}) AND {LIVE}",
        *image_ids,
    )
    return {int(row["id"]): row for row in found}
