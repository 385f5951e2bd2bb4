"""The console's ingest jobs: filtered keyset pages, one job in full, an admin's retry.

A retry puts a failed job back to pending with its attempts reset, due now; the ingest
workers claim it like any other. Only a failed job can be retried (anything else is a
409 that changes nothing).
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

from rk.server.console.job_rows import JobRow, job_row
from rk.server.console.repository.jobs import (
    articles_of_shows,
    job_by_id,
    job_page_rows,
    requeue_failed,
)
from rk.server.platform.http.errors import BadRequest, Conflict, NotFound
from rk.server.platform.jobs.engine import KINDS, OUTCOMES

JOB_STATUSES = ("pending", "processing", "done", "failed")


class JobNotFound(NotFound):
    """No ingest job has this id."""


class JobFilterError(BadRequest):
    """A status, kind or outcome filter that does not exist."""


class JobConflict(Conflict):
    """The job's status does not allow a retry."""


class JobPage(Struct, frozen=True, kw_only=True):
    """A page of jobs and the cursor of the next (None on the last)."""

    items: list[JobRow]
    next_before: int | None


def check_filters(status: str, kind: str, outcome: str) -> None:
    """JobFilterError for a status, kind or outcome that does not exist."""
    if status and status not in JOB_STATUSES:
        raise JobFilterError(
            f"status must be one of {', '.join(JOB_STATUSES)}, not {status[:40]!r}"
        )
    if kind and kind not in KINDS:
        raise JobFilterError(f"kind must be one of {', '.join(sorted(KINDS))}, not {kind[:40]!r}")
    if outcome and outcome not in OUTCOMES:
        raise JobFilterError(
            f"outcome must be one of {', '.join(sorted(OUTCOMES))}, not {outcome[:40]!r}"
        )


async def with_articles(jobs: list[JobRow]) -> list[JobRow]:
    """The jobs, each crawl job with the article its show is (``article_id``; 0: none yet).

    Articles are unique per ``(source, show_key)``, so a show names its article: one query
    per source among the jobs.
    """
    wanted: dict[str, set[str]] = {}
    for job in jobs:
        if job.kind == "crawl" and job.show_key:
            wanted.setdefault(job.source, set()).add(job.show_key)
    found: dict[tuple[str, str], int] = {}
    for source, keys in wanted.items():
        for row in await articles_of_shows(source, sorted(keys)):
            found[(source, str(row["show_key"]))] = int(row["id"])
    return [
        msgspec.structs.replace(job, article_id=found.get((job.source, job.show_key), 0))
        if job.kind == "crawl"
        else job
        for job in jobs
    ]


async def list_jobs(
    status: str = "", kind: str = "", outcome: str = "", before: int | None = None, limit: int = 50
) -> JobPage:
    """Jobs newest first, filtered, below ``before``."""
    check_filters(status, kind, outcome)
    filters = {"status": status, "kind": kind, "outcome": outcome}
    found = await job_page_rows(filters, before, limit + 1)
    items = await with_articles([job_row(row) for row in found[:limit]])
    return JobPage(items=items, next_before=items[-1].id if len(found) > limit else None)


async def get_job(job_id: int) -> JobRow:
    """One job; JobNotFound otherwise."""
    found = await job_by_id(job_id)
    if found is None:
        raise JobNotFound(f"ingest job {job_id} does not exist")
    [job] = await with_articles([job_row(found)])
    return job


async def retry_job(job_id: int) -> None:
    """Queue a failed job again with its attempts reset; JobConflict for any other status."""
    if await requeue_failed(job_id):
        return
    job = await get_job(job_id)
    raise JobConflict(f"ingest job {job_id} is {job.status}; only a failed job can be retried")
