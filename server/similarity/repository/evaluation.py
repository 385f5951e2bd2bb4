"""``rk eval``'s SQL: the embedding spaces the archive holds, and which image ids exist."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import marks, rows

CHUNK = 500


async def embedding_spaces() -> dict[str, int]:
    """Each model with vectors in ``image_embeddings``, and how many it has."""
    found = await rows(
        "SELECT model, COUNT(*) AS n FROM image_embeddings GROUP BY model ORDER BY model"
    )
    return {str(row["model"]): int(row["n"]) for row in found}


async def existing_images(image_ids: list[int]) -> set[int]:
    """Those of ``image_ids`` that name a stored image row."""
    seen: set[int] = set()
    for start in range(0, len(image_ids), CHUNK):
        chunk = image_ids[start : start + CHUNK]
        found = await rows(f"SELECT id FROM images WHERE id IN ({marks(len(chunk))})", *chunk)
        seen.update(int(row["id"]) for row in found)
    return seen
