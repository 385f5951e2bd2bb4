"""SQL of the review flow's decisions: a rejection's reason, an account's last decision, an
undo that returns an article to pending, and the keys of an article's images."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.write_transactions import write_transaction

NEWEST_CHANGE = (
    "(SELECT MAX(id) FROM moderation_audit"
    " WHERE article_id = {} AND user_id = {} AND new_status = {})"
)
"""The id of an account's newest change of an article to a status."""


async def record_reason(article_id: int, user_id: int, reason: str) -> None:
    """Give the account's newest rejection of the article its ``reason``."""
    await rows(
        f"UPDATE moderation_audit SET reason = {{}} WHERE id = {NEWEST_CHANGE}",
        reason,
        article_id,
        user_id,
        "rejected",
    )


async def record_undo(article_id: int, user_id: int, new_status: str, undoes: int) -> None:
    """Mark the account's newest change of the article to ``new_status`` as the undo of the
    audit row ``undoes``."""
    await rows(
        f"UPDATE moderation_audit SET undoes = {{}} WHERE id = {NEWEST_CHANGE}",
        undoes,
        article_id,
        user_id,
        new_status,
    )


async def last_audit_row(user_id: int) -> dict[str, Any] | None:
    """The account's newest audit row, with its article's title, brand, status and deletion."""
    found = await rows(
        "SELECT m.id, m.article_id, m.old_status, m.new_status, m.via, m.at, m.undoes,"
        " a.title, a.season, a.status, a.deleted_at, COALESCE(b.name, '') AS brand"
        " FROM moderation_audit m JOIN articles a ON a.id = m.article_id"
        " LEFT JOIN brands b ON b.id = a.brand_id"
        " WHERE m.user_id = {} ORDER BY m.id DESC LIMIT 1",
        user_id,
    )
    return found[0] if found else None


async def reopen_article(
    article_id: int, was: str, user_id: int, actor: str, at: int, undoes: int
) -> bool:
    """Put the article back to pending if it is still ``was`` and not deleted, with the audit
    row of that undo, in one transaction; False (nothing written) when it changed."""
    async with write_transaction():
        changed = await rows(
            "UPDATE articles SET status = 'pending', updated_at = {}"
            " WHERE id = {} AND status = {} AND deleted_at = 0 RETURNING id",
            at,
            article_id,
            was,
        )
        if not changed:
            return False
        await rows(
            "INSERT INTO moderation_audit"
            " (article_id, user_id, actor, old_status, new_status, via, at, reason, undoes)"
            " VALUES ({}, {}, {}, {}, 'pending', 'web', {}, '', {})",
            article_id,
            user_id,
            actor,
            was,
            at,
            undoes,
        )
    return True


async def image_keys(article_id: int) -> list[tuple[str, str]]:
    """The ``(key, thumb_key)`` of each of the article's images."""
    found = await rows("SELECT key, thumb_key FROM images WHERE article_id = {}", article_id)
    return [(str(row["key"]), str(row["thumb_key"])) for row in found]
