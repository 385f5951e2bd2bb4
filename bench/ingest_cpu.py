"""Server CPU per signed ingest POST, in process: rk's ASGI app next to a bare Litestar 202.

No sockets and no uvicorn: each request is an ASGI call made straight into the app (the
body in one ``http.request`` message), ``--concurrency`` at a time, so the figure is what
the backend process itself spends per request (its SQLite writer thread included; on
PostgreSQL the database's own backends are shown apart). The baselines are the apps of
``bench.ingest_show``: a bare 202 that reads nothing, and one that decodes the body into a
ShowIngest with Litestar's own ``data:``. Every rk request carries the 40-look show of
``bench.ingest_show``, signed beforehand (signing is the client's cost) with its own nonce.

    .venv/bin/python -m bench.ingest_cpu [--requests 3000] [--repeat 3] [--concurrency 32]
                                         [--database DSN] [--profile] [--only rk]

``--database`` takes a PostgreSQL server DSN: the app runs in a throw-away database made
there. ``--profile`` runs one more rk round under cProfile and prints where it went.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from litestar import Litestar

from bench.ingest_show import PATH, SECRET, bare_app, payload
from bench.job_queue import backend_cpu_s, postgres_db
from rk.core.api.plugins import get_plugin_manager
from rk.core.api.signing import signed_headers
from rk.core.config import IngestSettings, ServerSettings, Settings
from rk.server.app import create_app
from rk.server.brands.management import add_brand

Headers = list[tuple[bytes, bytes]]


def scope(headers: Headers) -> dict[str, Any]:
    """An HTTP scope as uvicorn builds it for ``POST PATH``."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8092),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": "POST",
        "root_path": "",
        "path": PATH,
        "raw_path": PATH.encode(),
        "query_string": b"",
        "headers": headers,
        "state": {},
    }


def request_headers(body: bytes, signed: bool) -> Headers:
    """The headers of one request: content type and length, and a fresh signature."""
    headers = [
        (b"host", b"127.0.0.1:8092"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if signed:
        for name, value in signed_headers(SECRET, "POST", PATH, body).items():
            headers.append((name.lower().encode(), value.encode()))
    return headers


async def call(app: Any, headers: Headers, body: bytes) -> int:
    """One request into ``app``; its status."""
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()  # a client that stays connected
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope(headers), receive, send)
    return status


async def run(app: Any, requests: list[Headers], body: bytes, concurrency: int) -> int:
    """All ``requests``, ``concurrency`` in flight at once; how many were not a 202."""
    todo = iter(requests)
    failed = 0

    async def worker() -> None:
        nonlocal failed
        for headers in todo:
            if await call(app, headers, body) != 202:
                failed += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return failed


@asynccontextmanager
async def rk_app(database: str) -> AsyncIterator[tuple[Litestar, str]]:
    """rk's backend app, started (SQLite in a temp dir, or a fresh PostgreSQL database)."""
    async with AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="rk-bench-cpu-"))
        dsn = await stack.enter_async_context(postgres_db(database)) if database else ""
        settings = Settings(
            data_dir=str(Path(tmp) / "data"),
            database=dsn,
            server=ServerSettings(workers=0),
            ingest=IngestSettings(secret=SECRET),
        )
        app = create_app(settings, get_plugin_manager())
        await stack.enter_async_context(app.lifespan())
        yield app, dsn


async def timed(
    app: Any, body: bytes, signed: bool, n: int, concurrency: int, dsn: str
) -> tuple[float, float, int]:
    """(process CPU µs, database CPU µs, non-202 count) per request over ``n`` requests."""
    requests = [request_headers(body, signed) for _ in range(n)]
    db_before = await backend_cpu_s(dsn)
    cpu = time.process_time()
    failed = await run(app, requests, body, concurrency)
    cpu = time.process_time() - cpu
    db_after = await backend_cpu_s(dsn)
    db = sum(used - db_before.get(pid, 0.0) for pid, used in db_after.items())
    return cpu / n * 1e6, db / n * 1e6, failed


def show_profile(profile: cProfile.Profile, lines: int) -> None:
    """The functions that took the most time, by own time and by cumulative time."""
    stats = pstats.Stats(profile)
    stats.strip_dirs()
    for key in ("tottime", "cumulative"):
        print(f"\n--- cProfile of one rk round, by {key} ---")
        stats.sort_stats(key).print_stats(lines)


async def main(args: argparse.Namespace) -> None:
    """Warm each app up, then interleave timed rounds; print medians and the best."""
    async with rk_app(args.database) as (app, dsn):
        brand = (await add_brand("Maison Aurele"))[0].uid
        body = payload(brand)
        targets: Sequence[tuple[str, Any, bool]] = [
            ("bare Litestar 202", bare_app(decode=False), False),
            ("Litestar 202 + decode body", bare_app(decode=True), False),
            ("rk ingest (signed)", app, True),
        ]
        if args.only == "rk":
            targets = targets[2:]
        rounds: dict[str, list[tuple[float, float, int]]] = {name: [] for name, _, _ in targets}
        for _, target, signed in targets:  # warm-up
            await timed(target, body, signed, min(args.requests, 500), args.concurrency, "")
        for _ in range(args.repeat):
            for name, target, signed in targets:
                rounds[name].append(
                    await timed(target, body, signed, args.requests, args.concurrency, dsn)
                )
        if args.profile:
            profile = cProfile.Profile()
            requests = [request_headers(body, True) for _ in range(args.requests)]
            profile.enable()
            await run(app, requests, body, args.concurrency)
            profile.disable()

    engine = "PostgreSQL" if args.database else "SQLite"
    print(
        f"ingest in process, {len(body)}-byte 40-look ShowIngest, {args.requests} requests × "
        f"{args.repeat} interleaved rounds, {args.concurrency} concurrent, backend on {engine}, "
        f"load average {os.getloadavg()[0]:.1f} after"
    )
    print(f"{'target':<28}{'CPU µs/req':>12}{'best':>8}{'DB µs/req':>11}{'non-202':>9}")
    base = statistics.median(r[0] for r in rounds[targets[0][0]])
    for name, _, _ in targets:
        cpu = [r[0] for r in rounds[name]]
        db = statistics.median(r[1] for r in rounds[name])
        failed = sum(r[2] for r in rounds[name])
        print(f"{name:<28}{statistics.median(cpu):>12.0f}{min(cpu):>8.0f}{db:>11.0f}{failed:>9}")
    if args.only != "rk":
        rk_cpu = statistics.median(r[0] for r in rounds["rk ingest (signed)"])
        print(f"bare / rk CPU per request: {base / rk_cpu:.2f}")
    if args.profile:
        show_profile(profile, args.profile_lines)


def cli() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="per round and target")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; median shown")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--database", default="", help="PostgreSQL DSN (default: SQLite)")
    parser.add_argument("--profile", action="store_true", help="cProfile one more rk round")
    parser.add_argument("--profile-lines", type=int, default=30)
    parser.add_argument("--only", choices=("all", "rk"), default="all")
    asyncio.run(main(parser.parse_args()))


if __name__ == "__main__":
    cli()
