"""Database DSNs: which engine a DSN names, its SQLite file, and a form fit for logs.

Two schemes are supported:

- ``sqlite:///<path>`` (``sqlite:////abs/path`` or ``sqlite:///relative/path``): a file;
- ``postgresql://user[:password]@host[:port]/db`` (or ``postgres://``, ``postgresql+asyncpg://``).

Errors name the scheme or the DSN without its password (``redact_dsn``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from rk.core.api.errors import ConfigError

EXPECTED = "expected sqlite:///<path> or postgresql://user@host:port/db"
Engine = Literal["sqlite", "postgresql"]


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


def engine_of(dsn: str) -> Engine:
    """Which engine the DSN names; ``ConfigError`` for a DSN rk cannot use."""
    scheme = dsn_scheme(dsn).split("+", 1)[0]
    if scheme == "sqlite":
        return "sqlite"
    if scheme in ("postgresql", "postgres"):
        return "postgresql"
    if not scheme:
        raise ConfigError(f"database DSN has no scheme; {EXPECTED}")
    raise ConfigError(f"database DSN scheme {scheme!r} is not supported; {EXPECTED}")


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


def asyncpg_dsn(dsn: str) -> str:
    """A PostgreSQL DSN as asyncpg takes it (``postgresql+asyncpg://`` → ``postgresql://``).

    Raises ``ConfigError`` for an unparseable DSN or one that names no database.
    """
    try:
        parts = urlsplit(dsn)
        _ = parts.port
    except ValueError as exc:
        raise ConfigError(f"bad PostgreSQL DSN {redact_dsn(dsn)}: {exc}") from None
    if not parts.path.strip("/"):
        raise ConfigError(f"PostgreSQL DSN {redact_dsn(dsn)} names no database ({EXPECTED})")
    return f"postgresql://{dsn.split('://', 1)[1]}"
