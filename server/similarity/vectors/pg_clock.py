"""The vector clock's lock: vector writers on PostgreSQL hold it until they commit.

Migration 0030's trigger takes it before stamping ``change_seq``, and 0036's before
stamping a deletion, so stamps follow commit order. A writer that takes it first, before
touching any other row, cannot deadlock with another writer over rows they both change
later; creating a pgvector space takes it too, so no save commits between a space's
creation and its first copy pass unseen.
"""

from __future__ import annotations

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

CLOCK_LOCK_KEY = 0x726B_7665_6373
"""Equal to ``m0030_vector_changes.CLOCK_LOCK_KEY`` (a migration never imports live code)."""


async def hold_vector_clock(engine: Engine) -> None:
    """Inside a transaction on PostgreSQL: wait for and hold the lock until commit."""
    if engine.engine_type == "sqlite":
        return  # one writer at a time already
    await engine.run_querystring(QueryString(f"SELECT pg_advisory_xact_lock({CLOCK_LOCK_KEY})"))
