"""The PostgreSQL ``Database`` of the tables, for the pgvector path's asyncpg work."""

from __future__ import annotations

from rk.server.platform.db.pg_database import PgDatabase
from rk.server.platform.db.sql_rows import database


def pg_database() -> PgDatabase:
    """The PostgreSQL ``Database`` of the tables, for what needs asyncpg itself (``$n``
    parameters sent once, COPY, statements outside a transaction)."""
    db = database()
    if not isinstance(db, PgDatabase):
        raise TypeError("pgvector spaces live in PostgreSQL")
    return db
