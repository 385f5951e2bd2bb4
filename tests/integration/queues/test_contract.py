"""The ingest-queue contract, run against every database engine (PostgreSQL and SQLite).

Each rule of DESIGN's ``ingest_jobs``: claim order, backoff, attempt limits, outcomes,
release, stuck reclaim, and exactly-once processing under concurrent workers and a
worker process killed mid-job.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from rk.core.api.queues import Job
from rk.core.config import QueueSettings
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.postgres import PostgresQueue
from rk.server.platform.jobs.sqlite import SqliteQueue
from tests.integration.queues.helpers import Clock, Rows

HERE = Path(__file__).parent
MakeQueue = Callable[..., Awaitable[JobQueue]]


@pytest.fixture
async def make_queue(queue_dsn: str, clock: Clock) -> AsyncIterator[MakeQueue]:
    """Build queues on the test database (each with its own connections); closed afterwards."""
    made: list[JobQueue] = []

    async def make(
        settings: QueueSettings | None = None, clock_fn: Callable[[], int] = clock
    ) -> JobQueue:
        queue = await JobQueue.open(queue_dsn, settings or QueueSettings(), clock=clock_fn)
        made.append(queue)
        return queue

    yield make
    for queue in made:
        await queue.close()


async def job_row(rows: Rows, job_id: int) -> dict[str, object]:
    (row,) = await rows(f"SELECT * FROM ingest_jobs WHERE id = {job_id}")
    return row


async def test_backends_are_registered_by_scheme(make_queue: MakeQueue, queue_dsn: str) -> None:
    queue = await make_queue()
    expected = SqliteQueue if queue_dsn.startswith("sqlite") else PostgresQueue
    assert type(queue.backend) is expected


async def test_claim_takes_oldest_due_job_first(make_queue: MakeQueue, clock: Clock) -> None:
    queue = await make_queue()
    assert await queue.claim() is None
    first = await queue.enqueue("crawl", "a", 1)
    second = await queue.enqueue("media_cleanup", "b", 0)
    third = await queue.enqueue("crawl", "c", 2)

    job = await queue.claim()
    assert job == Job(id=first, kind="crawl", payload="a", attempts=1, brand_id=1)
    assert await queue.fail(job, "boom") == "retrying"  # not due again for 30 s

    assert [(await queue.claim()).id, (await queue.claim()).id] == [second, third]  # type: ignore[union-attr]
    assert await queue.claim() is None
    clock.advance(30)
    again = await queue.claim()
    assert again is not None
    assert (again.id, again.attempts) == (first, 2)


async def test_claim_order_is_by_due_time_then_id(make_queue: MakeQueue, clock: Clock) -> None:
    queue = await make_queue(QueueSettings(ingest_stuck_s=100))
    retried = await queue.enqueue("crawl", "retried", 0)
    stuck = await queue.enqueue("crawl", "stuck", 0)
    job = await queue.claim()
    assert job is not None
    assert job.id == retried
    await queue.fail(job, "boom")  # due again at t0 + 30
    assert (await queue.claim()).id == stuck  # type: ignore[union-attr]  # stuck from t0 + 100
    clock.advance(10)
    newer = await queue.enqueue("crawl", "newer", 0)  # due at t0 + 10
    clock.advance(200)
    # Due at t0 + 10, t0 + 30 and t0 + 100: the one waiting longest goes first.
    order = [(await queue.claim()).id for _ in range(3)]  # type: ignore[union-attr]
    assert order == [newer, retried, stuck]


async def test_processing_job_is_not_claimed_before_stuck_timeout(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    queue = await make_queue(QueueSettings(ingest_stuck_s=300))
    job_id = await queue.enqueue("crawl", "x", 0)
    job = await queue.claim()
    assert job is not None
    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"], row["locked_at"]) == ("processing", 1, clock.now)
    clock.advance(300)
    assert await queue.claim() is None
    clock.advance(1)
    reclaimed = await queue.claim()
    assert reclaimed is not None
    assert (reclaimed.id, reclaimed.attempts) == (job_id, 2)


@pytest.mark.parametrize(
    ("settings", "delays"),
    [
        (QueueSettings(), [30, 60]),
        (QueueSettings(ingest_max_attempts=8), [30, 60, 120, 240, 480, 600, 600]),
        (QueueSettings(ingest_max_attempts=5, backoff_base_s=1, backoff_cap_s=3), [1, 2, 3, 3]),
    ],
    ids=["default", "to-cap", "shrunk"],
)
async def test_backoff_then_failed_after_last_attempt(
    make_queue: MakeQueue, clock: Clock, rows: Rows, settings: QueueSettings, delays: list[int]
) -> None:
    queue = await make_queue(settings)
    job_id = await queue.enqueue("crawl", "x", 0)
    seen: list[int] = []
    for attempt in range(1, settings.ingest_max_attempts):
        job = await queue.claim()
        assert job is not None
        assert job.attempts == attempt
        assert await queue.fail(job, f"error {attempt}") == "retrying"
        row = await job_row(rows, job_id)
        assert (row["status"], row["last_error"]) == ("pending", f"error {attempt}")
        delay = row["next_attempt_at"] - clock.now  # type: ignore[operator]
        seen.append(delay)
        clock.advance(delay - 1)
        assert await queue.claim() is None
        clock.advance(1)
    assert seen == delays
    last = await queue.claim()
    assert last is not None
    assert last.attempts == settings.ingest_max_attempts
    assert await queue.fail(last, "final error") == "failed"
    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"], row["last_error"]) == (
        "failed",
        settings.ingest_max_attempts,
        "final error",
    )
    clock.advance(10_000)
    assert await queue.claim() is None


async def test_complete_stores_outcome_note_and_brand(make_queue: MakeQueue, rows: Rows) -> None:
    queue = await make_queue()
    job_id = await queue.enqueue("crawl", '{"show_key": "s"}', 42)
    job = await queue.claim()
    assert job is not None
    assert job.brand_id == 42
    assert await queue.complete(job, "created", "created 12 images")
    row = await job_row(rows, job_id)
    assert (row["status"], row["outcome"], row["note"], row["brand_id"], row["kind"]) == (
        "done",
        "created",
        "created 12 images",
        42,
        "crawl",
    )
    assert await queue.claim() is None


async def test_unknown_kind_and_outcome_are_refused(make_queue: MakeQueue, rows: Rows) -> None:
    queue = await make_queue()
    with pytest.raises(ValueError, match="unknown ingest job kind 'video'"):
        await queue.enqueue("video", "x", 0)  # type: ignore[arg-type]
    assert await rows("SELECT id FROM ingest_jobs") == []
    await queue.enqueue("crawl", "x", 0)
    job = await queue.claim()
    assert job is not None
    with pytest.raises(ValueError, match="unknown ingest outcome 'great'"):
        await queue.complete(job, "great")  # type: ignore[arg-type]
    assert [r["status"] for r in await rows("SELECT status FROM ingest_jobs")] == ["processing"]


async def test_release_returns_job_without_counting_the_attempt(
    make_queue: MakeQueue, rows: Rows
) -> None:
    queue = await make_queue()
    job_id = await queue.enqueue("media_cleanup", "k", 0)
    job = await queue.claim()
    assert job is not None
    assert await queue.release(job)
    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"], row["locked_at"]) == ("pending", 0, 0)
    again = await queue.claim()
    assert again is not None
    assert (again.id, again.attempts) == (job_id, 1)


async def test_a_reclaimed_job_refuses_the_lost_claim(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    settings = QueueSettings(ingest_stuck_s=10)
    slow, other = await make_queue(settings), await make_queue(settings)
    job_id = await slow.enqueue("crawl", "x", 0)
    lost = await slow.claim()
    assert lost is not None
    clock.advance(11)
    held = await other.claim()
    assert held is not None
    assert (held.id, held.attempts) == (job_id, 2)

    assert not await slow.complete(lost, "created", "late")
    assert await slow.fail(lost, "late error") == "lost"
    assert not await slow.release(lost)
    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"], row["outcome"], row["last_error"]) == (
        "processing",
        2,
        "",
        "",
    )
    assert await other.complete(held, "skipped_existing", "already there")
    assert (await job_row(rows, job_id))["outcome"] == "skipped_existing"


async def test_stuck_job_without_attempts_left_fails_as_worker_lost(
    make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    queue = await make_queue(QueueSettings(ingest_stuck_s=10, ingest_max_attempts=2))
    job_id = await queue.enqueue("crawl", "x", 0)
    for attempt in (1, 2):
        job = await queue.claim()
        assert job is not None
        assert job.attempts == attempt
        clock.advance(11)
    assert await queue.claim() is None
    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"]) == ("failed", 2)
    assert row["last_error"] == "worker lost: lease of 10 s not renewed after 2 attempts"
    assert not await queue.complete(job, "created")


async def test_eight_concurrent_workers_process_each_job_once(
    make_queue: MakeQueue, rows: Rows
) -> None:
    producer = await make_queue()
    ids = [await producer.enqueue("crawl", str(n), n % 7) for n in range(2000)]
    # Each worker has its own backend and connection; only the database arbitrates.
    workers = [await make_queue(clock_fn=Clock()) for _ in range(8)]

    async def work(queue: JobQueue, name: str) -> list[int]:
        done: list[int] = []
        while (job := await queue.claim()) is not None:
            assert await queue.complete(job, "created", name)
            done.append(job.id)
        return done

    claimed = await asyncio.gather(*(work(q, f"w{i}") for i, q in enumerate(workers)))
    every = [job_id for batch in claimed for job_id in batch]
    assert Counter(every) == Counter(ids)
    assert sum(1 for batch in claimed if batch) > 1
    stored = await rows("SELECT id, status, attempts, note FROM ingest_jobs")
    assert {(r["status"], r["attempts"]) for r in stored} == {("done", 1)}
    owner = {job_id: f"w{i}" for i, batch in enumerate(claimed) for job_id in batch}
    assert all(r["note"] == owner[r["id"]] for r in stored)


async def test_killed_worker_process_job_is_reclaimed_and_done_once(
    queue_dsn: str, make_queue: MakeQueue, clock: Clock, rows: Rows
) -> None:
    settings = QueueSettings(ingest_stuck_s=5)
    queue = await make_queue(settings)
    job_id = await queue.enqueue("crawl", "payload", 3)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE / "hang_worker.py"),
        queue_dsn,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        assert proc.stderr is not None
        line = await proc.stdout.readline()
        assert line, (await proc.stderr.read()).decode()
        assert json.loads(line) == {"id": job_id, "attempts": 1}
        proc.send_signal(signal.SIGKILL)
        assert await proc.wait() == -signal.SIGKILL
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"]) == ("processing", 1)
    clock.now = row["locked_at"] + 5  # type: ignore[operator]
    assert await queue.claim() is None
    clock.advance(1)
    job = await queue.claim()
    assert job == Job(id=job_id, kind="crawl", payload="payload", attempts=2, brand_id=3)
    assert await queue.complete(job, "created", "after a crash")
    assert not await queue.complete(
        Job(id=job_id, kind="crawl", payload="payload", attempts=1, brand_id=3), "created"
    )
    row = await job_row(rows, job_id)
    assert (row["status"], row["attempts"], row["note"]) == ("done", 2, "after a crash")
    assert await queue.claim() is None
