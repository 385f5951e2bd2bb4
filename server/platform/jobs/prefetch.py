"""A process's jobs claimed ahead of its workers, handed out locally to the next free one.

A batch claim may take a few jobs more than the workers waiting at that moment, so the next
worker to finish gets its job without a round trip; once half of them are handed out, the
queue claims more in the background while the workers run theirs. Those jobs are claimed
like any other (status processing, an attempt counted, ``locked_at`` their claim time), so a
process that dies leaves them to the stuck reclaim. They are shared by all the process's
workers, not reserved for one, so none waits behind a slow job; and one is handed out only
while fresh (claimed less than a third of the lease ago: its worker's first renewal then
comes well inside the lease). A job that is not is given back to the queue (``stale``) for
any process.

How many to claim ahead follows the queue's depth: it doubles while batches come back full
and drops to none as soon as one comes back short, so a shallow queue is not hoarded.
"""

from __future__ import annotations

from collections import deque

from rk.core.api.queues import Job


class Prefetch:
    """Claimed jobs not yet started, oldest claim first, and how many to claim ahead next."""

    def __init__(self, cap: int) -> None:
        self.cap = max(0, cap)
        """The most jobs held ahead: one per worker of the process keeps all of them busy."""
        self.ahead = 0
        """How many more jobs than waiting workers the next batch asks for."""
        self._jobs: deque[tuple[Job, int]] = deque()

    def __len__(self) -> int:
        return len(self._jobs)

    def want(self, waiting: int, most: int) -> int:
        """How many jobs a batch claims for ``waiting`` workers: theirs plus some ahead.

        With no worker waiting it claims ahead only once half of those held are handed out
        (then up to ``cap`` again), so the refill overlaps the workers' jobs in few trips.
        """
        if not waiting and len(self._jobs) > self.cap // 2:
            return 0
        room = max(self.cap - len(self._jobs), 0)
        return min(waiting + min(self.ahead, room), max(most, waiting))

    def claimed(self, waiting: int, asked: int, got: int) -> None:
        """Adapt to the queue's depth: a full batch claims further ahead, a short one not at all."""
        self.ahead = min(self.cap, max(self.ahead * 2, waiting)) if got >= asked else 0

    def put(self, job: Job, claimed_at: int) -> None:
        """Hold a job claimed at ``claimed_at`` for the next free worker."""
        self._jobs.append((job, claimed_at))

    def take(self, now: int, fresh_s: float) -> Job | None:
        """The oldest held job still fresh at ``now``, or None (stale ones stay for ``stale``)."""
        if self._jobs and now - self._jobs[0][1] < fresh_s:
            return self._jobs.popleft()[0]
        return None

    def stale(self, now: int, fresh_s: float) -> list[Job]:
        """Remove and return the held jobs no longer fresh at ``now``."""
        old: list[Job] = []
        while self._jobs and now - self._jobs[0][1] >= fresh_s:
            old.append(self._jobs.popleft()[0])
        return old

    def jobs(self) -> list[Job]:
        """The held jobs, oldest claim first (they stay held)."""
        return [job for job, _ in self._jobs]

    def drain(self) -> list[Job]:
        """Remove and return every held job."""
        jobs = [job for job, _ in self._jobs]
        self._jobs.clear()
        return jobs
