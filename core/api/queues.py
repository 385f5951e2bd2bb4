"""The job-queue backend interface the server's queue engine drives (SQL lives in backends).

Every state change after a claim is fenced by the claim itself: a backend only updates a
job that is still ``processing`` with the ``attempts`` the claim gave it. A worker whose job
was reclaimed after the stuck timeout therefore cannot finish it a second time.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, runtime_checkable

from msgspec import Struct


class Job(Struct, frozen=True, kw_only=True):
    """A claimed ingest job; ``attempts`` (counting this claim) is also the claim's fence."""

    id: int
    kind: str
    payload: str
    attempts: int
    brand_id: int


def job_from_row(row: Any) -> Job:
    """A Job from a row with ``id, kind, payload, attempts, brand_id`` (any engine's row)."""
    return Job(**{field: row[field] for field in Job.__struct_fields__})


class SignedJob(Struct, frozen=True, kw_only=True):
    """A job to enqueue together with the request signature that asked for it."""

    kind: str
    payload: str
    brand_id: int
    signature: str
    expires_at: int


@runtime_checkable
class QueueBackend(Protocol):
    """Atomic operations on ``ingest_jobs`` for one database engine; policy lives in the engine.

    Methods that finish a claim return False when the claim is no longer held (the job was
    reclaimed or finished by someone else) and then change nothing.
    """

    schemes: ClassVar[tuple[str, ...]]

    def __init__(self, db: Any) -> None:
        """Run on ``db``, the process's one database (``rk.server.platform.db.database.Database``).

        Statements made while the calling task is inside ``db.transaction()`` must run in
        that transaction, so a job's effects and its completion commit together.
        """
        ...

    async def enqueue(self, kind: str, payload: str, brand_id: int, now: int) -> int:
        """Insert a pending job, due now, and return its id."""
        ...

    async def enqueue_signed(self, jobs: list[SignedJob], now: int) -> list[int | None]:
        """Insert each job whose signature is new, recording the signature in ``signed_requests``.

        One statement or transaction for all of them, so a job and its signature commit
        together or not at all. One result per job, in order: its id, or None when its
        signature was already recorded (a replay). Signatures in ``jobs`` are distinct.
        """
        ...

    async def watch(self, wake: Callable[[], None]) -> bool:
        """Call ``wake()`` whenever a job is enqueued (by any process the engine can hear).

        Idle workers then claim at once instead of at their next poll; False when it cannot.
        A job enqueued inside a transaction wakes no earlier than its commit.
        """
        ...

    async def claim(self, now: int, stuck_before: int, max_attempts: int) -> Job | None:
        """Atomically take the claimable job that has been due longest, or None.

        Claimable: pending with ``next_attempt_at <= now`` (due then), or processing with
        ``locked_at < stuck_before`` and ``attempts < max_attempts`` (due at ``locked_at``
        plus the stuck timeout, ``now - stuck_before``); ties go to the lower id. The claim
        sets status processing, ``locked_at = now`` and ``attempts + 1``.
        """
        ...

    async def claim_many(
        self, now: int, stuck_before: int, max_attempts: int, limit: int
    ) -> list[Job]:
        """Claim up to ``limit`` jobs at once, as ``limit`` calls of ``claim`` in a row would.

        One statement (or one transaction) for all of them: the engine claims for every
        worker waiting at that moment, and a few ahead of them, in one round trip. The jobs
        come in claim order.
        """
        ...

    async def lost(self, stuck_before: int, max_attempts: int, limit: int) -> list[Job]:
        """Processing jobs past the stuck timeout that have no attempt left."""
        ...

    async def complete(self, job: Job, outcome: str, note: str, now: int) -> bool:
        """Mark the claimed job done with its outcome and note."""
        ...

    async def complete_many(self, done: list[tuple[Job, str, str]], now: int) -> list[bool]:
        """``complete`` for each ``(job, outcome, note)`` in one statement or transaction.

        One result per item, in order; a claim listed twice is held by its first item only.
        """
        ...

    async def retry(self, job: Job, error: str, now: int, next_attempt_at: int) -> bool:
        """Put the claimed job back to pending, due at ``next_attempt_at``."""
        ...

    async def fail(self, job: Job, error: str, now: int) -> bool:
        """Mark the claimed job failed for good."""
        ...

    async def renew(self, job: Job, now: int) -> bool:
        """Extend the claimed job's lease: ``locked_at = now`` (its worker is alive)."""
        ...

    async def release(self, job: Job, now: int) -> bool:
        """Give the claimed job back untouched (shutdown): pending, attempt not counted."""
        ...

    async def close(self) -> None:
        """Release what the backend holds itself (not the shared database)."""
        ...


class ClaimsInBatches(ABC):
    """A backend's ``claim``: a ``claim_many`` of one, so both take jobs the same way."""

    @abstractmethod
    async def claim_many(
        self, now: int, stuck_before: int, max_attempts: int, limit: int
    ) -> list[Job]:
        """As ``QueueBackend.claim_many``."""

    async def claim(self, now: int, stuck_before: int, max_attempts: int) -> Job | None:
        """As ``QueueBackend.claim``."""
        jobs = await self.claim_many(now, stuck_before, max_attempts, 1)
        return jobs[0] if jobs else None


def unique_claims(done: list[tuple[Job, str, str]]) -> dict[tuple[int, int], int]:
    """Each claim ``(id, attempts)`` in a ``complete_many`` batch → the index of its first item."""
    first: dict[tuple[int, int], int] = {}
    for i, (job, _, _) in enumerate(done):
        first.setdefault((job.id, job.attempts), i)
    return first
