"""SQL of the site's images: a show's pictures in order, one published image, tiles by id."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows
from rk.server.site.repository.where import where
from rk.server.site.show_filters import ShowFilters

IMAGE_COLUMNS = (
    "i.id, i.article_id, i.role, i.position, i.key, i.thumb_key, i.width, i.height,"
    " i.look_number, i.model_name,"
    " (SELECT r.widths FROM image_renditions r WHERE r.key = i.key) AS rendition_widths"
)
"""The image columns ``picture`` reads (alias ``i``), with the widths of its original's
rendition ladder (NULL: none made yet)."""
SHOW_ORDER = "i.role DESC, i.position, i.id"
"""A show's images as its page shows them: looks first, then details, each by position."""


async def image_rows(image_ids: list[int]) -> dict[int, dict[str, Any]]:
    """``IMAGE_COLUMNS`` of these images by id (covers of listed shows, already live)."""
    if not image_ids:
        return {}
    found = await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i WHERE i.id IN ({marks(len(image_ids))})",
        *image_ids,
    )
    return {int(row["id"]): row for row in found}


async def show_image_rows(article_id: int) -> list[dict[str, Any]]:
    """``IMAGE_COLUMNS`` of every image of the show, looks first then details."""
    return await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i WHERE i.article_id = {{}} ORDER BY {SHOW_ORDER}",
        article_id,
    )


async def live_image_row(image_id: int) -> dict[str, Any] | None:
    """``IMAGE_COLUMNS`` of the image if its article is published and live, else None."""
    found = await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i JOIN articles a ON a.id = i.article_id"
        f" WHERE i.id = {{}} AND {LIVE}",
        image_id,
    )
    return found[0] if found else None


async def look_image_id(article_id: int, position: int) -> int | None:
    """The id of the show's own image of look ``position``, None when it has none."""
    found = await rows(
        "SELECT id FROM images WHERE article_id = {} AND role = 'look' AND position = {}",
        article_id,
        position,
    )
    return int(found[0]["id"]) if found else None


async def live_tile_rows(image_ids: list[int]) -> dict[int, dict[str, Any]]:
    """``IMAGE_COLUMNS`` with their show's title, season, kind and brand, by id, of those of
    these images whose article is published and live."""
    if not image_ids:
        return {}
    found = await rows(
        f"SELECT {IMAGE_COLUMNS}, a.title, a.season, a.kind, COALESCE(b.uid, '') AS brand_uid,"
        " COALESCE(b.name, '') AS brand_name FROM images i"
        " JOIN articles a ON a.id = i.article_id LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE i.id IN ({marks(len(image_ids))}) AND {LIVE}",
        *image_ids,
    )
    return {int(row["id"]): row for row in found}


async def filtered_image_ids(filters: ShowFilters, cap: int) -> list[int]:
    """Ids of the images of published shows under ``filters``, newest first, at most ``cap``."""
    clauses, args = where(filters)
    found = await rows(
        "SELECT i.id FROM images i JOIN articles a ON a.id = i.article_id"
        f" WHERE {LIVE}{clauses} ORDER BY i.id DESC LIMIT {{}}",
        *args,
        cap,
    )
    return [int(row["id"]) for row in found]
