"""Jobs claimed ahead of a process's workers, on both engines: every claim rule still holds.

A queue made with ``prefetch`` claims up to that many jobs more than its waiting workers
while the queue is deep, and hands them to its next free worker. Each is still claimed once,
its attempt counted once; a process that dies holding them leaves them to the stuck
reclaim; one no worker started while fresh, or still held on ``close``, goes back untouched.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

from rk.core.api.plugins import get_plugin_manager
from rk.core.api.queues import Job
from rk.core.config import QueueSettings
from rk.server.ingest.worker import IngestWorkers
from rk.server.platform.jobs.claim import Claim
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.job_result import JobDone
from tests.integration.queues.helpers import Clock, MakeQueue, Rows, claim_at_once

HERE = Path(__file__).parent
HANG_GUARD_S = 60  # only ends a broken run


async def claim_until_ahead(queue: JobQueue, workers: int) -> list[Job]:
    """Rounds of claims (each completing the last) until jobs are held ahead; then settled."""
    started: list[Job] = []
    while not len(queue.prefetched):
        for job in started:
            assert await queue.complete(job, "noop", "an earlier round")
        started = await claim_at_once(queue, workers)
        assert started, "the queue ran dry before any batch claimed ahead"
        await queue.settled()  # a refill ahead may still be in flight
    return started


async def start_worker_process(dsn: str, workers: int, mode: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE / "batch_worker.py"),
        dsn,
        str(workers),
        mode,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def report(proc: asyncio.subprocess.Process) -> Any:
    """The worker process's one-line JSON report."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    line = await asyncio.wait_for(proc.stdout.readline(), HANG_GUARD_S)
    assert line, (await proc.stderr.read()).decode()
    return json.loads(line)


async def test_sixteen_workers_in_two_processes_claim_each_job_once(
    make_queue: MakeQueue, queue_dsn: str, rows: Rows
) -> None:
    here = await make_queue(prefetch=8)
    ids = [await here.enqueue("crawl", str(n), 0) for n in range(400)]
    claims: list[tuple[int, int]] = []
    held_ahead = 0

    async def loop() -> None:
        nonlocal held_ahead
        while (job := await here.claim()) is not None:
            claims.append((job.id, job.attempts))
            held_ahead = max(held_ahead, len(here.prefetched))
            assert await here.complete(job, "noop", "this process")

    proc = await start_worker_process(queue_dsn, 8, "run")
    try:
        _, theirs = await asyncio.gather(asyncio.gather(*(loop() for _ in range(8))), report(proc))
        assert await proc.wait() == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    claims += [(job_id, attempts) for job_id, attempts in theirs]
    assert sorted(job_id for job_id, _ in claims) == ids  # every job once, none twice
    assert {attempts for _, attempts in claims} == {1}
    assert held_ahead > 0  # this process did claim ahead of its workers
    found = await rows("SELECT status, attempts FROM ingest_jobs")
    assert {(r["status"], r["attempts"]) for r in found} == {("done", 1)}


async def test_jobs_claimed_ahead_by_a_dead_process_are_reclaimed(
    make_queue: MakeQueue, queue_dsn: str, rows: Rows
) -> None:
    clock = Clock()
    survivor = await make_queue(clock=clock)
    for n in range(40):
        await survivor.enqueue("crawl", str(n), 0)
    proc = await start_worker_process(queue_dsn, 4, "hang")
    try:
        held = await report(proc)
        proc.send_signal(signal.SIGKILL)
        assert await proc.wait() == -signal.SIGKILL
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert held["ahead"]
    found = await rows(
        "SELECT id, attempts, locked_at FROM ingest_jobs WHERE status = 'processing'"
    )
    dead = {r["id"] for r in found}  # a refill may have been in flight when it died
    assert set(held["started"]) | set(held["ahead"]) <= dead
    assert {r["attempts"] for r in found} == {1}  # each claim counted once

    clock.now = max(r["locked_at"] for r in found) + QueueSettings().ingest_stuck_s + 1
    again = {job.id: job.attempts for job in await claim_at_once(survivor, 40)}
    assert {job_id: again.get(job_id) for job_id in dead} == dict.fromkeys(dead, 2)


