"""0062: each site host's shared request budget, so every spider of the archive keeps one pace.

One row per host (issue 32): ``next_ms`` is the unix time in milliseconds before which no
spider may start another request on it. A spider takes a few starts at once with one
``INSERT … ON CONFLICT … DO UPDATE … RETURNING`` that moves ``next_ms`` past them (atomic on
SQLite and PostgreSQL, ``rk.server.hosts.repository``); a ``Retry-After`` pushes it out.
Milliseconds, not rk's usual seconds: intervals are fractions of a second.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table


async def forwards(engine: Engine) -> None:
    """Create ``host_budgets``."""
    await create_table(
        engine,
        "host_budgets",
        {
            "host": Varchar(length=253, unique=True),
            "next_ms": BigInt(default=0),
            "updated_at": BigInt(default=0),
        },
    )
