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
    source: str = ""
    """A crawl job's source: with ``show_key`` it names the article the job made."""


TEXT_FIELDS = ("kind", "status", "outcome", "note")
NUMBER_FIELDS = ("id", "attempts", "brand_id", "created_at", "updated_at", "locked_at")


def payload_of(payload: str) -> dict[str, Any]:
    """A job's payload as a JSON object; empty when it is unreadable or not an object."""
    try:
        value: Any = msgspec.json.decode(payload or "{}")
    except msgspec.DecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def count_of(value: object) -> int:
    """How many items a payload's list holds (0 when it is not a list)."""
    return len(value) if isinstance(value, list) else 0


def summary(kind: str, payload: str) -> dict[str, Any]:
    """``source``, ``show_key``, ``title``, ``looks``, ``details`` and ``article_id`` of a
    job's payload: a crawl job's show, or the article a cleanup job is for."""
    value = payload_of(payload)
    if kind != "crawl":
        article = value.get("article_id")
        found = {"article_id": int(article) if isinstance(article, int) else 0}
        return {"source": "", "show_key": "", "title": "", "looks": 0, "details": 0, **found}
    return {
        "source": str(value.get("source") or ""),
        "show_key": str(value.get("show_key") or ""),
        "title": str(value.get("title") or ""),
        "looks": count_of(value.get("looks")),
        "details": count_of(value.get("details")),
        "article_id": 0,
    }


def job_row(row: dict[str, Any]) -> JobRow:
    """The JobRow of a row of ``JOB_COLUMNS`` (and ``BRAND_COLUMNS`` when read)."""
    fields: dict[str, Any] = {
        **{name: str(row[name]) for name in TEXT_FIELDS},
        **{name: int(row[name]) for name in NUMBER_FIELDS},
    }
    return JobRow(
        **fields,
        **summary(str(row["kind"]), str(row["payload"])),
        error=str(row["last_error"]),
        brand=str(row.get("brand", "")),
        brand_uid=str(row.get("brand_uid", "")),
        next_attempt_at=int(row["next_attempt_at"]),
    )
