"""The job leases' SQL: take, renew and release a named row of ``job_locks``."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import rows


async def take_lease(name: str, holder: str, until: int, now: int) -> bool:
    """Give lease ``name`` to ``holder`` until ``until`` if it is free, expired or theirs."""
    await rows(
        "INSERT INTO job_locks (name, holder, until) VALUES ({}, '', 0)"
        " ON CONFLICT (name) DO NOTHING",
        name,
    )
    taken = await rows(
        "UPDATE job_locks SET holder = {}, until = {}"
        " WHERE name = {} AND (until < {} OR holder = {}) RETURNING id",
        holder,
        until,
        name,
        now,
        holder,
    )
    return bool(taken)


async def extend_lease(name: str, holder: str, until: int) -> bool:
    """Move ``holder``'s lease ``name`` on to ``until``; False when they no longer hold it."""
    extended = await rows(
        "UPDATE job_locks SET until = {} WHERE name = {} AND holder = {} RETURNING id",
        until,
        name,
        holder,
    )
    return bool(extended)


async def free_lease(name: str, holder: str) -> None:
    """Free lease ``name`` if ``holder`` still holds it."""
    await rows(
        "UPDATE job_locks SET holder = '', until = 0 WHERE name = {} AND holder = {}",
        name,
        holder,
    )
