"""Public pages under load: req/s and p50/p99 of ``/``, a filtered ``/``, a 60-image show
and an image page with 20 neighbours, each next to a bare Litestar handler returning the
same bytes.

The archive is seeded with bulk SQL (``executemany`` on SQLite, ``COPY`` on PostgreSQL):
``--articles`` published shows of ``--images`` images each, brands, seasons, cities and
years spread over them, one show of 60 images and one image with 20 stored neighbours.
``rk serve-backend`` (uvloop, one process, the tiny CLIP of tests/models so the image
page has a model) and the bare server (one uvicorn worker, no access log) run as separate
processes; the load comes from wrk (``apt-get install wrk``), a separate process.

    .venv/bin/python -m bench.public_pages [--articles 10000] [--images 10]
        [--engine sqlite|postgresql|both] [--seconds 5] [--connections 16] [--rounds 1]
        [--keep DIR]

PostgreSQL: a fresh database beside ``RK_TEST_PG_DSN`` (tests/support/pg), dropped after;
with ``--keep DIR`` one named after the seed size, kept with the SQLite file in ``DIR`` for
the next run of the same size (seeding 100,000 articles takes minutes). Each row also gives
the page's first request time (cold: the backend's page cache empty, the process warmed by
one request to ``/search``, the database's own cache as the seeding or last run left it)
and the 1-minute load average after the row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from litestar import Litestar, MediaType, Request, Response, get

from bench.archive_seed import ART_COLS, IMG_COLS
from rk.server.platform.db.migrate import migrate
from tests.support.net import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[1]
RK = str(Path(sys.executable).with_name("rk"))
TINY_CLIP = ROOT / "tests" / "models" / "tiny_clip"
SEASONS = [
    f"{s} {y} {k}"
    for y in range(2000, 2026)
    for s in ("Spring", "Fall")
    for k in ("Ready-to-Wear", "Couture", "Menswear")
]
CITIES = ["Paris", "Milan", "London", "New York", "Tokyo", "Copenhagen", "Seoul", "Berlin"]


def model_id() -> str:
    """The tiny CLIP's model id (what the backend will report)."""
    from rk.plugins.clip_embed.embedder import ClipEmbedder

    return ClipEmbedder({"model": str(TINY_CLIP), "batch": 1, "concurrency": 1}).model_id


