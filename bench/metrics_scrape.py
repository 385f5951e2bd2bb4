"""/metrics scrape cost: milliseconds to read the archive-wide metrics from the database.

For each archive size N (images), in the same run and on the same engine:

- ``floor``: ``SELECT COUNT(*) FROM images`` through the tables' engine — one round trip
  and one scan of the largest table, the least a figure about stored images can cost;
- ``scrape + census``: a ``GET /metrics`` that re-reads the census (images, bytes,
  embeddings; the first scrape of a process, then whenever its time budget allows) plus
  the queue, job and spider queries and the text rendering;
- ``between census reads``: the scrapes in between (queues, jobs, spiders, rendering).

The archive: N images in N/40 articles (one in ten keys shared by two images), one ingest
job per article (done, with durations), N/2 embeddings of which 1 % await neighbours, 1 %
of images failed at the cap, 50 crawl tasks. Times are the best of ``--repeat``.

    .venv/bin/python -m bench.metrics_scrape [--sizes 10000,100000] [--dsn postgresql://…]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable

from prometheus_client import CollectorRegistry, generate_latest

from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.tables import Image
from rk.server.platform.ops.archive_metrics import ArchiveMetrics

MODEL = "bench-model"


def rows(n: int) -> dict[str, list[tuple]]:
    """The archive's rows, by table, for ``n`` images."""
    now = int(time.time())
    articles = max(1, n // 40)
    images = [
        (
            1 + i % articles,
            "look",
            i,
            "runway",
            f"runway/{(i // 2 if i % 10 == 0 else i):040x}.jpg",
            1000 + i,
            now,
        )
        for i in range(n)
    ]
    return {
        "articles": [
            (a + 1, "vogue", f"show-{a}", "runway", "published", now) for a in range(articles)
        ],
        "images": images,
        "ingest_jobs": [
            ("crawl", "done", "created", now - 100 - a % 60, now - 100) for a in range(articles)
        ],
        "image_embeddings": [
            (i + 1, MODEL, "runway", 1, b"\0\0\0\0", now, 0 if i % 100 == 0 else now)
            for i in range(0, n, 2)
        ],
        "image_embedding_failures": [(i + 1, MODEL, 3, "x", now) for i in range(1, n, 100)],
        "crawl_tasks": [(1, "running", f"spider-{t}", now) for t in range(50)],
    }


INSERTS = {
    "articles": "INSERT INTO articles (id, source, show_key, kind, status, created_at)"
    " VALUES ({}, {}, {}, {}, {}, {})",
    "images": "INSERT INTO images (article_id, role, position, kind, key, size, created_at)"
    " VALUES ({}, {}, {}, {}, {}, {}, {})",
    "ingest_jobs": "INSERT INTO ingest_jobs (kind, status, outcome, locked_at, updated_at)"
    " VALUES ({}, {}, {}, {}, {})",
    "image_embeddings": "INSERT INTO image_embeddings"
    " (image_id, model, kind, dim, vector, created_at, neighbours_at)"
    " VALUES ({}, {}, {}, {}, {}, {}, {})",
    "image_embedding_failures": "INSERT INTO image_embedding_failures"
    " (image_id, model, failures, last_error, updated_at) VALUES ({}, {}, {}, {}, {})",
    "crawl_tasks": "INSERT INTO crawl_tasks (brand_id, status, worker, locked_at)"
    " VALUES ({}, {}, {}, {})",
}


async def seed(dsn: str, n: int) -> None:
    """Insert the archive with the driver's executemany (setup, not measured)."""
    tables = rows(n)
    brand = "INSERT INTO brands (id, uid, name) VALUES ({}, {}, {})"
    if dsn.startswith("sqlite"):
        with sqlite3.connect(dsn.removeprefix("sqlite:///")) as db:
            db.execute(brand.replace("{}", "?"), (1, "b1", "Bench"))
            for table, values in tables.items():
                db.executemany(INSERTS[table].replace("{}", "?"), values)
            db.execute("ANALYZE")  # statistics, as a long-running archive has them
        return
    import asyncpg

    def numbered(sql: str) -> str:
        parts = sql.split("{}")
        return "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], 1)) + parts[-1]

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(numbered(brand), 1, "b1", "Bench")
        for table, values in tables.items():
            await conn.executemany(numbered(INSERTS[table]), values)
        await conn.execute("ANALYZE")  # statistics, as autovacuum keeps them in production
    finally:
        await conn.close()


async def best(step: Callable[[], Awaitable[object]], repeat: int) -> float:
    """Best wall time of ``repeat`` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await step()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


async def scrape(reader: ArchiveMetrics) -> bytes:
    registry = CollectorRegistry()
    registry.register(await reader.snapshot(MODEL, 3))
    return generate_latest(registry)


async def one_size(dsn: str, n: int, repeat: int) -> tuple[float, float, float, int]:
    """(floor, scrape with the census read, scrape between census reads) ms; body bytes."""
    await migrate(dsn)
    await seed(dsn, n)
    engine = await connect(dsn)
    try:
        floor = await best(lambda: Image.raw("SELECT COUNT(*) AS n FROM images"), repeat)
        full = await best(lambda: scrape(ArchiveMetrics()), repeat)
        reader = ArchiveMetrics()
        text = await scrape(reader)
        return floor, full, await best(lambda: scrape(reader), repeat), len(text)
    finally:
        await close(engine)


async def fresh_pg(admin: str, n: int) -> str:
    import asyncpg

    name = f"rk_bench_metrics_{n}"
    conn = await asyncpg.connect(admin)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return admin.rsplit("/", 1)[0] + "/" + name


async def drop_pg(admin: str, dsn: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(admin)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{dsn.rsplit("/", 1)[1]}" WITH (FORCE)')
    finally:
        await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dsn", default="", help="PostgreSQL admin DSN (default: SQLite)")
    args = parser.parse_args()
    print(
        "| images | engine | floor: COUNT(*) ms | scrape + census ms | ratio"
        " | scrape between census reads ms | ratio |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n in (int(size) for size in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            dsn = await fresh_pg(args.dsn, n) if args.dsn else f"sqlite:///{tmp}/bench.sqlite3"
            try:
                floor, full, steady, _ = await one_size(dsn, n, args.repeat)
            finally:
                if args.dsn:
                    await drop_pg(args.dsn, dsn)
        engine = "PostgreSQL" if args.dsn else "SQLite"
        print(
            f"| {n:,} | {engine} | {floor:.1f} | {full:.1f} | {full / floor:.1f}"
            f" | {steady:.1f} | {steady / floor:.1f} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
