"""What a crawl survives: a spider killed mid-brand, two spiders on one queue, a backend
restart mid-crawl. Real processes; leases shrunk to a couple of seconds.
"""

from __future__ import annotations

import signal

from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E
from tests.integration.spider.procs import claims, eventually, reports


async def done_task(task_id: int) -> dict | None:
    """The task row once it is done."""
    row = await archive.task(task_id)
    return row if row["status"] == "done" else None


async def test_killed_spider_task_is_finished_by_another_after_the_lease(e2e: E2E) -> None:
    backend = e2e.backend()
    _, task_id = await e2e.queue("Kestrel & Vine")
    e2e.site.slow_pages = 0.6  # one show at a time, slowly: time to kill mid-brand
    first = e2e.spider("first", backend, "-w", "1", "-i", "1", "-m", "1")
    await first.wait_for(f"claimed task={task_id} ")
    await eventually(archive.jobs_done, "the first show ingested")
    assert (await archive.task(task_id))["status"] == "running"

    first.send(signal.SIGKILL)
    assert await first.wait() == -signal.SIGKILL
    killed = await archive.task(task_id)
    assert killed["status"] == "running"
    assert killed["attempts"] == 1

    e2e.site.slow_pages = 0.0
    second = e2e.spider("second", backend, "-w", "1", "-i", "1", "-m", "3")
    row = await eventually(lambda: done_task(task_id), "the second spider to finish the task")
    shows = await archive.expected_shows(e2e.site, "Kestrel & Vine")
    assert row["attempts"] == 2
    assert row["shows_submitted"] == len(shows)
    [(worker, _)] = claims(second.log())
    assert row["worker"] == worker
    assert reports(first.log()) == []

    await eventually(archive.jobs_done, "every ingest job finished")
    await archive.check_archived(e2e.site, shows, backend.media_path)
    assert len(await archive.articles()) == len(shows)


async def test_two_spiders_on_one_queue_never_share_a_task(e2e: E2E) -> None:
    backend = e2e.backend()
    names = ["Halden & Co.", "Kestrel & Vine", "Maison Aurèle", "Paloma Quintero"]
    names += ["Odalys North"]  # a brand without a designer page fails: test_serve.py
    task_ids = [(await e2e.queue(name, max_shows=1))[1] for name in names]
    e2e.site.slow_pages = 0.3
    one = e2e.spider("one", backend, "-w", "2", "-i", "1", "-m", "2")
    two = e2e.spider("two", backend, "-w", "2", "-i", "1", "-m", "2")

    async def all_done() -> bool:
        return all(t["status"] == "done" for t in await archive.all_tasks())

    await eventually(all_done, "every task done")
    claimed = claims(one.log(), two.log())
    assert sorted(task for _, task in claimed) == task_ids
    for row in await archive.all_tasks():
        assert row["attempts"] == 1
        assert (row["worker"], row["id"]) in claimed
    await eventually(archive.jobs_done, "every ingest job finished")
    submitted = sum(row["shows_submitted"] for row in await archive.all_tasks())
    assert len(await archive.articles()) == submitted


async def test_backend_restart_mid_crawl_loses_nothing(e2e_sqlite: E2E) -> None:
    e2e = e2e_sqlite
    backend = e2e.backend()
    _, task_id = await e2e.queue("Kestrel & Vine")
    e2e.site.slow_pages = 0.6
    spider = e2e.spider("spider", backend, "-w", "1", "-i", "1", "-m", "1")
    await eventually(archive.jobs_done, "the first show ingested")

    backend.send(signal.SIGTERM)
    assert await backend.wait() == 0
    assert (await archive.task(task_id))["status"] == "running"
    backend.start()  # same port, data dir and database

    row = await eventually(lambda: done_task(task_id), "the task done after the restart")
    e2e.site.slow_pages = 0.0
    shows = await archive.expected_shows(e2e.site, "Kestrel & Vine")
    assert row["shows_submitted"] == len(shows)
    assert row["attempts"] == 1
    assert spider.alive()
    assert "retrying" in spider.log()
    await eventually(archive.jobs_done, "every ingest job finished")
    await archive.check_archived(e2e.site, shows, backend.media_path)


async def test_a_paused_spider_loses_its_lease_and_changes_nothing(e2e_sqlite: E2E) -> None:
    e2e = e2e_sqlite
    backend = e2e.backend()
    _, task_id = await e2e.queue("Kestrel & Vine")
    e2e.site.slow_pages = 0.6
    paused = e2e.spider("paused", backend, "-w", "1", "-i", "1", "-m", "1")
    await paused.wait_for(f"claimed task={task_id} ")
    paused.send(signal.SIGSTOP)  # a frozen VM: no heartbeats while the lease runs out
    other = e2e.spider("other", backend, "-w", "1", "-i", "1", "-m", "3")
    await other.wait_for(f"claimed task={task_id} ")
    paused.send(signal.SIGCONT)  # its next heartbeat (or its result) is refused with 409

    lost = await paused.wait_for(
        f"task {task_id}: (lease lost; another worker has it|result refused, the lease had expired)"
    )
    row = await eventually(lambda: done_task(task_id), "the other spider to finish the task")
    e2e.site.slow_pages = 0.0
    assert reports(paused.log()) == []
    [(worker, _)] = claims(other.log())
    assert (row["worker"], row["attempts"]) == (worker, 2)
    assert paused.alive()
    assert lost
    await eventually(archive.jobs_done, "every ingest job finished")
    shows = await archive.expected_shows(e2e.site, "Kestrel & Vine")
    assert row["shows_submitted"] == len(shows)
    await archive.check_archived(e2e.site, shows, backend.media_path)
