"""The console's ingest jobs: filtered keyset pages, one job in full, an admin's retry.

A retry puts a failed job back to pending with its attempts reset, due now; the ingest
workers claim it like any other. Only a failed job can be retried (anything else is a
409 that changes nothing).
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
from msgspec import Struct

from rk.server.db.tables import IngestJob
from rk.server.errors import ApiError, NotFound
from rk.server.queues.engine import KINDS, OUTCOMES
from rk.server.services.admin_brands import show_summary
from rk.server.services.public_sql import rows

JOB_STATUSES = ("pending", "processing", "done", "failed")


class JobNotFound(NotFound):
    """No ingest job has this id."""


class JobFilterError(ApiError):
    """A status, kind or outcome filter that does not exist."""

    status_code = 400


class JobConflict(ApiError):
    """The job's status does not allow a retry."""

    status_code = 409


class JobRow(Struct, frozen=True, kw_only=True):
    """One ingest job as the list and its page show it."""

    id: int
    kind: str
    status: str
    outcome: str
    note: str
    error: str
    attempts: int
    brand_id: int
    brand: str
    brand_uid: str
    show_key: str
    title: str
    looks: int
    details: int
    article_id: int
    created_at: int
    updated_at: int
    locked_at: int
    next_attempt_at: int


class JobPage(Struct, frozen=True, kw_only=True):
    """A page of jobs and the cursor of the next (None on the last)."""

    items: list[JobRow]
    next_before: int | None


def summary(kind: str, payload: str) -> tuple[str, str, int, int, int]:
    """(show key, title, looks, details, article id) of a job's payload."""
    if kind != "crawl":
        try:
            value: Any = msgspec.json.decode(payload or "{}")
        except msgspec.DecodeError:
            value = {}
        article = value.get("article_id") if isinstance(value, dict) else None
        return "", "", 0, 0, int(article) if isinstance(article, int) else 0
    key, title, looks = show_summary(payload)
    try:
        decoded: Any = msgspec.json.decode(payload or "{}")
        details = decoded.get("details") if isinstance(decoded, dict) else None
    except msgspec.DecodeError:
        details = None
    return key, title, looks, len(details) if isinstance(details, list) else 0, 0


COLUMNS = (
    "j.id, j.kind, j.status, j.outcome, j.note, j.last_error, j.attempts, j.brand_id,"
    " j.payload, j.created_at, j.updated_at, j.locked_at, j.next_attempt_at,"
    " COALESCE(b.name, '') AS brand, COALESCE(b.uid, '') AS brand_uid"
)


def _job(row: dict[str, Any]) -> JobRow:
    key, title, looks, details, article = summary(str(row["kind"]), str(row["payload"]))
    return JobRow(
        id=int(row["id"]),
        kind=str(row["kind"]),
        status=str(row["status"]),
        outcome=str(row["outcome"]),
        note=str(row["note"]),
        error=str(row["last_error"]),
        attempts=int(row["attempts"]),
        brand_id=int(row["brand_id"]),
        brand=str(row["brand"]),
        brand_uid=str(row["brand_uid"]),
        show_key=key,
        title=title,
        looks=looks,
        details=details,
        article_id=article,
        created_at=int(row["created_at"]),
        updated_at=int(row["updated_at"]),
        locked_at=int(row["locked_at"]),
        next_attempt_at=int(row["next_attempt_at"]),
    )


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
        f"SELECT {COLUMNS} FROM ingest_jobs j LEFT JOIN brands b ON b.id = j.brand_id {clause}"
        " ORDER BY j.id DESC LIMIT {}",
        *args,
        limit + 1,
    )
    items = [_job(row) for row in found[:limit]]
    return JobPage(items=items, next_before=items[-1].id if len(found) > limit else None)


async def get_job(job_id: int) -> JobRow:
    """One job; JobNotFound otherwise."""
    found = await rows(
        f"SELECT {COLUMNS} FROM ingest_jobs j LEFT JOIN brands b ON b.id = j.brand_id"
        " WHERE j.id = {}",
        job_id,
    )
    if not found:
        raise JobNotFound(f"ingest job {job_id} does not exist")
    return _job(found[0])


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
