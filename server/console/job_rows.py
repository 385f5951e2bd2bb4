"""One ingest job as the console shows it, in the jobs list, on its page and in a brand's
update history: the row type, the columns it is read from and the payload's summary."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

JOB_COLUMNS = (
    "j.id, j.kind, j.status, j.outcome, j.note, j.last_error, j.attempts, j.brand_id,"
    " j.payload, j.created_at, j.updated_at, j.locked_at, j.next_attempt_at"
)
"""The ``ingest_jobs`` columns ``job_row`` reads (alias ``j``)."""
BRAND_COLUMNS = "COALESCE(b.name, '') AS brand, COALESCE(b.uid, '') AS brand_uid"
"""The brand columns ``job_row`` reads when a query joins ``brands b``."""


class JobRow(Struct, frozen=True, kw_only=True):
    """One ingest job: its status, outcome and payload summary; the brand's name and uid
    when the query read them (blank in a brand's own history)."""

    id: int
    kind: str
    status: str
    outcome: str
    note: str
    error: str
    attempts: int
    brand_id: int
    show_key: str
    title: str
    looks: int
    details: int
    article_id: int
    created_at: int
    updated_at: int
    locked_at: int
    next_attempt_at: int
    brand: str = ""
    brand_uid: str = ""


def show_summary(payload: str) -> tuple[str, str, int]:
    """(show key, title, look count) of a crawl job's payload; blanks when unreadable."""
    try:
        value: Any = msgspec.json.decode(payload or "{}")
    except msgspec.DecodeError:
        return "", "", 0
    if not isinstance(value, dict):
        return "", "", 0
    looks = value.get("looks")
    return (
        str(value.get("show_key") or ""),
        str(value.get("title") or ""),
        len(looks) if isinstance(looks, list) else 0,
    )


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


def job_row(row: dict[str, Any]) -> JobRow:
    """The JobRow of a row of ``JOB_COLUMNS`` (and ``BRAND_COLUMNS`` when read)."""
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
        brand=str(row.get("brand", "")),
        brand_uid=str(row.get("brand_uid", "")),
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
