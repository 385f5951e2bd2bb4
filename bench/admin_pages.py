"""Console pages on a large archive: p50/p99 of the pending tab (page 1 and a deep page), an
article of 60 images and the dashboard, each next to a bare Litestar handler that renders
the same template from a context built once (the floor: rendering, no database).

The database is seeded with bulk SQL (``executemany`` on SQLite, ``COPY`` on PostgreSQL):
``--articles`` articles (90 % pending) of ``--images`` images each (article 1 has 60),
``--tasks`` crawl tasks and ``--jobs`` ingest jobs in every status, spread over two days.
``rk serve-backend`` and the bare server run as separate processes (one uvicorn worker
each); one signed-in client asks each page ``--requests`` times in sequence, rk and bare
taking turns, so the figures are latencies under the same load, not throughput. Seeded
pending ingest jobs fall due a day later, so the backend's workers leave them alone.

    .venv/bin/python -m bench.admin_pages [--articles 20000] [--images 10] [--tasks 2000]
        [--jobs 20000] [--requests 200] [--engine sqlite|postgresql|both] [--keep DIR]

Full size (the issue's): ``--articles 100000 --tasks 10000 --jobs 100000``; seeding 1M
images takes minutes, so ``--keep DIR`` keeps the seeded archives for the next run.
PostgreSQL: a fresh database beside ``RK_TEST_PG_DSN`` (tests/support/pg), dropped after,
or with ``--keep`` one named after the seed size, kept.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from litestar import Litestar, Request, get
from litestar.response import Template

from bench.archive_seed import (
    Rows,
    article_row,
    image_rows,
    job_rows,
    seed_pg,
    seed_sqlite,
    task_rows,
)
from rk.server.platform.db.migrate import migrate
from tests.support.net import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[1]
RK = str(Path(sys.executable).with_name("rk"))
PASSWORD = "bench-password-123"
TOKEN = re.compile(r'name="_csrf_token" value="([^"]+)"')
STATUSES = ["pending"] * 9 + ["published"]
CITIES = ["Paris", "Milan", "London", "New York", "Tokyo"]
PAGES = {
    "articles, pending, page 1": ("/admin/articles?tab=pending", "admin/articles.html"),
    "articles, pending, deep page": ("DEEP", "admin/articles.html"),
    "article, 60 images": ("/admin/articles/1", "admin/article.html"),
    "dashboard": ("/admin", "admin/dashboard.html"),
}


def status_of(a: int) -> str:
    """Article ``a``'s seeded status: article 1 (60 images) pending, then 90 % pending."""
    return "pending" if a == 1 else STATUSES[a % len(STATUSES)]


