"""The ingest-queue policy: claim order, leases, retry backoff and attempt limits.

A claim leases the job for ``queues.ingest_stuck_s``; the worker running it renews the
lease (``renew``) every third of that, so a job is claimed again only once its worker has
stopped renewing (it died), however long the job runs.

Workers sharing a queue claim and complete together: the claims of every worker waiting at
one moment are one ``claim_many`` round trip (up to ``CLAIM_BATCH`` jobs), and plain
completions likewise one ``complete_many``. A queue made with ``prefetch`` (the server's:
one per worker) claims up to that many jobs ahead while the queue is deep, and hands them to
its next free workers without a round trip (``prefetch.py``: shared, fresh, given back when
not started within a third of the lease, or on ``close``). A completion inside
a transaction (a job's effects with it, ``Claim.commit``) runs in that transaction.
Backends (``postgres.py``, ``sqlite.py``) only run SQL; every decision and every timeout is
here, taken from ``QueueSettings`` so tests can shrink them. Times are unix seconds from an
injectable clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Literal, TypedDict, Unpack, get_args

import pluggy

from rk.core.api.lookups import get_queue_backend
from rk.core.api.queues import Job, QueueBackend, SignedJob
from rk.core.config import QueueSettings
from rk.server.platform.db.batches import Batches, Waiting
from rk.server.platform.db.database import Database, open_database
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.prefetch import Prefetch
from rk.server.platform.jobs.signed_batches import SignedBatches

log = logging.getLogger(__name__)

JobKind = Literal["crawl", "media_cleanup"]
Outcome = Literal[
    "created", "reused_rejected", "skipped_existing", "skipped_deleted", "cleaned", "noop"
]
FailResult = Literal["retrying", "failed", "lost"]
KINDS: frozenset[str] = frozenset(get_args(JobKind))
OUTCOMES: frozenset[str] = frozenset(get_args(Outcome))
Completion = tuple[Job, str, str]
"""A claimed job, its outcome and note, as ``complete_many`` takes them."""
LOST_BATCH = 100
CLAIM_BATCH = 64
"""The most jobs one round trip claims, or completes."""


def wall_clock() -> int:
    """Now, in unix seconds."""
    return int(time.time())


class QueueOptions(TypedDict, total=False):
    """What ``JobQueue.open`` passes on to ``JobQueue.on``: the plugin manager whose queue
    backends to use, the clock, and how many jobs to claim ahead (see ``on``)."""

    pm: pluggy.PluginManager | None
    clock: Callable[[], int]
    prefetch: int


class OncePerTick:
    """Says when a clock tick (a unix second) is new: the lost-lease sweep of a queue runs on
    the first claim of each tick, not on every claim of a busy one."""

    def __init__(self) -> None:
        self._last: int | None = None

    def first(self, now: int) -> bool:
        """True on the first call at ``now``, False on the others."""
        if self._last == now:
            return False
        self._last = now
        return True


class JobQueue:
    """``ingest_jobs`` with rk's rules, over any registered backend."""

    def __init__(
        self,
        backend: QueueBackend,
        settings: QueueSettings,
        clock: Callable[[], int] = wall_clock,
        *,
        db: Database,
        owns_db: bool = False,
        prefetch: int = 0,
    ) -> None:
        self.backend = backend
        self.settings = settings
        self.clock = clock
        self.db = db
        self._owns_db = owns_db
        self._reaping = OncePerTick()
        self.enqueued = asyncio.Event()
        """Pulsed when a job is enqueued (``watch``): wakes the workers waiting on it."""
        self.wakeups = 0
        """How many pulses so far: a worker that saw a pulse while busy does not wait."""
        self._claimers: list[asyncio.Future[Job | None]] = []
        self._claiming: asyncio.Task[None] | None = None
        self._completions: Batches[Completion, bool] = Batches(
            self._complete_batch, name="rk-queue-completions", most=CLAIM_BATCH
        )
        self.prefetched = Prefetch(prefetch)
        self._expiring: asyncio.Task[None] | None = None
        self._signed = SignedBatches(backend, clock)

    @classmethod
    def on(
        cls,
        db: Database,
        settings: QueueSettings,
        pm: pluggy.PluginManager | None = None,
        clock: Callable[[], int] = wall_clock,
        *,
        prefetch: int = 0,
    ) -> JobQueue:
        """A queue over the process's database, on the backend registered for its engine.

        ``prefetch``: how many jobs it may claim ahead of its workers (one per worker).
        """
        backend = get_queue_backend(db.dsn, pm)(db)
        return cls(backend, settings, clock, db=db, prefetch=prefetch)

    @classmethod
    async def open(
        cls, dsn: str, settings: QueueSettings, **options: Unpack[QueueOptions]
    ) -> JobQueue:
        """A queue with a database of its own (tools and tests); ``close`` closes both."""
        queue = cls.on(await open_database(dsn, pool_size=2, readers=1), settings, **options)
        queue._owns_db = True
        return queue

    async def watch(self) -> bool:
        """Pulse ``enqueued`` on every new job the backend hears of; False if it cannot."""
        return await self.backend.watch(self._pulse)

    def _pulse(self) -> None:
        self.wakeups += 1
        self.enqueued.set()  # wakes every waiter now; later waits block again
        self.enqueued.clear()

    @property
    def renew_every_s(self) -> float:
        """How often a worker renews the lease of the job it runs: a third of the lease."""
        return max(self.settings.ingest_stuck_s / 3, 0.5)

    def backoff(self, attempts: int) -> int:
        """Seconds to wait after the ``attempts``-th failed attempt: base·2^(n-1), capped."""
        s = self.settings
        return min(s.backoff_base_s * 2 ** max(attempts - 1, 0), s.backoff_cap_s)

    async def enqueue(self, kind: JobKind, payload: str, brand_id: int = 0) -> int:
        """Add a pending job, due now; ``brand_id`` is the brand resolved at submission."""
        if kind not in KINDS:
            raise ValueError(f"unknown ingest job kind {kind!r}; expected one of {sorted(KINDS)}")
        return await self.backend.enqueue(kind, payload, brand_id, self.clock())

    async def enqueue_signed(
        self, kind: JobKind, payload: str, brand_id: int, signature: str, expires_at: int
    ) -> int | None:
        """``enqueue``, recording the request's signature with the job: None for a replay.

        Concurrent calls are written together, a batch per round trip (``signed_batches``).
        """
        if kind not in KINDS:
            raise ValueError(f"unknown ingest job kind {kind!r}; expected one of {sorted(KINDS)}")
        job = SignedJob(
            kind=kind,
            payload=payload,
            brand_id=brand_id,
            signature=signature,
            expires_at=expires_at,
        )
        return await self._signed.enqueue(job)

    async def claim(self) -> Job | None:
        """Take the oldest due job (pending, or processing with its lease run out), or None.

        A stuck job that has used every attempt is never claimed again: it is marked failed
        ("worker lost") here, at most once per clock second per queue. A job this process
        claimed ahead (``prefetch``) and still fresh is handed out first, with no round trip.
        """
        now = self.clock()
        stuck_before = now - self.settings.ingest_stuck_s
        max_attempts = self.settings.ingest_max_attempts
        if self._reaping.first(now):
            await self._fail_lost(now, stuck_before, max_attempts)
            await self._give_back_stale(now)
        ahead = self.prefetched.take(now, self.renew_every_s)
        if ahead is not None:
            if self.prefetched.want(0, CLAIM_BATCH):  # half used: refill while they work
                self._claim_soon()
            return ahead
        wanted: asyncio.Future[Job | None] = asyncio.get_running_loop().create_future()
        self._claimers.append(wanted)
        self._claim_soon()
        return await wanted

    def _claim_soon(self) -> None:
        if self._claiming is None:
            self._claiming = asyncio.create_task(self._claim_batches(), name="rk-queue-claims")

    async def _claim_batches(self) -> None:
        """Claim for the waiting workers (and ahead), a round trip at a time, until none waits."""
        try:
            while True:
                waiting = [w for w in self._claimers[:CLAIM_BATCH] if not w.done()]
                del self._claimers[:CLAIM_BATCH]
                now = self.clock()
                while waiting and (ahead := self.prefetched.take(now, self.renew_every_s)):
                    waiting.pop(0).set_result(ahead)
                want = self.prefetched.want(len(waiting), CLAIM_BATCH)
                if not want:
                    if self._claimers:
                        continue
                    return
                try:
                    jobs = await self.backend.claim_many(
                        now,
                        now - self.settings.ingest_stuck_s,
                        self.settings.ingest_max_attempts,
                        want,
                    )
                except Exception as exc:
                    self.prefetched.claimed(len(waiting), want, 0)  # no refill until it works
                    for w in waiting:
                        if not w.done():
                            w.set_exception(exc)
                    continue
                self.prefetched.claimed(len(waiting), want, len(jobs))
                for n, w in enumerate(waiting):
                    if not w.done():
                        w.set_result(jobs[n] if n < len(jobs) else None)
                    elif n < len(jobs):  # its worker was cancelled meanwhile
                        await self._release_quietly(jobs[n])
                for job in jobs[len(waiting) :]:
                    self.prefetched.put(job, now)
                if len(self.prefetched) and self._expiring is None:
                    self._expiring = asyncio.create_task(
                        self._expire_prefetched(), name="rk-queue-prefetch"
                    )
        finally:
            self._claiming = None

    async def _expire_prefetched(self) -> None:
        """Give back jobs claimed ahead that no worker started while fresh (all were busy)."""
        try:
            while len(self.prefetched):
                await asyncio.sleep(self.renew_every_s)
                await self._give_back_stale(self.clock())
        finally:
            self._expiring = None

    async def _give_back_stale(self, now: int) -> None:
        stale = self.prefetched.stale(now, self.renew_every_s)
        await asyncio.gather(*(self._release_quietly(job) for job in stale))

    async def _release_quietly(self, job: Job) -> None:
        try:
            await self.release(job)
        except Exception as exc:
            log.warning(
                "ingest job %d claimed for a cancelled worker, not released: %s", job.id, exc
            )

    async def _fail_lost(self, now: int, stuck_before: int, max_attempts: int) -> None:
        for job in await self.backend.lost(stuck_before, max_attempts, LOST_BATCH):
            error = (
                f"worker lost: lease of {self.settings.ingest_stuck_s} s not renewed "
                f"after {job.attempts} attempts"
            )
            if await self.backend.fail(job, error, now):
                log.warning("ingest job %s failed: %s", job.id, error)

    async def complete(self, job: Job, outcome: Outcome, note: str = "") -> bool:
        """Mark the job done; False if this claim was lost (the job was reclaimed)."""
        if outcome not in OUTCOMES:
            raise ValueError(
                f"unknown ingest outcome {outcome!r}; expected one of {sorted(OUTCOMES)}"
            )
        if self.db.in_transaction():
            return await self.backend.complete(job, outcome, note, self.clock())
        return await self._completions.ask((job, outcome, note))

    async def _complete_batch(self, batch: list[Waiting[Completion, bool]]) -> None:
        """Complete a batch in one round trip (a cancelled waiter's job too), then answer each."""
        try:
            results = await self.backend.complete_many(
                [completion for completion, _ in batch], self.clock()
            )
        except Exception as exc:
            for _, held in batch:
                if not held.done():
                    held.set_exception(exc)
            return
        for (_, held), result in zip(batch, results, strict=True):
            if not held.done():
                held.set_result(result)

    async def fail(self, job: Job, error: str, *, permanent: bool = False) -> FailResult:
        """Record a failed attempt: retry after the backoff, or fail for good after the last.

        ``permanent`` fails it for good at once (a retry could not end differently).
        """
        now = self.clock()
        if job.attempts < self.settings.ingest_max_attempts and not permanent:
            due = now + self.backoff(job.attempts)
            held = await self.backend.retry(job, error, now, due)
            result: FailResult = "retrying"
        else:
            held = await self.backend.fail(job, error, now)
            result = "failed"
        return result if held else "lost"

    async def renew(self, job: Job) -> bool:
        """Extend the job's lease from now; False if this claim was lost."""
        return await self.backend.renew(job, self.clock())

    async def release(self, job: Job) -> bool:
        """Hand the job back on shutdown: pending again, this attempt not counted."""
        return await self.backend.release(job, self.clock())

    async def settled(self) -> None:
        """Wait until no claim or completion round trip is in flight (claims ahead included)."""
        if self._claiming is not None:
            with contextlib.suppress(Exception):
                await self._claiming
        await self._completions.settled()

    async def close(self) -> None:
        """Close the backend, and the database when the queue opened it."""
        await self.settled()
        await self._signed.close()
        await stop_task(self._expiring)
        await asyncio.gather(*(self._release_quietly(job) for job in self.prefetched.drain()))
        await self.backend.close()
        if self._owns_db:
            await self.db.close()
