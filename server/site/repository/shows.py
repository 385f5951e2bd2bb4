"""SQL of published shows: a filtered page of cards newest first by keyset, and one show.

"Newest" is the show date (ISO ``YYYY-MM-DD``), then the id; shows without a date come
last. A page continues below its last show's (date, id), so paging stays one index range
read however deep a visitor goes.
"""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows
from rk.server.site.repository.images import SHOW_ORDER
from rk.server.site.repository.where import where
from rk.server.site.show_filters import ShowFilters

NAMES = (
    "a.id, a.title, a.season, a.city, a.date, a.source, a.kind, a.updated_at,"
    " COALESCE(b.uid, '') AS brand_uid, COALESCE(b.name, '') AS brand_name"
)
"""An article's own names and its brand's (alias ``a``, brand ``b``)."""
CARDS = (
    f"SELECT {NAMES}, (SELECT COUNT(*) FROM images i WHERE i.article_id = a.id) AS images,"
    f" (SELECT i.id FROM images i WHERE i.article_id = a.id ORDER BY {SHOW_ORDER} LIMIT 1)"
    " AS cover_id FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
)
"""One card per article: its names, image count and cover (first look, else first detail)."""
SHOW = (
    f"SELECT {NAMES}, a.url, a.designer, a.author"
    " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
)
"""One show's names, source link and credits."""


async def show_date(article_id: int) -> str | None:
    """The date of article ``article_id`` (a paging cursor's anchor); None when there is none."""
    found = await rows("SELECT date FROM articles WHERE id = {}", article_id)
    return str(found[0]["date"]) if found else None


async def card_rows(
    filters: ShowFilters, limit: int, before: tuple[str, int] | None = None
) -> list[dict[str, Any]]:
    """Up to ``limit`` ``CARDS`` rows of published shows matching ``filters``, newest first,
    below the ``(date, id)`` of ``before`` when given."""
    conditions, args = where(filters)
    if before is not None:
        date, article_id = before
        conditions += " AND (a.date < {} OR (a.date = {} AND a.id < {}))"
        args += [date, date, article_id]
    return await rows(
        f"{CARDS} WHERE {LIVE}{conditions} ORDER BY a.date DESC, a.id DESC LIMIT {{}}",
        *args,
        limit,
    )


async def live_show_row(article_id: int) -> dict[str, Any] | None:
    """The ``SHOW`` row of a published, live show; None otherwise."""
    found = await rows(f"{SHOW} WHERE a.id = {{}} AND {LIVE}", article_id)
    return found[0] if found else None


async def card_rows_by_id(article_ids: list[int]) -> dict[int, dict[str, Any]]:
    """``CARDS`` rows of those of these articles that are published and live, by id."""
    if not article_ids:
        return {}
    found = await rows(
        f"{CARDS} WHERE {LIVE} AND a.id IN ({marks(len(article_ids))})", *article_ids
    )
    return {int(row["id"]): row for row in found}