def rows(args: argparse.Namespace) -> Rows:
    """Every table's rows, deterministic; pending jobs fall due a day later (no worker runs)."""
    rng = random.Random(11)
    now = int(time.time())
    brands = [
        (f"b{i}", f"Brand {i:05d}", json.dumps({"vogue": f"b{i}"}), now, now)
        for i in range(1, args.articles // 40 + 2)
    ]
    arts, imgs = [], []
    for a in range(1, args.articles + 1):
        brand = rng.randrange(1, len(brands) + 1)
        season = f"{rng.choice(['Spring', 'Fall'])} {rng.randint(2000, 2025)} Ready-to-Wear"
        title = f"Brand {brand:05d} {season}"
        row = article_row(
            a, brand, title, season, rng.choice(CITIES), "2025-03-01", status_of(a), now
        )
        arts.append((*row[:-2], now - args.articles + a, now))
        imgs += image_rows(a, 60 if a == 1 else args.images, now)
    tasks = task_rows(args.tasks, len(brands), rng, now)
    jobs = job_rows(args.jobs, len(brands), rng, now)
    return {
        "brands": brands,
        "articles": arts,
        "images": imgs,
        "crawl_tasks": tasks,
        "ingest_jobs": jobs,
    }


def bare_server(port: int, dsn: str, deep: int) -> None:
    """Each page's template rendered from a context built once from the services."""
    import uvicorn

    from rk.core.api.lookups import open_storage
    from rk.core.api.storage import StorageContext
    from rk.server.console.accounts.users import get_user
    from rk.server.console.articles import list_articles
    from rk.server.console.dashboard import dashboard
    from rk.server.console.dashboard_page import NO_MODEL
    from rk.server.console.review import next_pending, review
    from rk.server.platform.db.engine import connect
    from rk.server.platform.web.templating import template_config

    async def build() -> dict[str, dict[str, Any]]:
        await connect(dsn)
        storage = open_storage(
            f"file://{tempfile.gettempdir()}/rk-bench-media",
            StorageContext(backend_url="http://127.0.0.1", secret="s"),
        )
        user = await get_user("bench")
        first = await list_articles(storage, "pending", limit=50)
        deep_page = await list_articles(storage, "pending", before=deep, limit=50)
        article = await review(storage, 1, 0.97)
        base = {"user": user, "flashes": [], "errors": {}}
        return {
            "/admin/articles": {
                **base,
                "listing": first,
                "tab": "pending",
                "brand": None,
                "first_page": True,
            },
            "/admin/articles/deep": {
                **base,
                "listing": deep_page,
                "tab": "pending",
                "brand": None,
                "first_page": False,
            },
            "/admin/articles/1": {**base, "article": article, "next_id": await next_pending(1)},
            "/admin": {**base, "d": await dashboard(NO_MODEL, None)},
        }

    contexts = asyncio.run(build())
    templates = {
        "/admin/articles": "admin/articles.html",
        "/admin/articles/deep": "admin/articles.html",
        "/admin/articles/1": "admin/article.html",
        "/admin": "admin/dashboard.html",
    }

    @get(["/admin", "/admin/articles", "/admin/articles/deep", "/admin/articles/1"])
    async def page(request: Request[Any, Any, Any]) -> Template:
        path = request.url.path
        return Template(template_name=templates[path], context=contexts[path])

    app = Litestar([page], template_config=template_config(), openapi_config=None)
    uvicorn.run(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")


def timings(
    client: httpx.Client, url: str, floor: httpx.Client, bare_url: str, count: int
) -> tuple[float, float, float, float]:
    """rk p50, rk p99, bare p50, bare p99 in ms of ``count`` GETs each, rk and bare taking
    turns (so both see the same machine load), after 5 warm-up requests each."""
    for _ in range(5):
        client.get(url).raise_for_status()
        floor.get(bare_url).raise_for_status()
    spent: dict[str, list[float]] = {"rk": [], "bare": []}
    for _ in range(count):
        for side, http, path in (("rk", client, url), ("bare", floor, bare_url)):
            started = time.perf_counter()
            answer = http.get(path)
            spent[side].append((time.perf_counter() - started) * 1000)
            if answer.status_code != 200:
                raise RuntimeError(f"{path}: {answer.status_code}")
    out: list[float] = []
    for side in ("rk", "bare"):
        values = sorted(spent[side])
        out += [statistics.median(values), values[min(len(values) - 1, int(len(values) * 0.99))]]
    return out[0], out[1], out[2], out[3]


def fresh_dashboard(dsn: str, count: int) -> tuple[float, float]:
    """p50 and p99 in ms of the dashboard's figures read afresh (its 5 s cache and the tab
    counts' bypassed), in this process: what a dashboard request costs every 5 s."""
    from rk.server.console.dashboard import read_dashboard
    from rk.server.console.dashboard_page import NO_MODEL
    from rk.server.moderation.moderation import TAB_COUNTS
    from rk.server.platform.db.engine import close, connect

    async def measure() -> list[float]:
        db, spent = await connect(dsn), []
        for _ in range(count):
            TAB_COUNTS.clear()
            started = time.perf_counter()
            await read_dashboard(NO_MODEL, None)
            spent.append((time.perf_counter() - started) * 1000)
        await close(db)
        return sorted(spent)

    spent = asyncio.run(measure())
    return statistics.median(spent), spent[min(len(spent) - 1, int(len(spent) * 0.99))]


def signed_in(base: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=60, headers={"accept": "text/html"})
    form = client.get("/admin/sign-in")
    token = TOKEN.search(form.text)
    assert token is not None
    answer = client.post(
        "/admin/sign-in",
        data={"username": "bench", "password": PASSWORD, "_csrf_token": token.group(1)},
    )
    assert answer.status_code == 303, answer.text[:300]
    return client


def seeded(engine: str, dsn: str, keep: Path | None, args: argparse.Namespace) -> None:
    """Migrate and seed ``dsn``, unless ``keep`` holds a marker saying it is seeded already."""
    marker = keep / f"{engine}.seeded" if keep else None
    asyncio.run(migrate(dsn))
    if marker is not None and marker.exists():
        print(f"{engine}: reusing the seeded archive of {marker}", flush=True)
        return
    data = rows(args)
    started = time.monotonic()
    if engine == "sqlite":
        seed_sqlite(Path(dsn.removeprefix("sqlite:///")), data)
    else:
        asyncio.run(seed_pg(dsn, data))
    print(
        f"{engine}: seeded {len(data['articles']):,} articles, {len(data['images']):,} images,"
        f" {len(data['crawl_tasks']):,} tasks, {len(data['ingest_jobs']):,} jobs"
        f" in {time.monotonic() - started:.0f} s",
        flush=True,
    )
    if marker is not None:
        marker.write_text(dsn)


def run(
    engine: str, dsn: str, tmp: Path, keep: Path | None, args: argparse.Namespace
) -> list[tuple[Any, ...]]:
    seeded(engine, dsn, keep, args)
    config = tmp / f"{engine}.yml"
    config.write_text(json.dumps({"database": dsn, "server": {"workers": 1}}))
    common = ["--config", str(config), "--data-dir", str(tmp / f"data-{engine}")]
    made = subprocess.run(
        [RK, "admin", "create-user", "bench", "--role", "admin", "--password-stdin", *common],
        input=PASSWORD + "\n",
        text=True,
        capture_output=True,
    )
    if made.returncode != 0 and "exists" not in made.stderr:
        raise RuntimeError(f"create-user: {made.stderr.strip()}")
    pending = [a for a in range(1, args.articles + 1) if status_of(a) == "pending"]
    deep = pending[len(pending) // 2]
    port, bare_port = free_port(), free_port()
    log = (tmp / f"{engine}.log").open("ab")
    server = subprocess.Popen(
        [RK, "serve-backend", "--port", str(port), *common], stdout=log, stderr=subprocess.STDOUT
    )
    bare = None
    try:
        wait_for_port(port, timeout_s=120)
        bare = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.admin_pages",
                "--bare-server",
                str(bare_port),
                "--dsn",
                dsn,
                "--deep",
                str(deep),
            ],
            cwd=ROOT,
        )
        wait_for_port(bare_port, timeout_s=120)
        client = signed_in(f"http://127.0.0.1:{port}")
        floor = httpx.Client(base_url=f"http://127.0.0.1:{bare_port}", timeout=60)
        table = []
        for name, (path, _) in PAGES.items():
            rk_path = f"/admin/articles?tab=pending&before={deep}" if path == "DEEP" else path
            bare_path = "/admin/articles/deep" if path == "DEEP" else path.split("?")[0]
            figures = timings(client, rk_path, floor, bare_path, args.requests)
            table.append((engine, name, *figures, os.getloadavg()[0]))
        fresh = fresh_dashboard(dsn, 20)
        table.append((engine, "dashboard figures afresh", *fresh, 0.0, 0.0, os.getloadavg()[0]))
        return table
    finally:
        for proc in (server, bare):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)


