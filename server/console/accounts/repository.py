"""SQL of console accounts: users, their sessions, and the sign-in limit's counters."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import AdminSession, AdminUser

COLUMNS = (
    AdminUser.id,
    AdminUser.username,
    AdminUser.role,
    AdminUser.created_at,
    AdminUser.last_login_at,
    AdminUser.disabled_at,
)
"""An account's columns as the console shows it (never the hash)."""


async def user_named(name: str, with_hash: bool = False) -> dict[str, Any] | None:
    """The account named ``name`` (``COLUMNS``, and ``password_hash`` if ``with_hash``)."""
    columns = (*COLUMNS, AdminUser.password_hash) if with_hash else COLUMNS
    found: dict[str, Any] | None = (
        await AdminUser.select(*columns).where(AdminUser.username == name).first()
    )
    return found


async def user_with_id(user_id: int) -> dict[str, Any] | None:
    """The account with this id (``COLUMNS``)."""
    found: dict[str, Any] | None = (
        await AdminUser.select(*COLUMNS).where(AdminUser.id == user_id).first()
    )
    return found


async def all_users() -> list[dict[str, Any]]:
    """Every account by name (``COLUMNS``)."""
    return list(await AdminUser.select(*COLUMNS).order_by(AdminUser.username))


async def name_taken(name: str) -> bool:
    """Whether an account is called ``name``."""
    return bool(await AdminUser.exists().where(AdminUser.username == name))


async def insert_user(name: str, password_hash: str, role: str, now: int) -> None:
    """Store a new account."""
    await AdminUser.insert(
        AdminUser(
            username=name, password_hash=password_hash, role=role, created_at=now, updated_at=now
        )
    )


async def password_hash_of(user_id: int) -> str | None:
    """The stored hash of an account's password."""
    row = await AdminUser.select(AdminUser.password_hash).where(AdminUser.id == user_id).first()
    return None if row is None else str(row["password_hash"])


async def store_password_hash(user_id: int, password_hash: str, now: int) -> None:
    """Replace an account's password hash."""
    await AdminUser.update(
        {AdminUser.password_hash: password_hash, AdminUser.updated_at: now}
    ).where(AdminUser.id == user_id)


async def store_role(user_id: int, role: str, now: int) -> None:
    """Set an account's role."""
    await AdminUser.update({AdminUser.role: role, AdminUser.updated_at: now}).where(
        AdminUser.id == user_id
    )


async def store_disabled_at(user_id: int, disabled_at: int, now: int) -> None:
    """Disable an account since ``disabled_at`` (0: enable it)."""
    await AdminUser.update({AdminUser.disabled_at: disabled_at, AdminUser.updated_at: now}).where(
        AdminUser.id == user_id
    )


async def record_sign_in(user_id: int, now: int) -> None:
    """Note when an account last signed in."""
    await AdminUser.update({AdminUser.last_login_at: now}).where(AdminUser.id == user_id)


async def insert_session(token_hash: str, user_id: int, now: int, ttl_s: int) -> None:
    """Store a new session, seen now, expiring ``ttl_s`` from now."""
    await AdminSession.insert(
        AdminSession(
            token_hash=token_hash,
            user_id=user_id,
            created_at=now,
            expires_at=now + ttl_s,
            seen_at=now,
        )
    )


async def delete_stale_sessions(now: int, idle_s: int) -> None:
    """End every expired session and every one unused for ``idle_s``."""
    await AdminSession.delete().where(
        (AdminSession.expires_at < now) | (AdminSession.seen_at <= now - idle_s)
    )


async def live_session(token_hash: str, now: int, idle_s: int) -> dict[str, Any] | None:
    """The live session of ``token_hash`` (``session_id``, ``seen_at``, ``session_started``)
    with its enabled account's columns."""
    found = await rows(
        "SELECT s.id AS session_id, s.seen_at, s.created_at AS session_started, u.id,"
        " u.username, u.role, u.created_at,"
        " u.last_login_at, u.disabled_at FROM admin_sessions s"
        " JOIN admin_users u ON u.id = s.user_id"
        " WHERE s.token_hash = {} AND s.expires_at > {} AND s.seen_at > {}"
        " AND u.disabled_at = 0",
        token_hash,
        now,
        now - idle_s,
    )
    return found[0] if found else None


async def touch_session(session_id: int, now: int) -> None:
    """Record that a session was used now."""
    await AdminSession.update({AdminSession.seen_at: now}).where(AdminSession.id == session_id)


async def delete_session(token_hash: str) -> None:
    """End the session of ``token_hash``."""
    await AdminSession.delete().where(AdminSession.token_hash == token_hash)


async def delete_sessions_of(user_id: int) -> None:
    """End every session of an account."""
    await AdminSession.delete().where(AdminSession.user_id == user_id)


async def counter(key: str) -> dict[str, Any] | None:
    """A sign-in counter's ``attempts``, ``next_at`` and ``updated_at``."""
    found = await rows(
        "SELECT attempts, next_at, updated_at FROM sign_in_counters WHERE key = {}", key
    )
    return found[0] if found else None


async def create_counter(key: str, now: int) -> None:
    """Start a counter at 0 attempts (nothing if another request just did)."""
    await rows(
        "INSERT INTO sign_in_counters (key, attempts, next_at, updated_at)"
        " VALUES ({}, 0, 0, {}) ON CONFLICT (key) DO NOTHING",
        key,
        now,
    )


async def advance_counter(
    key: str, seen: tuple[int, int], attempt: int, next_at: int, now: int
) -> bool:
    """Compare and set: count ``attempt`` if the counter still holds ``seen`` (attempts,
    updated_at); False when another request moved it first."""
    taken = await rows(
        "UPDATE sign_in_counters SET attempts = {}, next_at = {}, updated_at = {}"
        " WHERE key = {} AND attempts = {} AND updated_at = {} RETURNING key",
        attempt,
        next_at,
        now,
        key,
        *seen,
    )
    return bool(taken)


async def delete_counter(key: str) -> None:
    """Forget a counter."""
    await rows("DELETE FROM sign_in_counters WHERE key = {}", key)


async def give_back_attempt(key: str) -> None:
    """Take one attempt off a counter (never below 0)."""
    await rows(
        "UPDATE sign_in_counters SET attempts = attempts - 1 WHERE key = {} AND attempts > 0", key
    )


async def delete_counters_before(before: int) -> None:
    """Forget counters neither updated nor delayed since ``before``."""
    await rows(
        "DELETE FROM sign_in_counters WHERE updated_at <= {} AND next_at <= {}", before, before
    )
