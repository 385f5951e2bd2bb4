"""SQL of the review flow's undo: an account's last decision, with its article."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows


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
