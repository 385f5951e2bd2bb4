"""Seeding articles and images straight through the tables, as the ingest worker would."""

from __future__ import annotations

import hashlib

from rk.server.platform.db.tables import Article, Image


async def article(
    show_key: str, *, kind: str = "runway", status: str = "published", deleted: bool = False
) -> int:
    """Insert one article; its id."""
    row = Article(
        source="vogue" if kind == "runway" else "theimpression",
        show_key=show_key,
        kind=kind,
        title=show_key,
        status=status,
        deleted_at=1 if deleted else 0,
    )
    await row.save()
    return int(row.id)


async def image(
    article_id: int, position: int, *, kind: str = "runway", thumb: bool = False
) -> int:
    """Insert one look image whose key names fake bytes; its id."""
    sha1 = hashlib.sha1(f"{article_id}/{position}".encode()).hexdigest()
    row = Image(
        article_id=article_id,
        role="look",
        position=position,
        kind=kind,
        key=f"{kind}/{sha1}.jpg",
        thumb_key=f"thumb/{sha1}.jpg" if thumb else "",
        sha1=sha1,
    )
    await row.save()
    return int(row.id)


async def images(article_id: int, count: int, *, kind: str = "runway") -> list[int]:
    """Insert ``count`` look images; their ids in order."""
    return [await image(article_id, n, kind=kind) for n in range(1, count + 1)]
