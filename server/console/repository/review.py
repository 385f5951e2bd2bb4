"""SQL of the review page: the article with its images, covers, audit and duplicates."""

from __future__ import annotations

from typing import Any

from rk.server.console.repository.articles import ARTICLE_COLUMNS, LISTED_IMAGE, WHERE
from rk.server.console.repository.where import Where, page_rows
from rk.server.platform.db.sql_rows import marks, rows
from rk.server.site import IMAGE_COLUMNS

AUDIT_COLUMNS = (
    "m.id, m.article_id, m.actor, m.old_status, m.new_status, m.via, m.at, m.reason, m.undoes"
)
PENDING_ID = "SELECT MIN(n.id) FROM articles n WHERE n.status = 'pending' AND n.deleted_at = 0"


def next_pending_sql(than: str) -> str:
    """The next pending article after the id ``than`` (a column, or ``{}``): the oldest newer
    one, else the oldest of all. The review queue goes oldest first and wraps around, so
    "next" finds a pending article whenever another one exists."""
    return f"COALESCE(({PENDING_ID} AND n.id > {than}), ({PENDING_ID} AND n.id < {than}))"


async def first_image_rows(article_ids: list[int]) -> list[dict[str, Any]]:
    """The first stored image of each article (``IMAGE_COLUMNS``)."""
    return await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i WHERE i.id IN (SELECT MIN(id) FROM images"
        f" WHERE article_id IN ({marks(len(article_ids))}) GROUP BY article_id)",
        *article_ids,
    )


async def audit_rows(article_id: int) -> list[dict[str, Any]]:
    """The article's status changes, newest first (at most 200)."""
    return await rows(
        f"SELECT {AUDIT_COLUMNS} FROM moderation_audit m"
        " WHERE m.article_id = {} ORDER BY m.id DESC LIMIT 200",
        article_id,
    )


async def audit_log_rows(before: int | None, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` status changes newest first, below ``before``, with their title."""
    select = (
        f"SELECT {AUDIT_COLUMNS}, COALESCE(a.title, '') AS title FROM moderation_audit m"
        " LEFT JOIN articles a ON a.id = m.article_id"
    )
    where = Where().add("m.id < {}", before, when=before is not None)
    return await page_rows(select, where, "m.id DESC", limit)


async def duplicate_rows(article_id: int, min_score: float) -> list[dict[str, Any]]:
    """Other articles with images that neighbour this one's at ``min_score`` (at most 12)."""
    return await rows(
        "SELECT o.article_id AS article_id, COUNT(DISTINCT n.image_id) AS matches,"
        " MAX(n.score) AS best FROM images i"
        " JOIN image_neighbors n ON n.image_id = i.id"
        " JOIN images o ON o.id = n.neighbor_id"
        " WHERE i.article_id = {} AND o.article_id <> {} AND n.score >= {}"
        " GROUP BY o.article_id ORDER BY matches DESC, best DESC LIMIT 12",
        article_id,
        article_id,
        min_score,
    )


async def article_rows(ids: list[int]) -> list[dict[str, Any]]:
    """The articles of ``ids`` (``ARTICLE_COLUMNS``)."""
    return await rows(
        f"SELECT {ARTICLE_COLUMNS} FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE a.id IN ({marks(len(ids))})",
        *ids,
    )


async def review_rows(article_id: int, min_score: float) -> list[dict[str, Any]]:
    """The article, the next pending id, whether it has audit entries or neighbours at
    ``min_score``, and its images in order: one row each, one row of NULLs when it has none."""
    return await rows(
        f"SELECT p.*, {LISTED_IMAGE} FROM (SELECT {ARTICLE_COLUMNS},"
        f" {next_pending_sql('a.id')} AS next_id,"
        " EXISTS (SELECT 1 FROM moderation_audit m WHERE m.article_id = a.id) AS audited,"
        " EXISTS (SELECT 1 FROM images d JOIN image_neighbors n ON n.image_id = d.id"
        " WHERE d.article_id = a.id AND n.score >= {}) AS neighboured"
        " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id WHERE a.id = {} LIMIT 1) p"
        " LEFT JOIN images i ON i.article_id = p.id ORDER BY i.role DESC, i.position, i.id",
        min_score,
        article_id,
    )


async def next_pending_id(after_id: int) -> int | None:
    """The next pending article after ``after_id`` (``next_pending_sql``; None: no other)."""
    found = await rows(f"SELECT {next_pending_sql('{}')} AS id", after_id, after_id)
    return int(found[0]["id"]) if found and found[0]["id"] is not None else None


async def oldest_pending_id() -> int | None:
    """The pending article that has waited longest (None: nothing waits)."""
    found = await rows(f"SELECT MIN(a.id) AS id FROM articles a WHERE {WHERE['pending']}")
    return int(found[0]["id"]) if found and found[0]["id"] is not None else None
