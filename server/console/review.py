"""The console's review page: one article with every look and detail, its audit, its
possible duplicates, and the audit log.

Reads only: moderation decisions are ``moderation.py``'s. The article's own row, the next
pending id and its images come in one statement (``review``); the audit and the duplicates
are read only when there are some.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.storage import Storage
from rk.server.console.articles import ARTICLE_COLUMNS, LISTED_IMAGE, WHERE, cover_row
from rk.server.moderation import UnknownArticle, visible_status
from rk.server.platform.db.sql_rows import marks, rows
from rk.server.site import IMAGE_COLUMNS, Picture, picture


class AuditEntry(Struct, frozen=True, kw_only=True):
    """One status change: who, when, from what to what, and how."""

    id: int
    article_id: int
    article_title: str
    actor: str
    old_status: str
    new_status: str
    via: str
    at: int


class Duplicate(Struct, frozen=True, kw_only=True):
    """Another article with near-identical images: how many, and the best score."""

    article_id: int
    title: str
    brand: str
    status: str
    matches: int
    best: float
    cover: Picture | None


class ArticleReview(Struct, frozen=True, kw_only=True):
    """Everything the review page shows for one article."""

    id: int
    title: str
    brand: str
    brand_uid: str
    brand_id: int
    season: str
    city: str
    date: str
    source: str
    kind: str
    show_key: str
    url: str
    designer: str
    author: str
    status: str
    created_at: int
    updated_at: int
    looks: list[Picture]
    details: list[Picture]
    audit: list[AuditEntry]
    duplicates: list[Duplicate]
    next_id: int | None
    """The next article to review (``next_pending``), read with the article."""


async def covers(storage: Storage, items: list[dict[str, Any]]) -> dict[int, Picture]:
    """The first stored look (else any image) of each article row, as a Picture."""
    if not items:
        return {}
    ids = [int(item["id"]) for item in items]
    found = await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i WHERE i.id IN (SELECT MIN(id) FROM images"
        f" WHERE article_id IN ({marks(len(ids))}) GROUP BY article_id)",
        *ids,
    )
    names = {int(item["id"]): item for item in items}
    result: dict[int, Picture] = {}
    for row in found:
        item = names[int(row["article_id"])]
        result[int(row["article_id"])] = await picture(
            storage, row, str(item["brand"]), str(item["season"]), str(item["title"])
        )
    return result


def _audit(row: dict[str, Any]) -> AuditEntry:
    return AuditEntry(
        id=int(row["id"]),
        article_id=int(row["article_id"]),
        article_title=str(row.get("title") or ""),
        actor=str(row["actor"]),
        old_status=str(row["old_status"]),
        new_status=str(row["new_status"]),
        via=str(row["via"]),
        at=int(row["at"]),
    )


async def article_audit(article_id: int) -> list[AuditEntry]:
    """The article's status changes, newest first."""
    found = await rows(
        "SELECT id, article_id, actor, old_status, new_status, via, at FROM moderation_audit"
        " WHERE article_id = {} ORDER BY id DESC LIMIT 200",
        article_id,
    )
    return [_audit(row) for row in found]


async def audit_log(
    before: int | None = None, limit: int = 100
) -> tuple[list[AuditEntry], int | None]:
    """Every status change, newest first, a keyset page at a time; the next cursor."""
    where, args = ("WHERE m.id < {}", [before]) if before is not None else ("", [])
    found = await rows(
        "SELECT m.id, m.article_id, m.actor, m.old_status, m.new_status, m.via, m.at,"
        " COALESCE(a.title, '') AS title FROM moderation_audit m"
        f" LEFT JOIN articles a ON a.id = m.article_id {where} ORDER BY m.id DESC LIMIT {{}}",
        *args,
        limit + 1,
    )
    entries = [_audit(row) for row in found[:limit]]
    return entries, (entries[-1].id if len(found) > limit and entries else None)


