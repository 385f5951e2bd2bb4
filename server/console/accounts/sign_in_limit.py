"""Sign-in rate limit: every attempt takes a slot before its password is checked.

Two counters per attempt, rows in the database so the limit holds across backend
processes and restarts: ``acct:NAME|addr:IP`` (this account from this address) and
``addr:IP`` (every account from this address, higher: an office shares one address).
The first ``free`` attempts of a counter go straight on; each later one must wait
``delay_s`` after the one before, doubled with every attempt and capped at ``window_s``.
One that comes earlier is refused (429 with ``Retry-After``) without a password check.

A slot is taken with a compare-and-set ``UPDATE … RETURNING`` (one statement, atomic on
SQLite and PostgreSQL) before the check, so a burst of concurrent attempts checks at
most ``free`` passwords. A correct password forgets its (account, address) counter and
gives its address slot back. Nothing counts against an account as a whole, so an attack
from other addresses never keeps its owner out. A counter left alone for ``window_s``
after its delay ended starts again from zero.
"""

from __future__ import annotations

from typing import NamedTuple

from rk.core.config import AdminSettings
from rk.server.console.accounts.repository import (
    advance_counter,
    counter,
    create_counter,
    delete_counter,
    delete_counters_before,
    give_back_attempt,
)

TRIES = 50
"""Compare-and-set rounds before an attempt is refused for a second (heavy contention)."""


class Limits(NamedTuple):
    """How many attempts go straight on, the first delay after them, when all is forgotten."""

    per_account: int
    per_address: int
    delay_s: int
    window_s: int

    @classmethod
    def of(cls, admin: AdminSettings) -> Limits:
        """The limits configured in ``admin``."""
        return cls(
            admin.sign_in_max_failures,
            admin.sign_in_max_failures_per_address,
            admin.sign_in_delay_s,
            admin.sign_in_window_s,
        )


def account_key(username: str, address: str) -> str:
    """The counter of one account tried from one address."""
    return f"acct:{username.strip().lower()[:100]}|addr:{address[:100]}"


def address_key(address: str) -> str:
    """The counter of every account tried from one address."""
    return f"addr:{address[:100]}"


def delay(attempt: int, free: int, limits: Limits) -> int:
    """Seconds the attempt after ``attempt`` must wait: 0 while free, then doubling."""
    if attempt < free:
        return 0
    return min(limits.window_s, limits.delay_s * 2 ** min(attempt - free, 30))


async def take(key: str, free: int, limits: Limits, now: int) -> int:
    """Take one slot of counter ``key``: 0 when taken, else the seconds to wait."""
    for _ in range(TRIES):
        row = await counter(key)
        if row is None:
            await create_counter(key, now)
            continue
        attempts, next_at, updated_at = (int(row[c]) for c in ("attempts", "next_at", "updated_at"))
        stale = max(updated_at, next_at) <= now - limits.window_s
        if next_at > now and not stale:
            return next_at - now
        attempt = 1 if stale else attempts + 1
        wait = delay(attempt, free, limits)
        seen = (attempts, updated_at)
        if await advance_counter(key, seen, attempt, now + wait if wait else 0, now):
            return 0
    return 1


async def admit(username: str, address: str, limits: Limits, now: int) -> int:
    """Take this attempt's slots before its password is checked: 0, or seconds to wait."""
    wait = await take(account_key(username, address), limits.per_account, limits, now)
    if wait:
        return wait
    return await take(address_key(address), limits.per_address, limits, now)


async def succeeded(username: str, address: str) -> None:
    """A correct password: forget this (account, address), give the address slot back."""
    await delete_counter(account_key(username, address))
    await give_back_attempt(address_key(address))


async def sweep(limits: Limits, now: int) -> None:
    """Forget counters left alone for the window after their delay (after a wrong password)."""
    await delete_counters_before(now - limits.window_s)
