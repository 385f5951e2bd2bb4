"""Sign-in rate limit: refused attempts counted per account and per client address.

Failures are rows in the database, so the limit holds across every backend process and
a restart. After ``per_account`` refusals within ``window_s`` for the same account, or
``per_address`` for the same client address (higher: an office shares one address),
further attempts are refused (without checking the password) until the
oldest of those failures leaves the window; the page says when.
"""

from __future__ import annotations

import time

from rk.server.db.tables import SignInFailure


def keys(username: str, address: str) -> list[str]:
    """The counters a sign-in attempt touches."""
    return [f"user:{username.strip().lower()[:100]}", f"addr:{address[:100]}"]


async def retry_after(
    username: str, address: str, per_account: int, per_address: int, window_s: int
) -> int:
    """Seconds until another attempt is allowed (0: allowed now)."""
    now = int(time.time())
    wait = 0
    for key, max_failures in zip(keys(username, address), (per_account, per_address), strict=True):
        rows = (
            await SignInFailure.select(SignInFailure.at)
            .where((SignInFailure.key == key) & (SignInFailure.at > now - window_s))
            .order_by(SignInFailure.at, ascending=False)
            .limit(max_failures)
        )
        if len(rows) >= max_failures:
            wait = max(wait, int(rows[-1]["at"]) + window_s - now)
    return max(wait, 0)


async def record_failure(username: str, address: str, window_s: int) -> None:
    """Count one refused attempt (and forget failures older than the window)."""
    now = int(time.time())
    await SignInFailure.insert(*(SignInFailure(key=key, at=now) for key in keys(username, address)))
    await SignInFailure.delete().where(SignInFailure.at < now - window_s)


async def clear_account(username: str) -> None:
    """Forget an account's failures after a successful sign-in."""
    await SignInFailure.delete().where(SignInFailure.key == keys(username, "")[0])