def kept_pg(keep: Path, args: argparse.Namespace) -> str:
    """A PostgreSQL database beside RK_TEST_PG_DSN named after the seed size, kept between
    runs; dropped first when ``keep`` has no marker for it (a seed that did not finish)."""
    from tests.support.pg import _run, _with_db, require_postgres

    admin = require_postgres()
    name = f"rk_bench_admin_{args.articles}_{args.images}_{args.tasks}_{args.jobs}"
    if not (keep / "postgresql.seeded").exists():
        asyncio.run(_run(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        asyncio.run(_run(admin, f'CREATE DATABASE "{name}"'))
    return _with_db(admin, name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=20_000)
    parser.add_argument("--images", type=int, default=10, help="images per article")
    parser.add_argument("--tasks", type=int, default=2_000)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=200, help="per page and server")
    parser.add_argument("--engine", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument(
        "--keep",
        type=Path,
        help="folder keeping the seeded archives (SQLite file, PostgreSQL database name)"
        " for later runs of the same size; without it they are thrown away",
    )
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dsn", help=argparse.SUPPRESS)
    parser.add_argument("--deep", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server:
        bare_server(args.bare_server, args.dsn, args.deep)
        return 0
    keep = None
    if args.keep:
        keep = args.keep / f"{args.articles}-{args.images}-{args.tasks}-{args.jobs}"
        keep.mkdir(parents=True, exist_ok=True)
    table = []
    with tempfile.TemporaryDirectory(prefix="rk-bench-admin-") as name:
        tmp = Path(name)
        if args.engine in ("sqlite", "both"):
            sqlite_file = (keep or tmp) / "rk.sqlite3"
            if keep and not (keep / "sqlite.seeded").exists():
                sqlite_file.unlink(missing_ok=True)
            table += run("sqlite", f"sqlite:///{sqlite_file}", tmp, keep, args)
        if args.engine in ("postgresql", "both"):
            if keep:
                table += run("postgresql", kept_pg(keep, args), tmp, keep, args)
            else:
                from tests.support.pg import fresh_database

                with fresh_database() as dsn:
                    table += run("postgresql", dsn, tmp, keep, args)
    print(
        f"\nconsole pages, {args.articles:,} articles × {args.images} images,"
        f" {args.tasks:,} crawl tasks, {args.jobs:,} ingest jobs; {args.requests} requests"
        " per page and server, rk and bare taking turns; load = 1-min load average after"
        " the page"
    )
    print(
        "| engine | page | rk p50 ms | rk p99 ms | bare render p50 ms | bare p99 ms"
        " | p50 ratio | load |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for engine, page, p50, p99, b50, b99, load in table:
        bare = f"{b50:.1f} | {b99:.1f} | {p50 / b50:.2f}" if b50 else "— | — | —"
        print(f"| {engine} | {page} | {p50:.1f} | {p99:.1f} | {bare} | {load:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
