"""The console's review page: one article with every look and detail, their tags, its
audit, its possible duplicates, and the audit log.

Reads only: moderation decisions are ``moderation.py``'s. The article's own row, the next
pending id and its images come in one statement (``review``); the audit and the duplicates
are read only when there are some.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.console.articles import article_fields, cover_row
from rk.server.console.repository.review import (
    article_rows,
    audit_log_rows,
    audit_rows,
    duplicate_rows,
    first_image_rows,
    next_pending_id,
    oldest_pending_id,
    review_rows,
)
from rk.server.moderation import UnknownArticle, visible_status
from rk.server.site import Picture, picture
from rk.server.tags import ImageTag, TagAudit, review_tags, tag_audit

REVIEW_TEXT = ("date", "show_key", "url", "designer", "author")
"""The article's columns only the review page shows (besides ``article_fields``)."""


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
    reason: str
    """Why it was rejected, as the moderator said ("" for other changes)."""
    undoes: int
    """The audit entry this one reversed (0: a decision of its own)."""


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
    tags: dict[int, list[ImageTag]] = {}
    """Each image's zero-shot tags, removed ones included (so they can be put back)."""
    tag_audit: list[TagAudit] = []
    """The moderators' decisions on this article's tags, newest first."""

    @property
    def rejection(self) -> AuditEntry | None:
        """The decision that rejected it, while it stays rejected (None otherwise)."""
        if self.status != "rejected":
            return None
        return next((entry for entry in self.audit if entry.new_status == "rejected"), None)


async def covers(storage: Storage, items: list[dict[str, Any]]) -> dict[int, Picture]:
    """The first stored look (else any image) of each article row, as a Picture."""
    if not items:
        return {}
    ids = [int(item["id"]) for item in items]
    found = await first_image_rows(ids)
    names = {int(item["id"]): item for item in items}
    result: dict[int, Picture] = {}
    for row in found:
        item = names[int(row["article_id"])]
        result[int(row["article_id"])] = await picture(
            storage, row, str(item["brand"]), str(item["season"]), str(item["title"])
        )
    return result


def _audit(row: dict[str, Any]) -> AuditEntry:
    """An audit row as an entry, typed by ``AuditEntry``'s fields (only the log reads a title)."""
    return msgspec.convert({**row, "article_title": row.get("title") or ""}, AuditEntry)


async def article_audit(article_id: int) -> list[AuditEntry]:
    """The article's status changes, newest first."""
    found = await audit_rows(article_id)
    return [_audit(row) for row in found]


async def audit_log(
    before: int | None = None, limit: int = 100
) -> tuple[list[AuditEntry], int | None]:
    """Every status change, newest first, a keyset page at a time; the next cursor."""
    found = await audit_log_rows(before, limit + 1)
    entries = [_audit(row) for row in found[:limit]]
    return entries, (entries[-1].id if len(found) > limit and entries else None)


async def duplicates(storage: Storage, article_id: int, min_score: float) -> list[Duplicate]:
    """Other articles holding images whose neighbour score with this one's is ≥ ``min_score``."""
    found = await duplicate_rows(article_id, min_score)
    if not found:
        return []
    ids = [int(row["article_id"]) for row in found]
    articles = {int(row["id"]): row for row in await article_rows(ids)}
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
    found = await review_rows(article_id, min_score)
    if not found:
        raise UnknownArticle(f"article {article_id} does not exist")
    row = found[0]
    brand, season, title = str(row["brand"]), str(row["season"]), str(row["title"])
    images = [image for image in map(cover_row, found) if image is not None]
    pictures = [await picture(storage, image, brand, season, title) for image in images]
    image_ids = [p.image_id for p in pictures]
    shown: dict[str, Any] = {name: str(row[name]) for name in REVIEW_TEXT}
    return ArticleReview(
        **article_fields(row),
        **shown,
        brand_id=int(row["brand_id"]),
        looks=[p for p in pictures if p.role == "look"],
        details=[p for p in pictures if p.role != "look"],
        audit=await article_audit(article_id) if row["audited"] else [],
        duplicates=await duplicates(storage, article_id, min_score) if row["neighboured"] else [],
        next_id=None if row["next_id"] is None else int(row["next_id"]),
        tags=await review_tags(image_ids),
        tag_audit=await tag_audit(image_ids),
    )


async def next_pending(after_id: int) -> int | None:
    """The article to review after ``after_id``: the queue goes oldest first and wraps around,
    so this is a pending article whenever another one exists."""
    return await next_pending_id(after_id)


async def oldest_pending() -> int | None:
    """Where the review queue starts: the pending article that has waited longest."""
    return await oldest_pending_id()