async def duplicates(storage: Storage, article_id: int, min_score: float) -> list[Duplicate]:
    """Other articles holding images whose neighbour score with this one's is ≥ ``min_score``."""
    found = await rows(
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
    if not found:
        return []
    ids = [int(row["article_id"]) for row in found]
    articles = {
        int(row["id"]): row
        for row in await rows(
            f"SELECT {ARTICLE_COLUMNS} FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
            f" WHERE a.id IN ({marks(len(ids))})",
            *ids,
        )
    }
    pictures = await covers(storage, list(articles.values()))
    return [
        Duplicate(
            article_id=int(row["article_id"]),
            title=str(articles[int(row["article_id"])]["title"]),
            brand=str(articles[int(row["article_id"])]["brand"]),
            status=visible_status(
                str(articles[int(row["article_id"])]["status"]),
                int(articles[int(row["article_id"])]["deleted_at"]),
            ),
            matches=int(row["matches"]),
            best=float(row["best"]),
            cover=pictures.get(int(row["article_id"])),
        )
        for row in found
        if int(row["article_id"]) in articles
    ]


async def review(storage: Storage, article_id: int, min_score: float) -> ArticleReview:
    """The article with every look and detail in order, its audit and possible duplicates.

    One statement reads the article, the next pending one, whether it has audit entries or
    neighbours at ``min_score``, and its images (one row each; one row of NULLs when it has
    none); the audit and the duplicates are read only when there are some.
    """
    found = await rows(
        f"SELECT p.*, {LISTED_IMAGE} FROM (SELECT {ARTICLE_COLUMNS},"
        " (SELECT n.id FROM articles n WHERE n.status = 'pending' AND n.deleted_at = 0"
        " AND n.id < a.id ORDER BY n.id DESC LIMIT 1) AS next_id,"
        " EXISTS (SELECT 1 FROM moderation_audit m WHERE m.article_id = a.id) AS audited,"
        " EXISTS (SELECT 1 FROM images d JOIN image_neighbors n ON n.image_id = d.id"
        " WHERE d.article_id = a.id AND n.score >= {}) AS neighboured"
        " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id WHERE a.id = {} LIMIT 1) p"
        " LEFT JOIN images i ON i.article_id = p.id ORDER BY i.role DESC, i.position, i.id",
        min_score,
        article_id,
    )
    if not found:
        raise UnknownArticle(f"article {article_id} does not exist")
    row = found[0]
    brand, season, title = str(row["brand"]), str(row["season"]), str(row["title"])
    images = [image for image in map(cover_row, found) if image is not None]
    pictures = [await picture(storage, image, brand, season, title) for image in images]
    return ArticleReview(
        id=article_id,
        title=title,
        brand=brand,
        brand_uid=str(row["brand_uid"]),
        brand_id=int(row["brand_id"]),
        season=season,
        city=str(row["city"]),
        date=str(row["date"]),
        source=str(row["source"]),
        kind=str(row["kind"]),
        show_key=str(row["show_key"]),
        url=str(row["url"]),
        designer=str(row["designer"]),
        author=str(row["author"]),
        status=visible_status(str(row["status"]), int(row["deleted_at"])),
        created_at=int(row["created_at"]),
        updated_at=int(row["updated_at"]),
        looks=[p for p in pictures if p.role == "look"],
        details=[p for p in pictures if p.role != "look"],
        audit=await article_audit(article_id) if row["audited"] else [],
        duplicates=await duplicates(storage, article_id, min_score) if row["neighboured"] else [],
        next_id=None if row["next_id"] is None else int(row["next_id"]),
    )


async def next_pending(after_id: int) -> int | None:
    """The next article to review after ``after_id`` (the next older pending one)."""
    found = await rows(
        f"SELECT a.id FROM articles a WHERE {WHERE['pending']} AND a.id < {{}}"
        " ORDER BY a.id DESC LIMIT 1",
        after_id,
    )
    return int(found[0]["id"]) if found else None
