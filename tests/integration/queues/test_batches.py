"""Batched claims and completions, on both engines: the claim rules hold for every batch.

Workers sharing a queue claim in one ``claim_many`` and complete in one ``complete_many``;
a job still goes to one worker at a time, its attempt counts once, and a claim lost to the
stuck reclaim changes nothing, whether completed alone, in a batch or in a transaction.
"""

from __future__ import annotations

import asyncio

import pytest

from rk.core.config import QueueSettings
from tests.integration.queues.helpers import Clock, MakeQueue, Rows, claim_at_once


async def test_batch_claimed_jobs_go_to_one_worker_each(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    first, second = await make_queue(clock=clock), await make_queue(clock=clock)
    ids = [await first.enqueue("crawl", str(n), 0) for n in range(20)]

    a, b = await asyncio.gather(claim_at_once(first, 12), claim_at_once(second, 12))

    claimed = [job.id for job in a + b]
    assert sorted(claimed) == ids  # every job once, none twice
    assert {job.attempts for job in a + b} == {1}
    found = await rows("SELECT status, attempts FROM ingest_jobs")
    assert {(r["status"], r["attempts"]) for r in found} == {("processing", 1)}


async def test_batch_claim_keeps_claim_order(make_queue: MakeQueue, clock: Clock) -> None:
    queue = await make_queue(QueueSettings(ingest_stuck_s=100), clock=clock)
    stuck = await queue.enqueue("crawl", "stuck", 0)
    assert (await queue.claim()).id == stuck  # type: ignore[union-attr]  # stuck from t0 + 100
    clock.advance(150)
    ready = [await queue.enqueue("crawl", str(n), 0) for n in range(3)]  # due at t0 + 150
    clock.advance(50)
    got = await claim_at_once(queue, 3)  # 4 due, 3 wanted: the three waiting longest
    assert sorted((job.id, job.attempts) for job in got) == [
        (stuck, 2),
        (ready[0], 1),
        (ready[1], 1),
    ]


async def test_reclaimed_jobs_fail_to_complete_in_a_batch(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    settings = QueueSettings(ingest_stuck_s=60)
    dead, alive = await make_queue(settings, clock=clock), await make_queue(settings, clock=clock)
    for n in range(3):
        await dead.enqueue("crawl", str(n), 0)
    old = await claim_at_once(dead, 3)
    clock.advance(61)  # the dead worker stopped renewing: stuck reclaim
    new = await claim_at_once(alive, 3)
    assert sorted((j.id, j.attempts) for j in new) == sorted((j.id, 2) for j in old)

    late = await asyncio.gather(*(dead.complete(job, "created", "late") for job in old))
    assert late == [False, False, False]
    async with dead.db.transaction():
        assert not await dead.complete(old[0], "created", "late, in a transaction")
    done = await asyncio.gather(*(alive.complete(job, "created", "ok") for job in new))
    assert done == [True, True, True]
    found = await rows("SELECT status, attempts, note FROM ingest_jobs")
    assert {(r["status"], r["attempts"], r["note"]) for r in found} == {("done", 2, "ok")}


async def test_complete_many_holds_each_claim_once(make_queue: MakeQueue, clock: Clock) -> None:
    queue = await make_queue(QueueSettings(ingest_stuck_s=60), clock=clock)
    for n in range(2):
        await queue.enqueue("crawl", str(n), 0)
    one, two = sorted(await claim_at_once(queue, 2), key=lambda job: job.id)
    clock.advance(61)
    (one_again,) = await claim_at_once(queue, 1)  # only the first due is taken
    assert (one_again.id, one_again.attempts) == (one.id, 2)
    now = clock()
    results = await queue.backend.complete_many(
        [
            (one, "created", "lost"),
            (two, "created", "a"),
            (two, "created", "b"),
            (one_again, "noop", ""),
        ],
        now,
    )
    assert results == [False, True, False, True]
    assert await queue.backend.complete_many([], now) == []


async def test_a_job_claimed_for_a_cancelled_worker_is_released(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    queue = await make_queue(clock=clock)
    job_id = await queue.enqueue("crawl", "x", 0)
    waiting = asyncio.create_task(queue.claim())
    # Until the batch that claims for the worker is in flight (taken off the waiting list).
    while (queue._claiming is None or queue._claimers) and not waiting.done():  # noqa: ASYNC110
        await asyncio.sleep(0)
    waiting.cancel()  # shutdown: the batch still claims the job, and gives it back
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await queue.close()
    (row,) = await rows(f"SELECT status, attempts FROM ingest_jobs WHERE id = {job_id}")
    assert (row["status"], row["attempts"]) == ("pending", 0)
