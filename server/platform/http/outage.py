"""A database that is down answers 503 with ``Retry-After``, logged once per outage.

Connection failures (refused, terminated, not accepting connections, SQLite locked or
unreadable) are not bugs in rk: each request that meets one gets a one-line 503 telling
the client to retry, and the log gets one line when the outage starts instead of a
traceback per request. An outage ends when no such error was seen for ``QUIET_S``.
asyncpg's own retries to restore its pool's floor (a warning with a traceback each time)
are folded into the same line by ``PoolRetries``.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

import asyncpg

from rk.core.redact import public_message

log = logging.getLogger("rk.server.database")
POOL_LOGGER = "asyncpg.pool"
POOL_RETRY = "Failed to restore the pool connection floor"

RETRY_AFTER_S = 5
QUIET_S = 30.0
"""An error after this long without one starts a new outage (and a new log line)."""
_PG_DOWN: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.ObjectNotInPrerequisiteStateError,
    asyncpg.exceptions.TooManyConnectionsError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.InternalClientError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
)
_SQLITE_DOWN = ("locked", "unable to open", "disk i/o", "readonly", "busy")


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached, rather than that rk has a bug."""
    if isinstance(exc, (*_PG_DOWN, ConnectionError, TimeoutError)):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        return any(words in str(exc).lower() for words in _SQLITE_DOWN)
    return False


class OutageLog:
    """Remembers when the last database error was seen, to log each outage once (one per
    app, in its state: two backends in one process each log their own outage)."""

    def __init__(self) -> None:
        self.last_seen = 0.0

    def seen(self, exc: BaseException) -> None:
        """Log the first error of an outage (one line, no traceback); stay quiet after it."""
        now = time.monotonic()
        if now - self.last_seen > QUIET_S:
            reason = public_message(f"{type(exc).__name__}: {exc}".splitlines()[0])
            log.error("database unavailable, answering 503 until it is back: %s", reason)
        self.last_seen = now


class PoolRetries(logging.Filter):
    """Drops asyncpg's "failed to restore the pool connection floor" tracebacks that an
    outage causes, counting each as an error of that outage instead."""

    def __init__(self, outages: OutageLog) -> None:
        super().__init__()
        self.outages = outages

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not is_outage(exc) or not str(record.msg).startswith(POOL_RETRY):
            return True
        self.outages.seen(exc)
        return False


@contextmanager
def pool_retries_folded(outages: OutageLog) -> Iterator[None]:
    """While inside, asyncpg's pool-floor retries during an outage go to ``outages``."""
    pool_log = logging.getLogger(POOL_LOGGER)
    folded = PoolRetries(outages)
    pool_log.addFilter(folded)
    try:
        yield
    finally:
        pool_log.removeFilter(folded)
