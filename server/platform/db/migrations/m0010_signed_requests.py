"""0010: signatures already accepted, so each signed request is accepted once (replay guard).

``signed_requests`` holds one row per accepted signature until ``expires_at`` (its
timestamp plus the allowed clock skew), after which the timestamp check alone refuses it
and the row is swept. The unique signature makes "first one wins" a single
``INSERT … ON CONFLICT DO NOTHING`` across every backend process.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute


async def forwards(engine: Engine) -> None:
    """Create ``signed_requests`` and its expiry index."""
    await create_table(
        engine,
        "signed_requests",
        {"signature": Varchar(length=64, unique=True), "expires_at": BigInt(default=0)},
    )
    await execute(engine, "CREATE INDEX signed_requests_expires_at ON signed_requests (expires_at)")
