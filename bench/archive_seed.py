"""Bulk seeding of an archive for the page benchmarks: column lists, row builders and one
insert loop per engine (``executemany`` on SQLite, ``COPY`` on PostgreSQL).

A seed is a dict from table name (a key of ``COLUMNS``) to its rows, each a tuple in that
table's column order; tables are inserted in the dict's order, so parents come first.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

Rows = dict[str, list[tuple[Any, ...]]]

BRAND_COLS = ("uid", "name", "slugs", "created_at", "updated_at")
ART_COLS = (
    "source",
    "show_key",
    "kind",
    "brand_id",
    "title",
    "season",
    "city",
    "date",
    "url",
    "designer",
    "author",
    "status",
    "deleted_at",
    "created_at",
    "updated_at",
)
IMG_COLS = (
    "article_id",
    "role",
    "position",
    "kind",
    "key",
    "thumb_key",
    "sha1",
    "size",
    "width",
    "height",
    "source_url",
    "uploaded_by_spider",
    "created_at",
    "embed_leased_until",
)
TASK_COLS = (
    "brand_id",
    "source",
    "status",
    "priority",
    "max_shows",
    "worker",
    "locked_at",
    "attempts",
    "shows_submitted",
    "last_error",
    "created_at",
    "updated_at",
    "season",
)
JOB_COLS = (
    "kind",
    "status",
    "attempts",
    "payload",
    "last_error",
    "outcome",
    "note",
    "brand_id",
    "locked_at",
    "next_attempt_at",
    "created_at",
    "updated_at",
)
TASK_STATES = ["queued", "running", "done", "done", "failed", "canceled"]
JOB_STATES = [
    ("done", "created"),
    ("done", "skipped_existing"),
    ("done", "created"),
    ("failed", ""),
    ("pending", ""),
    ("done", "noop"),
]
DAY_S = 86400
NEIGHBOUR_COLS = ("image_id", "model", "neighbor_id", "rank", "score")
COLUMNS = {
    "brands": BRAND_COLS,
    "articles": ART_COLS,
    "images": IMG_COLS,
    "crawl_tasks": TASK_COLS,
    "ingest_jobs": JOB_COLS,
    "image_neighbors": NEIGHBOUR_COLS,
}


def article_row(
    a: int, brand: int, title: str, season: str, city: str, date: str, status: str, now: int
) -> tuple[Any, ...]:
    """One vogue runway article ``s/<a>`` in ``ART_COLS`` order."""
    return (
        "vogue",
        f"s/{a}",
        "runway",
        brand,
        title,
        season,
        city,
        date,
        f"https://e.invalid/{a}",
        "",
        "",
        status,
        0,
        now,
        now,
    )


def image_rows(article: int, count: int, now: int) -> list[tuple[Any, ...]]:
    """``count`` uploaded looks of ``article`` in ``IMG_COLS`` order, unique sha1 each."""
    out = []
    for n in range(1, count + 1):
        sha = f"{article:020d}{n:020d}"
        out.append(
            (
                article,
                "look",
                n,
                "runway",
                f"runway/{sha}.jpg",
                f"thumb/{sha}.jpg",
                sha,
                300000,
                1280,
                1920,
                "",
                1,
                now,
                0,
            )
        )
    return out


def task_rows(count: int, brands: int, rng: random.Random, now: int) -> list[tuple[Any, ...]]:
    """``count`` vogue crawl tasks in every status, of random brands 1..``brands``, created
    and updated over the last two days, in ``TASK_COLS`` order."""
    out = []
    for t in range(count):
        status = TASK_STATES[t % len(TASK_STATES)]
        error = "vogue.com answered 503 after 4 tries" if status == "failed" else ""
        worker = "spider-1" if status != "queued" else ""
        brand = rng.randrange(1, brands + 1)
        created, updated = now - rng.randrange(2 * DAY_S), now - rng.randrange(2 * DAY_S)
        out.append((brand, "vogue", status, 0, 3, worker, now, 1, 3, error, created, updated, ""))
    return out


def job_rows(count: int, brands: int, rng: random.Random, now: int) -> list[tuple[Any, ...]]:
    """``count`` crawl ingest jobs in every status and outcome, of random brands, created and
    updated over the last two days, in ``JOB_COLS`` order; pending ones fall due a day from
    ``now``, so a running backend's workers leave them alone."""
    show = json.dumps({"show_key": "s/x", "title": "A show", "looks": [{}] * 30})
    out = []
    for j in range(count):
        status, outcome = JOB_STATES[j % len(JOB_STATES)]
        error = "HTTP 503" if status == "failed" else ""
        note = f"{outcome}, 30 images" if outcome else ""
        due = now + DAY_S if status == "pending" else now
        brand = rng.randrange(1, brands + 1)
        created, updated = now - rng.randrange(2 * DAY_S), now - rng.randrange(2 * DAY_S)
        out.append(
            ("crawl", status, 1, show, error, outcome, note, brand, now, due, created, updated)
        )
    return out


def seed_sqlite(path: Path, data: Rows) -> None:
    """Insert every table's rows into the migrated SQLite file at ``path``, then ANALYZE."""
    with sqlite3.connect(path) as db:
        for table, items in data.items():
            cols = COLUMNS[table]
            db.executemany(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                items,
            )
        db.execute("ANALYZE")


async def seed_pg(dsn: str, data: Rows) -> None:
    """COPY every table's rows into the migrated PostgreSQL database, then ANALYZE."""
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        for table, items in data.items():
            await conn.copy_records_to_table(table, records=items, columns=list(COLUMNS[table]))
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
