"""Console sessions, stored in the database so they survive restarts and span processes.

The browser holds a random token; the database holds only its sha256, so a leaked
database row cannot be replayed as a cookie. Every sign-in opens a new session and ends the
one the browser brought along (no session fixation). A session ends at sign-out, at
``admin.session_ttl_s`` after it started, when its account is disabled or its password
changed.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from rk.server.db.tables import AdminSession
from rk.server.services.admin_users import User, _user
from rk.server.services.public_sql import rows

SEEN_EVERY_S = 300
"""``seen_at`` is written at most this often per session (not on every page view)."""


def token_hash(token: str) -> str:
    """What the database stores for a cookie token."""
    return hashlib.sha256(token.encode()).hexdigest()


async def open_session(user: User, ttl_s: int, replacing: str = "") -> str:
    """A new session for ``user``, ending the session of ``replacing`` (the browser's old
    cookie, whoever's it was); the token to put in the cookie."""
    token = secrets.token_urlsafe(32)
    now = int(time.time())
    await close_session(replacing)
    await AdminSession.insert(
        AdminSession(
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=now,
            expires_at=now + ttl_s,
            seen_at=now,
        )
    )
    await AdminSession.delete().where(AdminSession.expires_at < now)
    return token


async def session_user(token: str) -> User | None:
    """The enabled account of a live session, None for an unknown or expired token."""
    if not token or len(token) > 200:
        return None
    now = int(time.time())
    found = await rows(
        "SELECT s.id AS session_id, s.seen_at, u.id, u.username, u.role, u.created_at,"
        " u.last_login_at, u.disabled_at FROM admin_sessions s"
        " JOIN admin_users u ON u.id = s.user_id"
        " WHERE s.token_hash = {} AND s.expires_at > {} AND u.disabled_at = 0",
        token_hash(token),
        now,
    )
    if not found:
        return None
    row = found[0]
    if now - int(row["seen_at"]) >= SEEN_EVERY_S:
        await AdminSession.update({AdminSession.seen_at: now}).where(
            AdminSession.id == row["session_id"]
        )
    return _user(row)


async def close_session(token: str) -> None:
    """End the session of ``token`` (sign-out); nothing when there is none."""
    if token:
        await AdminSession.delete().where(AdminSession.token_hash == token_hash(token))
