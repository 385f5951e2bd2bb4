"""The console's dashboard figures: queues by status, the last day's jobs, review backlog.

Small grouped counts over indexed columns; the image and embedding figures come from the
archive census (``archive_metrics``), which re-reads itself within a time budget, so the
dashboard stays fast on a large archive.
"""

from __future__ import annotations

import time

from msgspec import Struct

from rk.server.console.articles import tab_counts
from rk.server.console.repository.dashboard import (
    crawl_status_counts,
    open_job_counts,
    outcome_counts,
)
from rk.server.platform.db.recent import Recent
from rk.server.platform.ops.archive_metrics import Census

DAY_S = 86400
TASK_STATUSES = ("queued", "running", "done", "failed", "canceled")
JOB_STATUSES = ("pending", "processing", "done", "failed")


class Dashboard(Struct, frozen=True, kw_only=True):
    """Every figure of ``/admin``."""

    tasks: dict[str, int]
    jobs: dict[str, int]
    outcomes: dict[str, int]
    articles: dict[str, int]
    model: str | None
    missing_vectors: int | None
    capped_failures: int | None
    neighbours_lag_s: int
    unplaced_since: int


CACHE: Recent[str, Dashboard] = Recent(ttl_s=5.0)
"""The last figures per model id ("" without a model)."""


async def crawl_counts() -> dict[str, int]:
    """Crawl tasks per status (every status present, 0 when none)."""
    found = await crawl_status_counts()
    counts = dict.fromkeys(TASK_STATUSES, 0)
    counts.update({str(row["status"]): int(row["n"]) for row in found})
    return counts


async def job_counts(since: int) -> tuple[dict[str, int], dict[str, int]]:
    """Ingest jobs per status (pending and processing now; done and failed since ``since``),
    and the outcomes of those done since then."""
    counts = dict.fromkeys(JOB_STATUSES, 0)
    for row in await open_job_counts():
        counts[str(row["status"])] = int(row["n"])
    outcomes: dict[str, int] = {}
    for status in ("done", "failed"):
        for row in await outcome_counts(status, since):
            counts[status] += int(row["n"])
            if status == "done" and row["outcome"]:
                outcomes[str(row["outcome"])] = int(row["n"])
    return counts, dict(sorted(outcomes.items(), key=lambda item: -item[1]))


async def dashboard(census: Census, model: str | None) -> Dashboard:
    """The dashboard's figures, at most ``CACHE.ttl_s`` old.

    Every open dashboard re-reads itself every 10 s; keeping the figures for a few seconds
    per process bounds what many open browsers cost the database.
    """
    return await CACHE.get(model or "", lambda: read_dashboard(census, model))


async def read_dashboard(census: Census, model: str | None) -> Dashboard:
    """The dashboard's figures now."""
    now = int(time.time())
    jobs, outcomes = await job_counts(now - DAY_S)
    return Dashboard(
        tasks=await crawl_counts(),
        jobs=jobs,
        outcomes=outcomes,
        articles=await tab_counts(),
        model=model,
        missing_vectors=sum(census.pending.values()) if model else None,
        capped_failures=census.capped if model else None,
        neighbours_lag_s=max(now - census.oldest_unplaced, 0) if census.oldest_unplaced else 0,
        unplaced_since=census.oldest_unplaced,
    )
