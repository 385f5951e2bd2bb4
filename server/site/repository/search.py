"""SQL of public search: the stored vector of a published image ("more like this")."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import LIVE, rows


async def live_vector(image_id: int, model: str) -> bytes | None:
    """The stored ``model`` vector (little-endian float32) of the image while its article is
    published and live; None when it has none or is not public."""
    found = await rows(
        "SELECT e.vector FROM image_embeddings e JOIN images i ON i.id = e.image_id"
        f" JOIN articles a ON a.id = i.article_id WHERE e.image_id = {{}} AND e.model = {{}}"
        f" AND {LIVE}",
        image_id,
        model,
    )
    return bytes(found[0]["vector"]) if found else None
