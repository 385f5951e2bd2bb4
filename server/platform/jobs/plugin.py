"""Registers the built-in queue backends through the rk entry-point group."""

from __future__ import annotations

from rk.core import hookimpl


@hookimpl
def rk_register_queues() -> list[type]:
    """PostgreSQL (SKIP LOCKED) and SQLite (single-writer) backends."""
    from rk.server.platform.jobs.postgres import PostgresQueue
    from rk.server.platform.jobs.sqlite import SqliteQueue

    return [PostgresQueue, SqliteQueue]
