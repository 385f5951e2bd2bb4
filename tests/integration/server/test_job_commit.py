"""An ingest job's effects and its completion commit together; leases keep jobs single-run.

Both engines: a backend process killed (an armed fault point) between "article written"
and "job done" leaves no row, and the re-run records ``created`` with the right note; a
show that takes longer than the lease is never claimed twice, because its worker renews
the lease; a dead worker's job is claimed again once its lease runs out.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import msgspec

from rk.core.runtime.faults import ENV as FAULT_ENV
from tests.integration.queues.helpers import fetch_rows
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import backend_settings, show
from tests.integration.server.images import Answer, ImageServer, jpeg
from tests.integration.server.test_serve_cmd import serve


async def job_row(dsn: str, job_id: int) -> dict[str, Any]:
    (row,) = await fetch_rows(dsn, f"SELECT * FROM ingest_jobs WHERE id = {job_id}")
    return row


async def wait_done(dsn: str, job_id: int, timeout_s: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    row: dict[str, Any] = {}
    while time.monotonic() < deadline:
        row = await job_row(dsn, job_id)
        if row["status"] in ("done", "failed"):
            return row
        await asyncio.sleep(0.1)
    raise AssertionError(f"job {job_id} not finished: {row}")


async def test_a_crash_between_article_and_done_leaves_nothing_and_the_rerun_creates(
    tmp_path: Path, images: ImageServer, any_dsn: str
) -> None:
    payload = show("ss25/crash", [images.add("/c1.jpg", jpeg(11)), images.add("/c2.jpg", jpeg(12))])
    env = {"RK_DATABASE": any_dsn, "RK_QUEUES_INGEST_STUCK_S": "2"}
    with serve(tmp_path, images, **{FAULT_ENV: "ingest.article_written"}, **env) as crashing:
        job_id = crashing.post_show(payload)
        assert crashing.proc.wait(timeout=60) == -signal.SIGKILL, crashing.output()
    job = await job_row(any_dsn, job_id)
    assert (job["status"], job["attempts"], job["outcome"]) == ("processing", 1, "")
    assert await fetch_rows(any_dsn, "SELECT id FROM articles") == []
    assert await fetch_rows(any_dsn, "SELECT id FROM images") == []

    with serve(tmp_path, images, **env) as again:
        job = await wait_done(any_dsn, job_id)
        assert (job["status"], job["attempts"]) == ("done", 2)
        assert (job["outcome"], job["note"]) == ("created", "created, 2 images")
        articles = await fetch_rows(any_dsn, "SELECT id, show_key FROM articles")
        assert [a["show_key"] for a in articles] == ["ss25/crash"]
        rows = await fetch_rows(
            any_dsn, f"SELECT source_url FROM images WHERE article_id = {articles[0]['id']}"
        )
        assert sorted(r["source_url"] for r in rows) == [
            images.url("/c1.jpg"),
            images.url("/c2.jpg"),
        ]
        assert again.stop() == 0


async def test_a_show_slower_than_the_lease_runs_once(
    tmp_path: Path, images: ImageServer, start_backend: StartBackend, any_dsn: str
) -> None:
    settings = backend_settings(tmp_path, database=any_dsn, workers=3, allow=images.allow)
    settings = msgspec.structs.replace(
        settings,
        queues=msgspec.structs.replace(settings.queues, ingest_stuck_s=2),
        spider=msgspec.structs.replace(settings.spider, timeout_s=20),
    )
    backend = await start_backend(settings)
    slow = images.add("/slow-lease.jpg", Answer(body=jpeg(21), delay_s=7))
    job_id = await backend.submit(show("ss25/slow", [slow]))
    job = await backend.wait_job(job_id, timeout_s=60)
    assert (job["status"], job["attempts"], job["outcome"]) == ("done", 1, "created")
    assert images.hits["/slow-lease.jpg"] == 1


async def test_a_dead_workers_job_is_claimed_again_when_its_lease_runs_out(
    tmp_path: Path, images: ImageServer, any_dsn: str
) -> None:
    images.add("/hang.jpg", Answer(body=jpeg(31), delay_s=30))
    payload = show("ss25/dead", [images.url("/hang.jpg")])
    env = {"RK_DATABASE": any_dsn, "RK_QUEUES_INGEST_STUCK_S": "3"}
    with serve(tmp_path, images, RK_SERVER_WORKERS="2", **env) as first:
        job_id = first.post_show(payload)
        for _ in range(600):
            if "/hang.jpg" in images.hits:
                break
            await asyncio.sleep(0.05)
        held = await job_row(any_dsn, job_id)
        first_lease_end = held["locked_at"] + 3
        # Until the worker has renewed the lease at or after the moment its first lease ran
        # out: the idle worker has had its chance to take the job, and must not have.
        for _ in range(600):
            held = await job_row(any_dsn, job_id)
            if held["locked_at"] >= first_lease_end or held["attempts"] != 1:
                break
            await asyncio.sleep(0.05)
        assert held["locked_at"] >= first_lease_end, "the lease was not renewed past its end"
        assert (held["status"], held["attempts"]) == ("processing", 1)
        killed_at = time.time()
        first.stop(signal.SIGKILL)
    images.add("/hang.jpg", jpeg(31))
    with serve(tmp_path, images, **env) as second:
        job = await wait_done(any_dsn, job_id)
        assert (job["status"], job["attempts"], job["outcome"]) == ("done", 2, "created")
        # claimed again once the lease (renewed until the kill) ran out, not at its first end
        assert job["updated_at"] >= int(killed_at)
        assert second.stop() == 0
