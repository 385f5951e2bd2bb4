"""Moderation's reads and writes: an article's state, its status change, audit and images."""

from __future__ import annotations

from rk.server.platform.db.tables import Article, Image, IngestJob, ModerationAudit


async def article_state(article_id: int) -> tuple[str, int] | None:
    """The article's ``(status, deleted_at)``, or None when no article has this id."""
    row = (
        await Article.select(Article.status, Article.deleted_at)
        .where(Article.id == article_id)
        .first()
    )
    return None if row is None else (str(row["status"]), int(row["deleted_at"]))


async def soft_delete_article(article_id: int, now: int, cleanup_kind: str, payload: str) -> None:
    """Mark the article deleted at ``now`` and queue its media cleanup job."""
    await Article.update({Article.deleted_at: now, Article.updated_at: now}).where(
        Article.id == article_id
    )
    await IngestJob.insert(
        IngestJob(
            kind=cleanup_kind,
            status="pending",
            payload=payload,
            next_attempt_at=now,
            created_at=now,
            updated_at=now,
        )
    )


async def set_article_status(article_id: int, status: str, now: int) -> None:
    """Give the article ``status`` (changed at ``now``)."""
    await Article.update({Article.status: status, Article.updated_at: now}).where(
        Article.id == article_id
    )


async def record_moderation(
    article_id: int,
    user_id: int,
    actor: str,
    status: tuple[str, str],
    via: str,
    at: int,
    note: tuple[str, int],
) -> None:
    """Add the audit row of one status change ``(old, new)``, with its ``(reason, undoes)``."""
    await ModerationAudit.insert(
        ModerationAudit(
            article_id=article_id,
            user_id=user_id,
            actor=actor,
            old_status=status[0],
            new_status=status[1],
            via=via,
            at=at,
            reason=note[0],
            undoes=note[1],
        )
    )


async def article_image_keys(article_id: int) -> list[tuple[str, str]]:
    """The ``(key, thumb_key)`` of each of the article's images."""
    rows = await Image.select(Image.key, Image.thumb_key).where(Image.article_id == article_id)
    return [(str(row["key"]), str(row["thumb_key"])) for row in rows]
