"""0054: sign-in attempts are counted in one row per counter, taken before the password check.

``sign_in_failures`` held one row per refused attempt, counted after the check, so a
burst of concurrent attempts all passed the limit before any was recorded. Each row of
``sign_in_counters`` is one counter (``acct:NAME|addr:IP`` or ``addr:IP``): the attempts
it has taken, when the next one is allowed, and when it last changed. An attempt takes
its slot with one compare-and-set ``UPDATE`` on both engines (``rk.server.console
.accounts.sign_in_limit``). The old rows are dropped: they only delayed attackers for 15 minutes.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Integer, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute


async def forwards(engine: Engine) -> None:
    """Create ``sign_in_counters`` and its sweep index; drop ``sign_in_failures``."""
    await create_table(
        engine,
        "sign_in_counters",
        {
            "key": Varchar(length=220, unique=True),
            "attempts": Integer(default=0),
            "next_at": BigInt(default=0),
            "updated_at": BigInt(default=0),
        },
    )
    await execute(
        engine, "CREATE INDEX sign_in_counters_updated_at ON sign_in_counters (updated_at)"
    )
    await execute(engine, "DROP TABLE IF EXISTS sign_in_failures")
