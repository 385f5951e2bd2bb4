"""Is this backend ready to serve: database reachable, migrations current, storage reachable.

Each check is one cheap read with a deadline (no write: a load balancer polls this every
few seconds), answering ``None`` when fine or a one-line reason naming what is wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import cache

from rk.core.api.storage import Storage
from rk.core.redact import redact
from rk.server.platform.db.migrate import discover
from rk.server.platform.ops.repository import applied_migration_ids, database_round_trip

CHECK_TIMEOUT_S = 3.0
PROBE_KEY = "thumb/" + "0" * 40 + ".jpg"
"""A valid media key no image has (its sha1 would be all zeros): HEAD answers "absent"."""


@cache
def expected_migrations() -> frozenset[str]:
    """Every migration id this code knows (read once per process)."""
    return frozenset(migration.id for migration in discover())


async def database_problem() -> str | None:
    """None when a trivial query round-trips."""
    await database_round_trip()
    return None


async def migrations_problem() -> str | None:
    """None when every migration this code knows has been applied."""
    missing = sorted(expected_migrations() - await applied_migration_ids())
    if missing:
        return f"{len(missing)} migrations not applied ({', '.join(missing)}): run rk db migrate"
    return None


def storage_problem(storage: Storage) -> Callable[[], Awaitable[str | None]]:
    """A check that HEADs a probe key (absent is fine; failing to ask is not)."""

    async def check() -> str | None:
        await storage.head(PROBE_KEY)
        return None

    return check


async def _run(check: Callable[[], Awaitable[str | None]]) -> str | None:
    try:
        return await asyncio.wait_for(check(), CHECK_TIMEOUT_S)
    except TimeoutError:
        return f"no answer within {CHECK_TIMEOUT_S:g} s"
    except Exception as exc:  # any failure to reach it is the answer
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        return redact(f"{type(exc).__name__}: {detail}")


async def readiness(storage: Storage) -> dict[str, str]:
    """``{part: "ok" | reason}`` for database, migrations and storage."""
    database = await _run(database_problem)
    migrations = await _run(migrations_problem) if database is None else "database unreachable"
    storage_state = await _run(storage_problem(storage))
    return {
        "database": database or "ok",
        "migrations": migrations or "ok",
        "storage": storage_state or "ok",
    }
