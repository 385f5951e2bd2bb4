"""Database engines: a DSN becomes a piccolo engine, and the tables of rk are bound to it.

Two schemes are supported:

- ``sqlite:///<path>`` (``sqlite:////abs/path`` or ``sqlite:///relative/path``): a file,
  put in WAL mode with a busy timeout so several processes can share it;
- ``postgresql://user[:password]@host[:port]/db`` (or ``postgres://``).

Errors name the scheme or the DSN without its password (``redact_dsn``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from piccolo.engine.base import Engine
from piccolo.engine.postgres import PostgresEngine
from piccolo.engine.sqlite import SQLiteEngine

from rk.core.errors import ConfigError
from rk.server.db.tables import ALL_TABLES

SQLITE_BUSY_TIMEOUT_S = 30.0
"""How long a SQLite connection waits for another process's write lock before failing."""
PG_POOL_MAX = 10
MIN_SQLITE = (3, 35)
"""rk's queries use ``RETURNING`` (SQLite 3.35+)."""
EXPECTED = "expected sqlite:///<path> or postgresql://user@host:port/db"


class _PostgresEngine(PostgresEngine):
    """piccolo's PostgresEngine without the version probe in its constructor.

    piccolo connects synchronously from ``__init__`` just to warn about old servers, which
    blocks the event loop and turns an unreachable server into a warning; here the first
    real query (or ``connect``'s pool) reports connection errors instead.
    """

    async def check_version(self) -> None:
        """Skip the probe (see the class docstring)."""


class _SQLiteEngine(SQLiteEngine):
    """piccolo's SQLiteEngine without the version probe, which logs a line per engine."""

    async def check_version(self) -> None:
        """Skip the probe; ``engine_for`` checks ``MIN_SQLITE`` instead."""


def redact_dsn(dsn: str) -> str:
    """The DSN with any password replaced by ``***``, fit for logs and error messages."""
    try:
        parts = urlsplit(dsn)
        password = parts.password
    except ValueError:
        return "<unparseable DSN>"
    if not password:
        return dsn
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def dsn_scheme(dsn: str) -> str:
    """The scheme of a DSN (``sqlite``, ``postgresql``…); ``""`` when there is none."""
    return dsn.split("://", 1)[0].lower() if "://" in dsn else ""


def sqlite_path(dsn: str) -> Path:
    """The file a ``sqlite:///`` DSN names, absolute (relative paths resolve against cwd)."""
    if not dsn.lower().startswith("sqlite:///"):
        raise ConfigError(f"SQLite DSN must start with sqlite:/// ({EXPECTED})")
    raw = dsn[len("sqlite:///") :]
    if not raw or raw == ":memory:" or "?" in raw:
        raise ConfigError(
            "SQLite DSN needs a file path (in-memory databases and options are not supported)"
        )
    return Path(raw).expanduser().resolve()


def _sqlite_engine(dsn: str) -> SQLiteEngine:
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        raise ConfigError(f"SQLite {sqlite3.sqlite_version} is too old; rk needs 3.35 or newer")
    path = sqlite_path(dsn)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
        finally:
            conn.close()
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError(f"cannot open SQLite database {path}: {exc}") from None
    return _SQLiteEngine(path=str(path), timeout=SQLITE_BUSY_TIMEOUT_S)


def _postgres_engine(dsn: str) -> PostgresEngine:
    try:
        parts = urlsplit(dsn)
        _ = parts.port
    except ValueError as exc:
        raise ConfigError(f"bad PostgreSQL DSN {redact_dsn(dsn)}: {exc}") from None
    if not parts.path.strip("/"):
        raise ConfigError(f"PostgreSQL DSN {redact_dsn(dsn)} names no database ({EXPECTED})")
    return _PostgresEngine(config={"dsn": dsn})


def engine_for(dsn: str) -> Engine:
    """A piccolo engine for ``dsn``; raises ``ConfigError`` for a DSN rk cannot use."""
    scheme = dsn_scheme(dsn)
    if scheme == "sqlite":
        return _sqlite_engine(dsn)
    if scheme in ("postgresql", "postgres"):
        return _postgres_engine(dsn)
    if not scheme:
        raise ConfigError(f"database DSN has no scheme; {EXPECTED}")
    raise ConfigError(f"database DSN scheme {scheme!r} is not supported; {EXPECTED}")


def bind(engine: Engine) -> None:
    """Make every table of rk (``tables.ALL_TABLES``) run its queries on ``engine``."""
    for table in ALL_TABLES:
        table._meta.db = engine


async def connect(dsn: str, *, pool_max: int = PG_POOL_MAX) -> Engine:
    """An engine for ``dsn`` bound to the tables; on PostgreSQL with a started pool.

    Starting the pool opens a connection, so an unreachable server fails here.
    """
    engine = engine_for(dsn)
    if isinstance(engine, PostgresEngine):
        await engine.start_connection_pool(min_size=1, max_size=pool_max)
    bind(engine)
    return engine


async def close(engine: Engine) -> None:
    """Release what ``connect`` opened (the PostgreSQL pool); SQLite holds nothing open."""
    if isinstance(engine, PostgresEngine) and engine.pool is not None:
        await engine.close_connection_pool()
