"""SQL of the console's article lists: tab filters, counts and keyset pages with covers."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows

WHERE = {
    "pending": "a.status = 'pending' AND a.deleted_at = 0",
    "published": "a.status = 'published' AND a.deleted_at = 0",
    "rejected": "a.status = 'rejected' AND a.deleted_at = 0",
    "deleted": "a.deleted_at > 0",
}
"""Each tab's articles; None (a brand's recent articles) is every article not deleted."""
NOT_DELETED = "a.deleted_at = 0"
ARTICLE_COLUMNS = (
    "a.id, a.title, a.season, a.city, a.date, a.source, a.kind, a.status, a.deleted_at,"
    " a.created_at, a.updated_at, a.show_key, a.url, a.designer, a.author, a.brand_id,"
    " COALESCE(b.name, '') AS brand, COALESCE(b.uid, '') AS brand_uid"
)
LISTED_IMAGE = (
    "i.id AS cover_id, i.article_id AS cover_article_id, i.role AS cover_role,"
    " i.position AS cover_position, i.key AS cover_key, i.thumb_key AS cover_thumb_key,"
    " i.width AS cover_width, i.height AS cover_height, i.look_number AS cover_look_number,"
    " i.model_name AS cover_model_name"
)
"""``IMAGE_COLUMNS`` of a listed row's cover, prefixed so they do not clash with the article's."""


async def count_in_tab(tab: str, brand_id: int = 0) -> int:
    """How many articles the tab holds (of one brand when ``brand_id``)."""
    where = WHERE[tab] + (" AND a.brand_id = {}" if brand_id else "")
    [row] = await rows(
        f"SELECT COUNT(*) AS n FROM articles a WHERE {where}", *([brand_id] if brand_id else [])
    )
    return int(row["n"])


async def listed_rows(
    tab: str | None, brand_id: int, before: int | None, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` articles of ``tab`` newest first, below ``before`` when given.

    One statement: the page's rows with their image count and the id of their cover (the
    first stored image) in an inner query, then the cover's columns joined to those rows.
    """
    where: list[str] = [WHERE[tab] if tab is not None else NOT_DELETED]
    args: list[object] = []
    if brand_id:
        where.append("a.brand_id = {}")
        args.append(brand_id)
    if before is not None:
        where.append("a.id < {}")
        args.append(before)
    return await rows(
        f"SELECT p.*, {LISTED_IMAGE} FROM (SELECT {ARTICLE_COLUMNS},"
        " (SELECT COUNT(*) FROM images c WHERE c.article_id = a.id) AS images,"
        " (SELECT MIN(m.id) FROM images m WHERE m.article_id = a.id) AS first_image"
        " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE {' AND '.join(where)} ORDER BY a.id DESC LIMIT {{}}) p"
        " LEFT JOIN images i ON i.id = p.first_image ORDER BY p.id DESC",
        *args,
        limit,
    )
