"""Ingest's reads and writes: an article by its show, creating or overwriting one with its
image rows, and what image rows already know about a stored object."""

from __future__ import annotations

from typing import Any

from rk.core.api.keys import image_object_keys
from rk.server.platform.db.sql_rows import engine
from rk.server.platform.db.tables import Article, Image
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.similarity import hold_vector_clock

INSERT_BATCH = 200


async def article_of_show(source: str, show_key: str) -> dict[str, Any] | None:
    """The ``id``, ``status`` and ``deleted_at`` of the article of show ``(source, show_key)``."""
    return (
        await Article.select(Article.id, Article.status, Article.deleted_at)
        .where((Article.source == source) & (Article.show_key == show_key))
        .first()
    )


async def create_article(
    source: str, show_key: str, now: int, values: dict[str, Any], images: list[dict[str, Any]]
) -> int:
    """Insert the show's article (``values`` by column) and its image rows; the article id.

    A show already archived raises the engine's unique violation.
    """
    row = Article(source=source, show_key=show_key, created_at=now, **values)
    async with write_transaction():
        inserted = await Article.insert(row).returning(Article.id)
        article_id = int(inserted[0]["id"])
        await _insert_images(article_id, images)
    return article_id


async def overwrite_rejected_article(
    article_id: int, values: dict[str, Any], images: list[dict[str, Any]]
) -> list[str] | None:
    """Give a rejected, live article ``values`` and replace its image rows by ``images``;
    the keys the old rows used (renditions included), or None (nothing written) when it is
    no longer rejected."""
    async with write_transaction():
        # deleting the old images deletes their vectors, which takes the vector clock:
        # take it first, as vector writers do, so the two never wait on each other
        await hold_vector_clock(engine())
        old = await Image.select(Image.key, Image.thumb_key).where(Image.article_id == article_id)
        changed = (
            await Article.update(**values)
            .where((Article.id == article_id) & (Article.status == "rejected"))
            .where(Article.deleted_at == 0)
            .returning(Article.id)
        )
        if not changed:
            return None
        await Image.delete().where(Image.article_id == article_id)
        await _insert_images(article_id, images)
    return [k for row in old for k in image_object_keys(row["key"], row["thumb_key"])]


async def _insert_images(article_id: int, images: list[dict[str, Any]]) -> None:
    """Insert the image rows of ``article_id``, ``INSERT_BATCH`` at a time."""
    rows = [Image(article_id=article_id, **image) for image in images]
    for start in range(0, len(rows), INSERT_BATCH):
        await Image.insert(*rows[start : start + INSERT_BATCH])


async def image_ids_by_slot(article_id: int) -> dict[tuple[str, int], int]:
    """The ids of ``article_id``'s image rows by ``(role, position)``."""
    found = await Image.select(Image.id, Image.role, Image.position).where(
        Image.article_id == article_id
    )
    return {(str(row["role"]), int(row["position"])): int(row["id"]) for row in found}


async def thumbnail_in_use(key: str) -> bool:
    """Whether an image row uses ``key`` as its thumbnail."""
    return await Image.select(Image.id).where(Image.thumb_key == key).first() is not None


async def known_original_size(key: str) -> tuple[int, int] | None:
    """The pixel size an image row with original ``key`` records, if any does."""
    known = (
        await Image.select(Image.width, Image.height)
        .where((Image.key == key) & (Image.width > 0) & (Image.height > 0))
        .first()
    )
    return None if known is None else (int(known["width"]), int(known["height"]))
