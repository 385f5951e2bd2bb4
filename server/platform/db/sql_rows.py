"""The one access path for repositories' raw SQL: rows, the engine and transactions.

Queries use piccolo ``QueryString`` placeholders (``{}``) so the same text runs on SQLite
and PostgreSQL. Every helper runs on the ``Database`` the tables are bound to
(``engine.bind``), so a repository never reaches a table's engine itself. ``LIVE`` is the
one definition of "a visitor may see this article".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.server.platform.db.database import Database
from rk.server.platform.db.tables import Article

LIVE = "a.status = 'published' AND a.deleted_at = 0"
"""Published and not deleted: the only articles (and images) the public site shows."""


def engine() -> Engine:
    """The piccolo engine every table runs on (one per process, over its ``Database``)."""
    return Article._meta.db


def engine_type() -> str:
    """``postgres`` or ``sqlite``: for the few statements whose text differs by engine."""
    return str(engine().engine_type)


def database() -> Database:
    """The process's ``Database``, as the tables are bound to it."""
    db: Database | None = getattr(engine(), "db", None)
    if db is None:
        raise RuntimeError("rk's tables are not bound to a Database")
    return db


def transaction() -> AbstractAsyncContextManager[Any]:
    """A transaction on the tables' ``Database`` (a savepoint inside one)."""
    return engine().transaction()


async def rows(sql: str, *args: Any) -> list[dict[str, Any]]:
    """The rows of one ``{}``-placeholder statement, as dicts."""
    return [dict(row) for row in await engine().run_querystring(QueryString(sql, *args))]


def marks(count: int) -> str:
    """``{}, {}, …`` for an ``IN (…)`` list of ``count`` values."""
    return ", ".join("{}" for _ in range(count))


def scored_rows(
    scored: Iterable[tuple[int, float]], by_id: Mapping[int, dict[str, Any]]
) -> list[tuple[dict[str, Any], float]]:
    """Each ``(id, score)``'s row with its score, in ``scored``'s order; an id without a row
    (unpublished, deleted since it was scored) is dropped."""
    return [(by_id[row_id], score) for row_id, score in scored if row_id in by_id]
