"""The console's ingest jobs: filtered keyset pages, one job in full, an admin's retry.

A retry puts a failed job back to pending with its attempts reset, due now; the ingest
workers claim it like any other. Only a failed job can be retried (anything else is a
409 that changes nothing).
"""

from __future__ import annotations

import time

from msgspec import Struct

from rk.server.console.job_rows import BRAND_COLUMNS, JOB_COLUMNS, JobRow, job_row
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import IngestJob
from rk.server.platform.http.errors import ApiError, NotFound
from rk.server.platform.jobs.engine import KINDS, OUTCOMES

JOB_STATUSES = ("pending", "processing", "done", "failed")


class JobNotFound(NotFound):
    """No ingest job has this id."""


class JobFilterError(ApiError):
    """A status, kind or outcome filter that does not exist."""

    status_code = 400


class JobConflict(ApiError):
    """The job's status does not allow a retry."""

    status_code = 409


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


async def list_jobs(
    status: str = "", kind: str = "", outcome: str = "", before: int | None = None, limit: int = 50
) -> JobPage:
    """Jobs newest first, filtered, below ``before``."""
    check_filters(status, kind, outcome)
    where: list[str] = []
    args: list[object] = []
    for column, value in (("status", status), ("kind", kind), ("outcome", outcome)):
        if value:
            where.append(f"j.{column} = {{}}")
            args.append(value)
    if before is not None:
        where.append("j.id < {}")
        args.append(before)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    found = await rows(
        f"SELECT {JOB_COLUMNS}, {BRAND_COLUMNS} FROM ingest_jobs j"
        f" LEFT JOIN brands b ON b.id = j.brand_id {clause}"
        " ORDER BY j.id DESC LIMIT {}",
        *args,
        limit + 1,
    )
    items = [job_row(row) for row in found[:limit]]
    return JobPage(items=items, next_before=items[-1].id if len(found) > limit else None)


async def get_job(job_id: int) -> JobRow:
    """One job; JobNotFound otherwise."""
    found = await rows(
        f"SELECT {JOB_COLUMNS}, {BRAND_COLUMNS} FROM ingest_jobs j"
        " LEFT JOIN brands b ON b.id = j.brand_id"
        " WHERE j.id = {}",
        job_id,
    )
    if not found:
        raise JobNotFound(f"ingest job {job_id} does not exist")
    return job_row(found[0])


async def retry_job(job_id: int) -> None:
    """Queue a failed job again with its attempts reset; JobConflict for any other status."""
    now = int(time.time())
    changed = (
        await IngestJob.update(
            {
                IngestJob.status: "pending",
                IngestJob.attempts: 0,
                IngestJob.next_attempt_at: now,
                IngestJob.locked_at: 0,
                IngestJob.updated_at: now,
            }
        )
        .where((IngestJob.id == job_id) & (IngestJob.status == "failed"))
        .returning(IngestJob.id)
    )
    if changed:
        return
    job = await get_job(job_id)
    raise JobConflict(f"ingest job {job_id} is {job.status}; only a failed job can be retried")
