"""What one ``/api/trends`` answer costs the database: the trend of a tag and of a colour, and
the risers and fallers, counted by ``GROUP BY`` per request, at archive scale.

The archive is seeded with bulk SQL into a migrated SQLite file: ``--articles`` published
runway shows of ``--looks`` looks over 52 seasons, one brand and city per show; each look
has a tag of 40 with probability 0.3 (plus a removed row now and then) and a two-colour
palette. Each row times the service call the route makes (``checked`` + ``trends``) in
process, median of ``--repeat`` calls, next to the same-run floor: one
``SELECT COUNT(*)`` over every published look (the scan any exact count must beat).

    .venv/bin/python -m bench.trends [--articles 5000] [--looks 20] [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.archive_seed import article_row, image_rows, seed_sqlite
from rk.server.platform.db.engine import close, connect
from rk.server.platform.db.migrate import migrate
from rk.server.platform.db.sql_rows import rows
from rk.server.trends.query import TrendQuery, checked
from rk.server.trends.repository import LOOKS
from rk.server.trends.service import trends

SEASONS = [f"{s} {y} Ready-to-Wear" for y in range(2000, 2026) for s in ("Spring", "Fall")]
CITIES = ["Paris", "Milan", "London", "New York"]
TAGS = [f"tag {n}" for n in range(40)]
COLOURS = ["oxblood", "camel", "navy", "ecru", "black", "white", "emerald", "pink"]


def seed(path: Path, articles: int, looks: int, rng: random.Random) -> int:
    """Seed the migrated file at ``path``; the number of looks."""
    now = int(time.time())
    arts, imgs = [], []
    for a in range(1, articles + 1):
        season = SEASONS[a % len(SEASONS)]
        year = season.split()[1]
        date = f"{year}-0{1 + a % 9}-15"
        arts.append(article_row(a, 0, f"Show {a}", season, CITIES[a % 4], date, "published", now))
        imgs += image_rows(a, looks, now)
    seed_sqlite(path, {"articles": arts, "images": imgs})
    with sqlite3.connect(path) as db:
        tags, colours = [], []
        for image_id in range(1, len(imgs) + 1):
            if rng.random() < 0.3:
                state = "removed" if rng.random() < 0.05 else "auto"
                tags.append((image_id, rng.choice(TAGS), state, 0.5, now))
            first, second = rng.sample(COLOURS, 2)
            share = round(rng.uniform(0.5, 0.9), 2)
            colours.append((image_id, 1, first, "#000000", 0, 0, 0, share, 1.0, now))
            colours.append((image_id, 2, second, "#000000", 0, 0, 0, 1 - share, 1.0, now))
        db.executemany(
            "INSERT INTO image_tags (image_id, tag, state, score, computed_at)"
            " VALUES (?, ?, ?, ?, ?)",
            tags,
        )
        db.executemany(
            "INSERT INTO image_colours (image_id, rank, name, hex, lab_l, lab_a, lab_b, share,"
            " delta_e, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            colours,
        )
        db.execute("ANALYZE")
    return len(imgs)


async def timed(call: Callable[[], Awaitable[Any]], repeat: int) -> list[float]:
    """Milliseconds of ``repeat`` calls after one warm-up."""
    await call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    return times


async def main(args: argparse.Namespace) -> None:
    """Seed, then time each answer next to the floor; print the table."""
    with tempfile.TemporaryDirectory(prefix="rk-bench-trends-") as tmp:
        path = Path(tmp) / "rk.sqlite3"
        dsn = f"sqlite:///{path}"
        await migrate(dsn)
        started = time.perf_counter()
        looks = seed(path, args.articles, args.looks, random.Random(7))
        seeded = time.perf_counter() - started
        db = await connect(dsn)
        try:

            async def answer(**raw: str) -> None:
                """What the route computes for ``raw`` parameters."""
                await trends(await checked(TrendQuery(**raw)))

            async def floor() -> None:
                """The floor: one count over every published look."""
                await rows(f"SELECT COUNT(*) AS n {LOOKS}")

            cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
                ("floor: COUNT(*) of every look", floor),
                ("tag trend + movers", lambda: answer(tag="tag 3")),
                ("colour trend + movers", lambda: answer(colour="oxblood")),
                ("movers only", lambda: answer()),
                ("tag, city=Paris", lambda: answer(tag="tag 3", city="paris")),
            ]
            results = [(name, await timed(call, args.repeat)) for name, call in cases]
        finally:
            await close(db)
    base = statistics.median(results[0][1])
    print(
        f"SQLite, {args.articles} shows × {args.looks} looks = {looks} looks, "
        f"{len(SEASONS)} seasons (seeded in {seeded:.0f} s); load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'answer':<32} {'p50 ms':>8} {'min–max ms':>16} {'÷ floor':>8}")
    for name, times in results:
        p50 = statistics.median(times)
        spread = f"{min(times):.1f}–{max(times):.1f}"
        print(f"{name:<32} {p50:>8.1f} {spread:>16} {p50 / base:>8.1f}")


def cli() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--articles", type=int, default=5000)
    parser.add_argument("--looks", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    asyncio.run(main(parser.parse_args()))


if __name__ == "__main__":
    cli()
