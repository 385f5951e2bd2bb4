"""The console's lists of articles: tabs by status, keyset pages, a brand's newest ones.

Pages go newest first by id and continue with ``before=<last id>`` (keyset, never
OFFSET), so a deep page costs what the first one does. Every query is engine-neutral
(``public_sql.rows``); covers and image counts are read for the listed page only. The
review page's reads are ``admin_review``'s.
"""

from __future__ import annotations

import time
from typing import Any, Literal, cast, get_args

from msgspec import Struct

from rk.core.storage import Storage
from rk.server.moderation import TAB_COUNTS as COUNTS
from rk.server.moderation import visible_status
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.http.errors import ApiError
from rk.server.site import Picture, picture

Tab = Literal["pending", "published", "rejected", "deleted"]
TABS: tuple[str, ...] = get_args(Tab)
WHERE = {
    "pending": "a.status = 'pending' AND a.deleted_at = 0",
    "published": "a.status = 'published' AND a.deleted_at = 0",
    "rejected": "a.status = 'rejected' AND a.deleted_at = 0",
    "deleted": "a.deleted_at > 0",
}
COUNTS_TTL_S = 5.0
ARTICLE_COLUMNS = (
    "a.id, a.title, a.season, a.city, a.date, a.source, a.kind, a.status, a.deleted_at,"
    " a.created_at, a.updated_at, a.show_key, a.url, a.designer, a.author, a.brand_id,"
    " COALESCE(b.name, '') AS brand, COALESCE(b.uid, '') AS brand_uid"
)


class ArticleRow(Struct, frozen=True, kw_only=True):
    """One row of an articles tab."""

    id: int
    title: str
    brand: str
    brand_uid: str
    season: str
    city: str
    source: str
    kind: str
    status: str
    images: int
    created_at: int
    updated_at: int
    cover: Picture | None


class ArticlePage(Struct, frozen=True, kw_only=True):
    """One page of a tab and the keyset cursor of the next (None on the last page)."""

    tab: str
    items: list[ArticleRow]
    next_before: int | None
    counts: dict[str, int]


def check_tab(tab: str) -> Tab:
    """``tab`` if it is one of TABS, else ApiError."""
    if tab not in TABS:
        raise ApiError(f"tab must be one of {', '.join(TABS)}, not {tab!r}")
    return cast(Tab, tab)


async def tab_counts(brand_id: int = 0) -> dict[str, int]:
    """How many articles each tab holds (optionally of one brand).

    Counted afresh at most every ``COUNTS_TTL_S`` per process (four counts over a large
    archive cost more than the page itself); a moderation decision in this process forgets
    them at once, one in another process shows within the TTL.
    """
    cached = COUNTS.get(brand_id)
    if cached is not None and time.monotonic() - cached[0] < COUNTS_TTL_S:
        return dict(cached[1])
    counts: dict[str, int] = {}
    for tab in TABS:
        where = WHERE[tab] + (" AND a.brand_id = {}" if brand_id else "")
        [row] = await rows(
            f"SELECT COUNT(*) AS n FROM articles a WHERE {where}", *([brand_id] if brand_id else [])
        )
        counts[tab] = int(row["n"])
    if len(COUNTS) > 1000:
        COUNTS.clear()
    COUNTS[brand_id] = (time.monotonic(), counts)
    return dict(counts)


LISTED_IMAGE = (
    "i.id AS cover_id, i.article_id AS cover_article_id, i.role AS cover_role,"
    " i.position AS cover_position, i.key AS cover_key, i.thumb_key AS cover_thumb_key,"
    " i.width AS cover_width, i.height AS cover_height, i.look_number AS cover_look_number,"
    " i.model_name AS cover_model_name"
)
"""``IMAGE_COLUMNS`` of a listed row's cover, prefixed so they do not clash with the article's."""


COVER_NAMES = tuple(
    (f"cover_{name}", name)
    for name in (
        "id",
        "article_id",
        "role",
        "position",
        "key",
        "thumb_key",
        "width",
        "height",
        "look_number",
        "model_name",
    )
)
"""``LISTED_IMAGE``'s column names and the ``IMAGE_COLUMNS`` names they stand for."""


def cover_row(row: dict[str, Any]) -> dict[str, Any] | None:
    """The cover image columns of a listed row under ``IMAGE_COLUMNS`` names (None: no image)."""
    if row["cover_id"] is None:
        return None
    return {name: row[listed] for listed, name in COVER_NAMES}


async def _fetch(
    storage: Storage | None, where: list[str], args: list[object], limit: int
) -> tuple[list[ArticleRow], bool]:
    """Article rows matching ``where`` newest first, and whether more follow.

    One statement: the page's rows with their image count and the id of their cover (the
    first stored image) in an inner query, then the cover's columns joined to those rows.
    """
    found = await rows(
        f"SELECT p.*, {LISTED_IMAGE} FROM (SELECT {ARTICLE_COLUMNS},"
        " (SELECT COUNT(*) FROM images c WHERE c.article_id = a.id) AS images,"
        " (SELECT MIN(m.id) FROM images m WHERE m.article_id = a.id) AS first_image"
        " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE {' AND '.join(where)} ORDER BY a.id DESC LIMIT {{}}) p"
        " LEFT JOIN images i ON i.id = p.first_image ORDER BY p.id DESC",
        *args,
        limit + 1,
    )
    more, found = len(found) > limit, found[:limit]
    items = []
    for row in found:
        image = cover_row(row) if storage is not None else None
        cover = None
        if image is not None and storage is not None:
            cover = await picture(
                storage, image, str(row["brand"]), str(row["season"]), str(row["title"])
            )
        items.append(
            ArticleRow(
                id=int(row["id"]),
                title=str(row["title"]),
                brand=str(row["brand"]),
                brand_uid=str(row["brand_uid"]),
                season=str(row["season"]),
                city=str(row["city"]),
                source=str(row["source"]),
                kind=str(row["kind"]),
                status=visible_status(str(row["status"]), int(row["deleted_at"])),
                images=int(row["images"]),
                created_at=int(row["created_at"]),
                updated_at=int(row["updated_at"]),
                cover=cover,
            )
        )
    return items, more


async def list_articles(
    storage: Storage | None,
    tab: str,
    *,
    brand_id: int = 0,
    before: int | None = None,
    limit: int = 50,
) -> ArticlePage:
    """One page of a tab, newest first, continuing below ``before`` when given.

    Without a storage (the shell) rows have no cover picture.
    """
    checked = check_tab(tab)
    if limit < 1 or limit > 500:
        raise ApiError(f"limit must be 1 to 500, not {limit}")
    where: list[str] = [WHERE[checked]]
    args: list[object] = []
    if brand_id:
        where.append("a.brand_id = {}")
        args.append(brand_id)
    if before is not None:
        where.append("a.id < {}")
        args.append(before)
    items, more = await _fetch(storage, where, args, limit)
    return ArticlePage(
        tab=checked,
        items=items,
        next_before=items[-1].id if more and items else None,
        counts=await tab_counts(brand_id),
    )


async def recent_articles(storage: Storage, brand_id: int, limit: int = 12) -> list[ArticleRow]:
    """A brand's newest articles of any status but deleted."""
    items, _ = await _fetch(storage, ["a.deleted_at = 0", "a.brand_id = {}"], [brand_id], limit)
    return items
