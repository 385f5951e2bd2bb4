"""Media's reads of images and articles: published uses of a key, an article's objects,
and which requested upload keys the archive already holds."""

from __future__ import annotations

from typing import Any

from rk.core.api.keys import THUMB_KEY, image_object_keys, rendition_originals
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import Article, Image
from rk.server.similarity import PUBLISHED

USED_BY_PUBLISHED = (
    "SELECT 1 AS hit FROM images i JOIN articles a ON a.id = i.article_id"
    " WHERE i.{column} = {{}} AND {published} LIMIT 1"
)
QUERIES = {
    column: USED_BY_PUBLISHED.format(column=column, published=PUBLISHED)
    for column in ("key", "thumb_key")
}


def query_for(key: str) -> str:
    """The statement that finds a published use of ``key`` (a thumbnail or a content key)."""
    return QUERIES["thumb_key" if THUMB_KEY.match(key) else "key"]


async def used_by_published_article(key: str) -> bool:
    """Whether an image of a published, not deleted article uses ``key``: itself, or for a
    rendition its original (under either kind: one probe of ``images_key`` each)."""
    for used in rendition_originals(key) or [key]:
        if await rows(query_for(used), used):
            return True
    return False


async def article_deleted_at(article_id: int) -> int | None:
    """When the article was deleted (0: it is not); None when no article has this id."""
    row = await Article.select(Article.deleted_at).where(Article.id == article_id).first()
    return None if row is None else int(row["deleted_at"])


async def article_object_keys(article_id: int) -> list[str]:
    """The article's distinct object keys: each image's original, its thumbnail, then every
    rung its rendition ladder may have (whatever ``image_renditions`` records: a backfill
    stopped between storing rungs and recording them leaves rungs the row does not list)."""
    found = await Image.select(Image.key, Image.thumb_key).where(Image.article_id == article_id)
    return list(
        dict.fromkeys(k for row in found for k in image_object_keys(row["key"], row["thumb_key"]))
    )


async def images_with_keys(keys: list[str]) -> list[dict[str, Any]]:
    """The ``key`` and ``thumb_key`` of every image whose original is one of ``keys``."""
    return list(await Image.select(Image.key, Image.thumb_key).where(Image.key.is_in(keys)))