async def test_a_dead_claim_held_ahead_is_never_handed_out(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    settings = QueueSettings(ingest_stuck_s=60)
    stalled = await make_queue(settings, clock=clock, prefetch=4)
    other = await make_queue(settings, clock=clock)
    for n in range(40):
        await stalled.enqueue("crawl", str(n), 0)
    await claim_until_ahead(stalled, 4)
    ahead = stalled.prefetched.jobs()

    clock.advance(61)  # the stalled process renewed nothing: the stuck reclaim takes them
    taken = {job.id for job in await claim_at_once(other, 40)}
    assert {job.id for job in ahead} <= taken
    job = await stalled.claim()  # its claims ahead are stale now: given back, not handed out
    assert job is None or job.id not in taken
    ahead_rows = await rows(
        "SELECT status, attempts FROM ingest_jobs WHERE id IN "
        f"({', '.join(str(job.id) for job in ahead)})"
    )
    assert {(r["status"], r["attempts"]) for r in ahead_rows} == {("processing", 2)}


async def test_jobs_claimed_ahead_go_back_when_no_worker_is_free(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    # A lease of 1 s: claims ahead are stale after 0.5 s, when the queue checks them.
    busy = await make_queue(QueueSettings(ingest_stuck_s=1), clock=clock, prefetch=4)
    for n in range(40):
        await busy.enqueue("crawl", str(n), 0)
    started = await claim_until_ahead(busy, 4)
    ahead = [job.id for job in busy.prefetched.jobs()]
    clock.advance(1)  # every worker is still on its job: none claims again

    held = f"SELECT status, attempts FROM ingest_jobs WHERE id IN ({', '.join(map(str, ahead))})"

    async def given_back() -> list[Any]:
        # The queue lets go of them before their release commits: wait for the rows.
        while len(busy.prefetched) or any(r["status"] == "processing" for r in await rows(held)):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        return await rows(held)

    found = await asyncio.wait_for(given_back(), HANG_GUARD_S)
    assert {(r["status"], r["attempts"]) for r in found} == {("pending", 0)}  # not counted
    for job in started:
        assert await busy.renew(job)  # the started jobs are still theirs


async def test_close_gives_back_jobs_claimed_ahead(make_queue: MakeQueue, rows: Rows) -> None:
    queue = await make_queue(prefetch=4)
    for n in range(40):
        await queue.enqueue("crawl", str(n), 0)
    started = await claim_until_ahead(queue, 4)
    ahead = [job.id for job in queue.prefetched.jobs()]
    await queue.close()
    found = await rows("SELECT id FROM ingest_jobs WHERE status = 'processing'")
    assert {r["id"] for r in found} == {job.id for job in started}
    found = await rows(
        f"SELECT status, attempts FROM ingest_jobs WHERE id IN ({', '.join(map(str, ahead))})"
    )
    assert {(r["status"], r["attempts"]) for r in found} == {("pending", 0)}


async def test_a_slow_job_holds_up_no_job_claimed_ahead(make_queue: MakeQueue, rows: Rows) -> None:
    queue = await make_queue(prefetch=2)
    slow_started, release_slow = asyncio.Event(), asyncio.Event()
    fast: asyncio.Queue[int] = asyncio.Queue()

    async def handler(job: Job, claim: Claim) -> JobDone:
        if job.payload == "slow":
            slow_started.set()
            await release_slow.wait()
        else:
            fast.put_nowait(job.id)
        return JobDone(outcome="noop", note=job.payload)

    slow = await queue.enqueue("crawl", "slow", 0)
    quick = [await queue.enqueue("crawl", f"quick {n}", 0) for n in range(20)]
    workers = IngestWorkers(
        queue, {"crawl": handler}, get_plugin_manager(), count=2, poll_interval_s=3600
    )
    workers.start()
    try:
        await asyncio.wait_for(slow_started.wait(), HANG_GUARD_S)
        ran = [await asyncio.wait_for(fast.get(), HANG_GUARD_S) for _ in quick]
        assert sorted(ran) == quick  # all run by the other worker while the slow one works
        (row,) = await rows(f"SELECT status FROM ingest_jobs WHERE id = {slow}")
        assert row["status"] == "processing"
    finally:
        release_slow.set()
        await workers.stop()
