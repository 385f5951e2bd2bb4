"""The crawl-task queue on every database engine: order, sources, leases, attempts, admin.

Each rule of DESIGN's ``crawl_tasks`` and the crawl-task issue, run through the real
service and store against a migrated SQLite file and a fresh PostgreSQL database.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from rk.core.api.wire import CrawlTask
from rk.core.config import QueueSettings
from rk.server.crawl.tasks import (
    CrawlTasks,
    TaskConflict,
    TaskNotFound,
    TaskNotHeld,
    UnknownBrand,
)
from rk.server.platform.http.errors import ApiError
from tests.integration.queues.helpers import Clock, Rows

MakeTasks = Callable[..., Awaitable[CrawlTasks]]
LEASE = 900


@pytest.fixture
async def make_tasks(queue_dsn: str, clock: Clock) -> AsyncIterator[MakeTasks]:
    """Build services on the test database (each with its own connections); closed after."""
    made: list[CrawlTasks] = []

    async def make(settings: QueueSettings | None = None) -> CrawlTasks:
        tasks = await CrawlTasks.open(queue_dsn, settings or QueueSettings(), clock=clock)
        made.append(tasks)
        return tasks

    yield make
    for tasks in made:
        await tasks.close()


@pytest.fixture
async def brands(rows: Rows) -> dict[str, int]:
    """A few brands, by name → id; Kestrel & Vine has a Vogue slug."""
    names = {
        "Kestrel & Vine": '{"vogue": "kestrel-vine", "theimpression": "kv"}',
        "Acne Studios": "{}",
        "ACME Atelier": "{}",
        "a_b Label": "{}",
        "axb Works": "{}",
        "Balmain": "not json",
    }
    for n, (name, slugs) in enumerate(names.items(), start=1):
        await rows(
            "INSERT INTO brands (uid, name, slugs, created_at, updated_at) "
            f"VALUES ('uid{n}', '{name}', '{slugs}', 0, 0)"
        )
    return {r["name"]: r["id"] for r in await rows("SELECT id, name FROM brands")}


async def task_row(rows: Rows, task_id: int) -> dict[str, Any]:
    (row,) = await rows(f"SELECT * FROM crawl_tasks WHERE id = {task_id}")
    return row


async def test_claim_by_priority_then_id_with_brand_and_slug(
    make_tasks: MakeTasks, brands: dict[str, int], clock: Clock, rows: Rows
) -> None:
    tasks = await make_tasks()
    kestrel, acne, balmain = brands["Kestrel & Vine"], brands["Acne Studios"], brands["Balmain"]
    low = await tasks.add_task(acne, 3, 0, "vogue")
    high = await tasks.add_task(kestrel, 0, 5, "vogue")
    low_later = await tasks.add_task(balmain, 2, 0, "vogue")

    first = await tasks.claim("spider-1", "vogue")
    assert first == CrawlTask(
        id=high,
        brand_id=kestrel,
        brand_uid="uid1",
        brand_name="Kestrel & Vine",
        max_shows=0,
        source="vogue",
        slug="kestrel-vine",
    )
    row = await task_row(rows, high)
    assert (row["status"], row["worker"], row["locked_at"], row["attempts"]) == (
        "running",
        "spider-1",
        clock.now,
        1,
    )
    second, third = await tasks.claim("spider-1", "vogue"), await tasks.claim("spider-2", "vogue")
    assert second is not None
    assert third is not None
    assert [second.id, third.id] == [low, low_later]
    assert (second.slug, third.slug, third.max_shows) == ("", "", 2)  # no slug; bad JSON
    assert await tasks.claim("spider-1", "vogue") is None


async def test_only_a_worker_of_the_task_source_claims_it(
    make_tasks: MakeTasks, brands: dict[str, int]
) -> None:
    tasks = await make_tasks()
    street = await tasks.add_task(brands["Kestrel & Vine"], 0, 9, "theimpression")
    runway = await tasks.add_task(brands["Kestrel & Vine"], 0, 0, "vogue")
    claimed = await tasks.claim("w", "vogue")
    assert claimed is not None
    assert claimed.id == runway
    assert await tasks.claim("w", "vogue") is None
    other = await tasks.claim("w", "theimpression")
    assert other is not None
    assert (other.id, other.slug) == (street, "kv")


async def test_expired_lease_is_reclaimed_and_the_stale_worker_refused(
    make_tasks: MakeTasks, brands: dict[str, int], clock: Clock, rows: Rows
) -> None:
    tasks = await make_tasks(QueueSettings(crawl_lease_s=LEASE))
    task_id = await tasks.add_task(brands["Balmain"], 3)
    assert await tasks.claim("old", "vogue") is not None
    clock.advance(LEASE)
    assert await tasks.claim("new", "vogue") is None
    clock.advance(1)
    assert (await tasks.claim("new", "vogue")).id == task_id  # type: ignore[union-attr]

    before = await task_row(rows, task_id)
    assert (before["worker"], before["attempts"], before["status"]) == ("new", 2, "running")
    with pytest.raises(TaskNotHeld, match=f"crawl task {task_id} is not held by old"):
        await tasks.report(task_id, "old", "done", 7, "")
    with pytest.raises(TaskNotHeld):
        await tasks.heartbeat(task_id, "old")
    assert await task_row(rows, task_id) == before
    assert await tasks.report(task_id, "new", "done", 4) == "done"
    after = await task_row(rows, task_id)
    assert (after["status"], after["shows_submitted"], after["last_error"]) == ("done", 4, "")


async def test_heartbeat_extends_the_lease(
    make_tasks: MakeTasks, brands: dict[str, int], clock: Clock
) -> None:
    tasks = await make_tasks(QueueSettings(crawl_lease_s=LEASE))
    task_id = await tasks.add_task(brands["Balmain"])
    assert await tasks.claim("w1", "vogue") is not None
    clock.advance(800)
    assert await tasks.heartbeat(task_id, "w1") == "running"
    clock.advance(LEASE)  # 1700 s after the claim, 900 after the heartbeat
    assert await tasks.claim("w2", "vogue") is None
    clock.advance(1)
    assert (await tasks.claim("w2", "vogue")).id == task_id  # type: ignore[union-attr]


async def test_failed_results_requeue_until_the_last_attempt(
    make_tasks: MakeTasks, brands: dict[str, int], rows: Rows
) -> None:
    tasks = await make_tasks(QueueSettings(crawl_max_attempts=3))
    task_id = await tasks.add_task(brands["Balmain"])
    for attempt in (1, 2):
        assert await tasks.claim("w", "vogue") is not None
        assert await tasks.report(task_id, "w", "failed", 1, f"boom {attempt}") == "queued"
        row = await task_row(rows, task_id)
        assert (row["status"], row["attempts"], row["last_error"]) == (
            "queued",
            attempt,
            f"boom {attempt}",
        )
    assert await tasks.claim("w", "vogue") is not None
    assert await tasks.report(task_id, "w", "failed", 0, "final") == "failed"
    row = await task_row(rows, task_id)
    assert (row["status"], row["attempts"], row["last_error"]) == ("failed", 3, "final")
    assert await tasks.claim("w", "vogue") is None
    with pytest.raises(TaskNotHeld):
        await tasks.report(task_id, "w", "done", 1)


async def test_lost_leases_count_as_attempts_then_fail(
    make_tasks: MakeTasks, brands: dict[str, int], clock: Clock, rows: Rows
) -> None:
    tasks = await make_tasks(QueueSettings(crawl_lease_s=60, crawl_max_attempts=3))
    task_id = await tasks.add_task(brands["Balmain"])
    for attempt in (1, 2, 3):
        claimed = await tasks.claim(f"w{attempt}", "vogue")
        assert claimed is not None
        assert (await task_row(rows, task_id))["attempts"] == attempt
        clock.advance(61)
    assert await tasks.claim("w4", "vogue") is None
    row = await task_row(rows, task_id)
    assert row["status"] == "failed"
    assert row["last_error"] == "lease lost: no result from w3 within 60 s, after 3 attempts"


async def test_admin_retry_requeues_with_attempts_zero(
    make_tasks: MakeTasks, brands: dict[str, int], rows: Rows
) -> None:
    tasks = await make_tasks(QueueSettings(crawl_max_attempts=1))
    task_id = await tasks.add_task(brands["Balmain"])
    assert await tasks.claim("w", "vogue") is not None
    with pytest.raises(TaskConflict, match=f"crawl task {task_id} is running"):
        await tasks.retry(task_id)
    assert await tasks.report(task_id, "w", "failed", 2, "site down") == "failed"
    await tasks.retry(task_id)
    row = await task_row(rows, task_id)
    assert (row["status"], row["attempts"], row["worker"], row["shows_submitted"]) == (
        "queued",
        0,
        "",
        0,
    )
    assert (await tasks.claim("w", "vogue")).id == task_id  # type: ignore[union-attr]
    with pytest.raises(TaskNotFound):
        await tasks.retry(task_id + 100)


async def test_cancel_stops_claims_and_keeps_the_late_result(
    make_tasks: MakeTasks, brands: dict[str, int], clock: Clock, rows: Rows
) -> None:
    tasks = await make_tasks(QueueSettings(crawl_lease_s=60))
    queued = await tasks.add_task(brands["Balmain"])
    running = await tasks.add_task(brands["Acne Studios"], 0, 9)
    assert (await tasks.claim("w", "vogue")).id == running  # type: ignore[union-attr]
    await tasks.cancel(queued)
    await tasks.cancel(running)
    clock.advance(61)
    assert await tasks.claim("w", "vogue") is None
    assert await tasks.heartbeat(running, "w") == "canceled"
    assert await tasks.report(running, "w", "done", 5, "2 shows paywalled") == "canceled"
    row = await task_row(rows, running)
    assert (row["status"], row["shows_submitted"], row["last_error"]) == (
        "canceled",
        5,
        "2 shows paywalled",
    )
    with pytest.raises(TaskNotHeld):
        await tasks.report(running, "someone-else", "done", 1)
    with pytest.raises(TaskConflict, match="is canceled and cannot be canceled"):
        await tasks.cancel(running)


async def test_delete_removes_only_the_task(
    make_tasks: MakeTasks, brands: dict[str, int], rows: Rows
) -> None:
    tasks = await make_tasks()
    task_id = await tasks.add_task(brands["Balmain"])
    kept = await tasks.add_task(brands["Balmain"])
    assert await tasks.claim("w", "vogue") is not None
    await tasks.delete(task_id)
    assert [r["id"] for r in await rows("SELECT id FROM crawl_tasks")] == [kept]
    assert await rows(f"SELECT id FROM brands WHERE id = {brands['Balmain']}") != []
    with pytest.raises(TaskNotFound):
        await tasks.report(task_id, "w", "done", 1)
    with pytest.raises(TaskNotFound):
        await tasks.delete(task_id)


async def test_batch_adds_by_prefix_skipping_active_tasks(
    make_tasks: MakeTasks, brands: dict[str, int], rows: Rows
) -> None:
    tasks = await make_tasks()
    await tasks.add_task(brands["Acne Studios"], 1, 0, "vogue")  # queued: skipped
    done = await tasks.add_task(brands["ACME Atelier"], 1, 0, "vogue")
    assert await tasks.claim("w", "vogue") is not None  # Acne Studios, running: skipped
    assert await tasks.claim("w", "vogue") is not None
    await tasks.report(done, "w", "done", 1)  # done: not active, queued again
    await tasks.add_task(brands["axb Works"], 1, 0, "theimpression")  # other source

    added = await tasks.batch_add("A", 3, 10, "vogue", 1)
    stored = {t.id: t for t in await tasks.list_tasks()}
    assert [stored[i].brand_name for i in added] == ["a_b Label", "ACME Atelier", "axb Works"]
    assert {(stored[i].max_shows, stored[i].priority, stored[i].status) for i in added} == {
        (3, 1, "queued")
    }
    assert await tasks.batch_add("a", 3, 10, "vogue") == []  # every match is active now

    literal = await tasks.batch_add("a_", 2, 10, "other")  # "_" is not a wildcard
    assert [(await task_row(rows, i))["brand_id"] for i in literal] == [brands["a_b Label"]]
    assert len(await tasks.batch_add("", 0, 2, "other")) == 2  # count caps the batch
    with pytest.raises(ApiError, match="count must be at least 1"):
        await tasks.batch_add("a", 3, 0, "vogue")


async def test_add_task_checks_its_input(
    make_tasks: MakeTasks, brands: dict[str, int], rows: Rows
) -> None:
    tasks = await make_tasks()
    with pytest.raises(UnknownBrand, match="brand 999 does not exist"):
        await tasks.add_task(999, 3)
    with pytest.raises(ApiError, match="max_shows"):
        await tasks.add_task(brands["Balmain"], -1)
    assert await rows("SELECT id FROM crawl_tasks") == []


async def test_task_of_a_deleted_brand_fails_at_claim(
    make_tasks: MakeTasks, brands: dict[str, int], rows: Rows
) -> None:
    tasks = await make_tasks()
    orphan = await tasks.add_task(brands["Balmain"], 0, 5)
    good = await tasks.add_task(brands["Acne Studios"])
    await rows(f"DELETE FROM brands WHERE id = {brands['Balmain']}")
    claimed = await tasks.claim("w", "vogue")
    assert claimed is not None
    assert claimed.id == good
    row = await task_row(rows, orphan)
    assert (row["status"], row["last_error"]) == (
        "failed",
        f"brand {brands['Balmain']} does not exist",
    )


async def test_list_tasks_newest_first_with_brand_names(
    make_tasks: MakeTasks, brands: dict[str, int]
) -> None:
    tasks = await make_tasks()
    first = await tasks.add_task(brands["Balmain"])
    second = await tasks.add_task(brands["Kestrel & Vine"])
    assert await tasks.claim("w", "vogue") is not None
    listed = await tasks.list_tasks()
    assert [(t.id, t.brand_name, t.status) for t in listed] == [
        (second, "Kestrel & Vine", "queued"),
        (first, "Balmain", "running"),
    ]
    assert [t.id for t in await tasks.list_tasks("running")] == [first]
    with pytest.raises(ApiError, match="unknown crawl task status"):
        await tasks.list_tasks("paused")  # type: ignore[arg-type]


async def test_concurrent_claimers_never_share_a_task(
    make_tasks: MakeTasks, brands: dict[str, int]
) -> None:
    producer = await make_tasks()
    ids = [await producer.add_task(brands["Balmain"], 0, n % 3) for n in range(60)]
    claimers = [await make_tasks() for _ in range(4)]

    async def drain(tasks: CrawlTasks, worker: str) -> list[int]:
        got: list[int] = []
        while (task := await tasks.claim(worker, "vogue")) is not None:
            got.append(task.id)
        return got

    claimed = await asyncio.gather(*(drain(t, f"w{i}") for i, t in enumerate(claimers)))
    assert Counter(i for batch in claimed for i in batch) == Counter(ids)
    assert sum(1 for batch in claimed if batch) > 1
