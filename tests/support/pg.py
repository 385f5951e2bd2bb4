"""A throw-away PostgreSQL database per test, made from RK_TEST_PG_DSN."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from tests.support.skips import skip_or_fail

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/test"


def admin_dsn() -> str:
    """The DSN the tests may create databases through."""
    return os.environ.get("RK_TEST_PG_DSN", DEFAULT_DSN)


def _with_db(dsn: str, name: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path=f"/{name}"))


async def _run(dsn: str, sql: str) -> None:
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def require_postgres() -> str:
    """The admin DSN, or skip (fail under CI=true) with a one-line reason if unreachable."""
    dsn = admin_dsn()
    try:
        asyncio.run(_run(dsn, "SELECT 1"))
    except Exception as exc:
        skip_or_fail(f"PostgreSQL not reachable at {dsn}: {type(exc).__name__}")
    return dsn


@contextmanager
def fresh_database() -> Iterator[str]:
    """Create an empty database, yield its DSN, drop it afterwards."""
    dsn = require_postgres()
    name = f"rk_t_{uuid.uuid4().hex[:12]}"
    asyncio.run(_run(dsn, f'CREATE DATABASE "{name}"'))
    try:
        yield _with_db(dsn, name)
    finally:
        asyncio.run(_run(dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@asynccontextmanager
async def refusing_connections(dsn: str) -> AsyncIterator[str]:
    """While inside, ``dsn``'s database takes no connections and has none (an outage as a
    backend sees it); yields the database's name. Connections are allowed again after."""
    name = urlsplit(dsn).path.strip("/")
    admin = await asyncpg.connect(admin_dsn())
    try:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
        )
        yield name
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
