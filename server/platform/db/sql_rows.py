"""How the public site's services run SQL: one engine-neutral helper over the tables' engine.

Queries use piccolo ``QueryString`` placeholders (``{}``) so the same text runs on SQLite
and PostgreSQL. ``LIVE`` is the one definition of "a visitor may see this article".
"""

from __future__ import annotations

from typing import Any

from piccolo.querystring import QueryString

from rk.server.platform.db.tables import Article

LIVE = "a.status = 'published' AND a.deleted_at = 0"
"""Published and not deleted: the only articles (and images) the public site shows."""


async def rows(sql: str, *args: Any) -> list[dict[str, Any]]:
    """The rows of one ``{}``-placeholder statement, as dicts."""
    return [dict(row) for row in await Article._meta.db.run_querystring(QueryString(sql, *args))]


def marks(count: int) -> str:
    """``{}, {}, …`` for an ``IN (…)`` list of ``count`` values."""
    return ", ".join("{}" for _ in range(count))