def rows(articles: int, images: int, model: str) -> tuple[list, list, list, list]:
    """Brands, articles, images and neighbour rows, deterministic."""
    rng = random.Random(7)
    now = int(time.time())
    brands = [(f"b{i}", f"Brand {i:05d}", "{}", now, now) for i in range(1, articles // 40 + 2)]
    arts, imgs = [], []
    for a in range(1, articles + 1):
        season = SEASONS[rng.randrange(len(SEASONS))]
        year = int(season.split()[1])
        date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        brand = rng.randrange(1, len(brands) + 1)
        arts.append(
            (
                "vogue",
                f"s/{a}",
                "runway",
                brand,
                f"Brand {brand:05d} {season}",
                season,
                CITIES[rng.randrange(len(CITIES))],
                date,
                f"https://e.invalid/{a}",
                "",
                "",
                "published",
                0,
                now,
                now,
            )
        )
        for n in range(1, (60 if a == 1 else images) + 1):
            sha = f"{a:020d}{n:020d}"
            imgs.append(
                (
                    a,
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
    neighbours = [
        (1, model, rng.randrange(100, len(imgs)), rank, 1 - rank / 100) for rank in range(1, 21)
    ]
    return brands, arts, imgs, neighbours


def seed_sqlite(path: Path, data: tuple[list, list, list, list]) -> None:
    brands, arts, imgs, neighbours = data
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO brands (uid, name, slugs, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            brands,
        )
        db.executemany(
            f"INSERT INTO articles ({', '.join(ART_COLS)}) VALUES"
            f" ({', '.join('?' * len(ART_COLS))})",
            arts,
        )
        db.executemany(
            f"INSERT INTO images ({', '.join(IMG_COLS)}) VALUES ({', '.join('?' * len(IMG_COLS))})",
            imgs,
        )
        db.executemany(
            "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
            " VALUES (?, ?, ?, ?, ?)",
            neighbours,
        )
        db.execute("ANALYZE")


async def seed_pg(dsn: str, data: tuple[list, list, list, list]) -> None:
    import asyncpg

    brands, arts, imgs, neighbours = data
    conn = await asyncpg.connect(dsn)
    try:
        await conn.copy_records_to_table(
            "brands", records=brands, columns=["uid", "name", "slugs", "created_at", "updated_at"]
        )
        await conn.copy_records_to_table("articles", records=arts, columns=list(ART_COLS))
        await conn.copy_records_to_table("images", records=imgs, columns=list(IMG_COLS))
        await conn.copy_records_to_table(
            "image_neighbors",
            records=neighbours,
            columns=["image_id", "model", "neighbor_id", "rank", "score"],
        )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


def bare_server(port: int, bodies: Path) -> None:
    """A Litestar app answering each captured path with its captured bytes."""
    import uvicorn

    pages = {k: bytes.fromhex(v) for k, v in json.loads(bodies.read_text()).items()}

    @get(["/", "/{path:path}"])
    async def page(request: Request) -> Response[bytes]:
        key = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return Response(pages[key], media_type=MediaType.HTML)

    app = Litestar([page], openapi_config=None)
    uvicorn.run(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")


def wrk(url: str, seconds: int, connections: int) -> tuple[float, float, float]:
    """req/s, p50 ms, p99 ms from one wrk run (2 threads)."""
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(pct: str) -> float:
        value, unit = re.search(rf"\s{pct}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    if re.search(r"Non-2xx", out):
        raise RuntimeError(f"{url}: non-2xx answers under load:\n{out}")
    return rps, ms("50"), ms("99")


def seeded(engine: str, dsn: str, keep: Path | None, args: argparse.Namespace, model: str) -> None:
    """Migrate and seed ``dsn``, unless ``keep`` holds a marker saying it is seeded already."""
    marker = keep / f"{engine}.seeded" if keep else None
    started = time.monotonic()
    asyncio.run(migrate(dsn))
    if marker is not None and marker.exists():
        print(
            f"{engine}: reusing {marker.read_text()} (migrated in"
            f" {time.monotonic() - started:.0f} s)",
            flush=True,
        )
        return
    data = rows(args.articles, args.images, model)
    started = time.monotonic()
    if engine == "sqlite":
        seed_sqlite(Path(dsn.removeprefix("sqlite:///")), data)
    else:
        asyncio.run(seed_pg(dsn, data))
    print(
        f"{engine}: seeded {len(data[1]):,} articles, {len(data[2]):,} images"
        f" in {time.monotonic() - started:.0f} s",
        flush=True,
    )
    if marker is not None:
        marker.write_text(dsn)


def kept_pg(keep: Path, args: argparse.Namespace) -> str:
    """A PostgreSQL database beside RK_TEST_PG_DSN named after the seed size, kept between
    runs; dropped first when ``keep`` has no marker for it (a seed that did not finish)."""
    from tests.support.pg import _run, _with_db, require_postgres

    admin = require_postgres()
    name = f"rk_bench_public_{args.articles}_{args.images}"
    if not (keep / "postgresql.seeded").exists():
        asyncio.run(_run(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        asyncio.run(_run(admin, f'CREATE DATABASE "{name}"'))
    return _with_db(admin, name)


def run(
    engine: str, dsn: str, tmp: Path, keep: Path | None, args: argparse.Namespace, model: str
) -> list[tuple]:
    seeded(engine, dsn, keep, args, model)
    config = tmp / f"{engine}.yml"
    config.write_text(json.dumps({"database": dsn, "vision": {"model": str(TINY_CLIP)}}))
    port, bare_port = free_port(), free_port()
    log = (tmp / f"{engine}.log").open("ab")
    server = subprocess.Popen(
        [
            RK,
            "serve-backend",
            "--port",
            str(port),
            "--config",
            str(config),
            "--data-dir",
            str(tmp / f"data-{engine}"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    bare = None
    try:
        wait_for_port(port, timeout_s=120)
        pages = {
            "/": "/",
            "filtered /": "/?season=Spring+2024+Ready-to-Wear&city=Paris",
            "show, 60 images": "/shows/1",
            "image, 20 neighbours": "/images/1",
        }
        httpx.get(f"http://127.0.0.1:{port}/search", timeout=60).raise_for_status()
        bodies, cold = {}, {}
        for path in pages.values():
            started = time.monotonic()
            answer = httpx.get(f"http://127.0.0.1:{port}{path}", timeout=60)
            cold[path] = (time.monotonic() - started) * 1000
            answer.raise_for_status()
            bodies[path] = answer.content.hex()
        assert bodies["/images/1"].count(b"tile__score".hex()) == 20
        captured = tmp / f"bodies-{engine}.json"
        captured.write_text(json.dumps(bodies))
        bare = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.public_pages",
                "--bare-server",
                str(bare_port),
                "--bodies",
                str(captured),
            ],
            cwd=ROOT,
        )
        wait_for_port(bare_port)
        table = []
        order = list(pages.items())
        for turn in range(args.rounds):
            for name, path in order if turn % 2 == 0 else order[::-1]:
                table.append(row(engine, name, path, port, bare_port, bodies, cold, args))
        return table
    finally:
        for proc in (server, bare):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)


def row(
    engine: str,
    name: str,
    path: str,
    port: int,
    bare_port: int,
    bodies: dict[str, str],
    cold: dict[str, float],
    args: argparse.Namespace,
) -> tuple:
    """One table row: rk then its bare twin under the same load."""
    rk = wrk(f"http://127.0.0.1:{port}{path}", args.seconds, args.connections)
    twin = wrk(f"http://127.0.0.1:{bare_port}{path}", args.seconds, args.connections)
    size = len(bodies[path]) // 2
    return (engine, name, size, cold[path], *rk, *twin, os.getloadavg()[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=10_000)
    parser.add_argument("--images", type=int, default=10, help="images per article")
    parser.add_argument("--engine", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--rounds", type=int, default=1, help="rounds over the pages, every other one reversed"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="folder keeping the seeded archives (SQLite file, PostgreSQL database name)"
        " for later runs of the same size; without it they are thrown away",
    )
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bodies", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        bare_server(args.bare_server, args.bodies)
        return 0
    if shutil.which("wrk") is None:
        print("wrk is not installed: apt-get install wrk", file=sys.stderr)
        return 2
    model = model_id()
    keep = None
    if args.keep:
        keep = args.keep / f"public-{args.articles}-{args.images}"
        keep.mkdir(parents=True, exist_ok=True)
    table = []
    with tempfile.TemporaryDirectory(prefix="rk-bench-public-") as name:
        tmp = Path(name)
        if args.engine in ("sqlite", "both"):
            sqlite_file = (keep or tmp) / "rk.sqlite3"
            if keep and not (keep / "sqlite.seeded").exists():
                sqlite_file.unlink(missing_ok=True)
            table += run("sqlite", f"sqlite:///{sqlite_file}", tmp, keep, args, model)
        if args.engine in ("postgresql", "both"):
            if keep:
                table += run("postgresql", kept_pg(keep, args), tmp, keep, args, model)
            else:
                from tests.support.pg import fresh_database

                with fresh_database() as dsn:
                    table += run("postgresql", dsn, tmp, keep, args, model)
    print(
        f"\npublic pages, {args.articles:,} published articles × {args.images} images,"
        f" wrk 2 threads × {args.connections} connections, {args.seconds} s each;"
        " cold = the page's first request after one warm-up request; load = 1-minute load"
        " average after the row"
    )
    print(
        "| engine | page | bytes | cold ms | rk req/s | p50 ms | p99 ms | bare req/s"
        " | bare p50 ms | bare p99 ms | ratio | load |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for engine, page, size, first, rps, p50, p99, brps, bp50, bp99, load in table:
        print(
            f"| {engine} | {page} | {size:,} | {first:.0f} | {rps:,.0f} | {p50:.1f} | {p99:.1f} |"
            f" {brps:,.0f} | {bp50:.1f} | {bp99:.1f} | {rps / brps:.2f} | {load:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
