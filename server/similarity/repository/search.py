"""Public search's SQL: published images by id, and the stored neighbours of one."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows


async def published_images(image_ids: list[int]) -> list[dict[str, Any]]:
    """The rows (id, article_id, kind, role, position, key, thumb_key) of those of these
    images that belong to published, live articles."""
    if not image_ids:
        return []
    return await rows(
        "SELECT i.id, i.article_id, i.kind, i.role, i.position, i.key, i.thumb_key"
        f" FROM images i JOIN articles a ON a.id = i.article_id"
        f" WHERE i.id IN ({marks(len(image_ids))}) AND {LIVE}",
        *image_ids,
    )


async def is_published_image(image_id: int) -> bool:
    """Whether the image belongs to a published, live article."""
    found = await rows(
        f"SELECT i.id FROM images i JOIN articles a ON a.id = i.article_id"
        f" WHERE i.id = {{}} AND {LIVE}",
        image_id,
    )
    return bool(found)


async def published_neighbours(image_id: int, model: str, k: int) -> list[tuple[int, float]]:
    """The image's first ``k`` stored neighbours that are published, best first."""
    found = await rows(
        "SELECT n.neighbor_id, n.score FROM image_neighbors n"
        " JOIN images i ON i.id = n.neighbor_id JOIN articles a ON a.id = i.article_id"
        f" WHERE n.model = {{}} AND n.image_id = {{}} AND {LIVE}"
        " ORDER BY n.rank LIMIT {}",
        model,
        image_id,
        k,
    )
    return [(int(row["neighbor_id"]), float(row["score"])) for row in found]
