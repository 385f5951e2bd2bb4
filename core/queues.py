"""The job-queue backend interface the server's queue engine drives (SQL lives in backends)."""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import pluggy
from msgspec import Struct

from rk.core.registry import Registry


class Job(Struct, frozen=True, kw_only=True):
    """A claimed ingest job."""

    id: int
    kind: str
    payload: str
    attempts: int
    brand_id: int


@runtime_checkable
class QueueBackend(Protocol):
    """Atomic operations on ``ingest_jobs`` for one database engine; policy lives in the engine."""

    schemes: ClassVar[tuple[str, ...]]

    def __init__(self, dsn: str) -> None: ...

    async def enqueue(self, kind: str, payload: str, brand_id: int, now: int) -> int:
        """Insert a pending job and return its id."""
        ...

    async def claim(self, now: int, stuck_before: int) -> Job | None:
        """Atomically take the oldest claimable job (pending and due, or stuck), or None."""
        ...

    async def complete(self, job_id: int, outcome: str, note: str, now: int) -> None:
        """Mark a processing job done with its outcome and note."""
        ...

    async def retry(self, job_id: int, error: str, now: int, next_attempt_at: int) -> None:
        """Put a processing job back to pending, due at ``next_attempt_at``."""
        ...

    async def fail(self, job_id: int, error: str, now: int) -> None:
        """Mark a processing job failed for good."""
        ...

    async def release(self, job_id: int, now: int) -> None:
        """Give a job back untouched (shutdown): pending, attempt not counted."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


def queue_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[QueueBackend]]:
    """Every registered queue backend class, by database scheme."""
    from rk.core.plugins import get_plugin_manager, registry_of

    return registry_of(
        pm or get_plugin_manager(), "rk_register_queues", "queue backend", lambda c: c.schemes
    )


def get_queue_backend(dsn: str, pm: pluggy.PluginManager | None = None) -> type[QueueBackend]:
    """The queue backend class for a database DSN, chosen by its scheme."""
    scheme = dsn.split("://", 1)[0].split("+", 1)[0]
    return queue_registry(pm).get(scheme)
