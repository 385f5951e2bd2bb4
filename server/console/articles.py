"""The console's lists of articles: tabs by status, keyset pages, a brand's newest ones.

Pages go newest first by id and continue with ``before=<last id>`` (keyset, never
OFFSET), so a deep page costs what the first one does. Every query is engine-neutral
(``repository.articles``); covers and image counts are read for the listed page only. The
review page's reads are ``admin_review``'s.
"""

from __future__ import annotations

from typing import Any, Literal, cast, get_args

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.console.repository.articles import count_in_tab, listed_rows
from rk.server.console.repository.review import article_rows
from rk.server.moderation import TAB_COUNTS, visible_status
from rk.server.platform.http.errors import ApiError
from rk.server.site import Picture, picture

Tab = Literal["pending", "published", "rejected", "deleted"]
TABS: tuple[str, ...] = get_args(Tab)


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

    Counted afresh at most every ``TAB_COUNTS.ttl_s`` per process (four counts over a large
    archive cost more than the page itself); a moderation decision in this process forgets
    them at once, one in another process shows within the TTL.
    """

    async def count() -> dict[str, int]:
        return {tab: await count_in_tab(tab, brand_id) for tab in TABS}

    return dict(await TAB_COUNTS.get(brand_id, count))


TEXT_FIELDS = ("title", "brand", "brand_uid", "season", "city", "source", "kind")
NUMBER_FIELDS = ("id", "created_at", "updated_at")


def article_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The fields every console view of an article takes from its ``ARTICLE_COLUMNS`` row."""
    return {
        **{name: str(row[name]) for name in TEXT_FIELDS},
        **{name: int(row[name]) for name in NUMBER_FIELDS},
        "status": visible_status(str(row["status"]), int(row["deleted_at"])),
    }


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
"""``LISTED_IMAGE``'s column names (the repository's) and the ``IMAGE_COLUMNS`` names."""


def cover_row(row: dict[str, Any]) -> dict[str, Any] | None:
    """The cover image columns of a listed row under ``IMAGE_COLUMNS`` names (None: no image)."""
    if row["cover_id"] is None:
        return None
    return {name: row[listed] for listed, name in COVER_NAMES}


async def _fetch(
    storage: Storage | None, tab: Tab | None, brand_id: int, before: int | None, limit: int
) -> tuple[list[ArticleRow], bool]:
    """Article rows of ``tab`` (None: not deleted) newest first, and whether more follow."""
    found = await listed_rows(tab, brand_id, before, limit + 1)
    more, found = len(found) > limit, found[:limit]
    items = []
    for row in found:
        image = cover_row(row) if storage is not None else None
        cover = None
        if image is not None and storage is not None:
            cover = await picture(
                storage, image, str(row["brand"]), str(row["season"]), str(row["title"])
            )
        items.append(ArticleRow(**article_fields(row), images=int(row["images"]), cover=cover))
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
    items, more = await _fetch(storage, checked, brand_id, before, limit)
    return ArticlePage(
        tab=checked,
        items=items,
        next_before=items[-1].id if more and items else None,
        counts=await tab_counts(brand_id),
    )


async def recent_articles(storage: Storage, brand_id: int, limit: int = 12) -> list[ArticleRow]:
    """A brand's newest articles of any status but deleted."""
    items, _ = await _fetch(storage, None, brand_id, None, limit)
    return items


def shown_title(brand: str, season: str, title: str) -> str:
    """How the console names an article in a sentence: brand and season, else its title."""
    return f"{brand} {season}".strip() if brand else title


async def titles_of(ids: list[int]) -> dict[int, str]:
    """The articles of ``ids`` that exist, each with its ``shown_title``."""
    found = await article_rows(ids) if ids else []
    return {
        int(row["id"]): shown_title(str(row["brand"]), str(row["season"]), str(row["title"]))
        for row in found
    }
