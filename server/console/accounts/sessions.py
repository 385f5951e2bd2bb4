"""Console sessions, stored in the database so they survive restarts and span processes.

The browser holds a random token; the database holds only its sha256, so a leaked
database row cannot be replayed as a cookie. Every sign-in opens a new session and ends the
one the browser brought along (no session fixation). A session ends at sign-out, at
``admin.session_ttl_s`` after it started, once unused for ``admin.session_idle_s``, when
its account is disabled or its password changed. Use is recorded in ``seen_at`` at most once
a minute, not on every page view.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from rk.server.console.accounts.repository import (
    delete_session,
    delete_stale_sessions,
    insert_session,
    live_session,
    touch_session,
)
from rk.server.console.accounts.users import User, _user

SEEN_EVERY_S = 60
"""``seen_at`` is written at most this often per session (not on every page view)."""


def seen_every(idle_s: int) -> int:
    """How stale ``seen_at`` may get: a minute, or half the idle timeout when that is shorter
    (so a session in use is never taken for idle)."""
    return max(1, min(SEEN_EVERY_S, idle_s // 2))


def token_hash(token: str) -> str:
    """What the database stores for a cookie token."""
    return hashlib.sha256(token.encode()).hexdigest()


async def open_session(user: User, ttl_s: int, idle_s: int, replacing: str = "") -> str:
    """A new session for ``user``, ending the session of ``replacing`` (the browser's old
    cookie, whoever's it was) and every expired or idle one; the token for the cookie."""
    token = secrets.token_urlsafe(32)
    now = int(time.time())
    await close_session(replacing)
    await insert_session(token_hash(token), user.id, now, ttl_s)
    await delete_stale_sessions(now, idle_s)
    return token


async def session_user(token: str, idle_s: int) -> User | None:
    """The enabled account of a live session, None for an unknown, expired or idle token."""
    if not token or len(token) > 200:
        return None
    now = int(time.time())
    row = await live_session(token_hash(token), now, idle_s)
    if row is None:
        return None
    if now - int(row["seen_at"]) >= seen_every(idle_s):
        await touch_session(int(row["session_id"]), now)
    return _user(row)


async def close_session(token: str) -> None:
    """End the session of ``token`` (sign-out); nothing when there is none."""
    if token:
        await delete_session(token_hash(token))
