"""The console's job list and the dashboard's counts over migration 0074's partial indexes:
each filter finds exactly its jobs on both engines, whichever index (or none) serves it."""

from __future__ import annotations

import itertools
import time

from rk.server.console.repository.dashboard import open_job_counts, outcome_counts
from rk.server.console.repository.jobs import job_page_rows
from rk.server.platform.db.tables import IngestJob
from tests.integration.server.helpers import Backend

STATUSES = ("pending", "processing", "done", "failed")
KINDS = ("crawl", "media_cleanup")
FAR = 2**40
"""A due time no test reaches."""


async def test_every_status_and_kind_filter_finds_exactly_its_jobs(console: Backend) -> None:
    made: dict[tuple[str, str], set[int]] = {}
    now = int(time.time())
    for status, kind in itertools.product(STATUSES, KINDS):
        for _ in range(2):  # the backend's workers leave them be: not due, lease fresh
            job = IngestJob(kind=kind, status=status, outcome="noop", updated_at=100)
            job.next_attempt_at, job.locked_at = FAR, now
            [row] = await IngestJob.insert(job).returning(IngestJob.id)
            made.setdefault((status, kind), set()).add(row["id"])

    for status, kind in itertools.product(("", *STATUSES), ("", *KINDS)):
        rows = await job_page_rows({"status": status, "kind": kind, "outcome": ""}, None, 100)
        want = {
            job
            for (s, k), ids in made.items()
            if status in ("", s) and kind in ("", k)
            for job in ids
        }
        assert {row["id"] for row in rows} == want, (status, kind)
        assert [row["id"] for row in rows] == sorted(want, reverse=True)

    opened = {row["status"]: row["n"] for row in await open_job_counts()}
    assert opened == {"pending": 4, "processing": 4}
    for status in ("done", "failed"):
        assert [(r["outcome"], r["n"]) for r in await outcome_counts(status, 100)] == [("noop", 4)]
        assert await outcome_counts(status, 101) == []
