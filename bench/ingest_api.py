"""Signed ingest POSTs per second against ``rk serve-backend``, next to a bare Litestar 202.

The servers run as separate processes, one uvicorn worker each, no access log. The load
comes from separate client processes (a minimal keep-alive HTTP/1.1 client on asyncio,
because an httpx loop measures httpx). Every request carries a 40-look ShowIngest, freshly
signed; the bare endpoint returns 202 without reading anything, so the ratio is what
signature checking, strict decoding, brand lookup and the job INSERT cost. A second bare
endpoint reads and decodes the body into a ShowIngest (Litestar's own ``data:``) before
its 202. A third does, on a raw ASGI route, what every signed ingest must before any
write, with rk's own functions: one body read, the signature check, the strict decode
(with every URL check); it has no database and none of rk's middleware (request id, log
line, latency metric), so rk ÷ bare cannot beat its ratio: the gap from it to rk is the
replay record, the brand, the INSERT and that middleware.

    .venv/bin/python -m bench.ingest_api [--seconds 5] [--repeat 3] [--clients 2]
                                         [--connections 16] [--database DSN]

Rounds interleave the three targets and the best round of each is shown, so a burst of
other work on the machine does not land on one row only.

Without ``--database`` the backend runs the embedded default (SQLite in a temp dir).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
from litestar import Litestar, asgi, post
from litestar.types import HTTPResponseStartEvent, Receive, Scope, Send

from rk.core.api.signing import (
    NONCE_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    signed_headers,
    verify,
)
from rk.core.api.wire import BrandRef, ImageRef, Look, ShowIngest
from rk.server.ingest.intake_routes import read_body
from tests.support.net import free_port, wait_for_port

SECRET = "bench-secret"
PATH = "/admin/internal/ingest"
RK = str(Path(sys.executable).with_name("rk"))

ROOT = Path(__file__).resolve().parents[1]  # the bench's own servers start as -m from here


def payload(brand_uid: str = "", looks: int = 40) -> bytes:
    """A realistic runway show: its brand and 40 looks, each with a URL."""
    show = ShowIngest(
        source="vogue",
        kind="runway",
        brand=BrandRef(uid=brand_uid, name="Maison Aurele") if brand_uid else None,
        show_key="spring-2025-ready-to-wear/maison-aurele",
        title="Maison Aurèle Spring 2025 Ready-to-Wear",
        season="Spring 2025",
        city="Paris",
        url="https://www.vogue.com/fashion-shows/spring-2025-ready-to-wear/maison-aurele",
        looks=[
            Look(
                number=n,
                image=ImageRef(
                    url=f"https://assets.vogue.com/photos/66f0a1b2c3d4e5f6a7b8c9{n:02d}/master/"
                    f"w_2560%2Cc_limit/{n:05d}-maison-aurele-spring-2025.jpg"
                ),
            )
            for n in range(1, looks + 1)
        ],
    )
    return msgspec.json.encode(show)


def bare_app(decode: bool) -> Litestar:
    """A Litestar app whose one route answers 202: reading nothing, or decoding the body."""

    @post(PATH, status_code=202)
    async def accept() -> dict[str, int]:
        return {"job_id": 1}

    @post(PATH, status_code=202)
    async def accept_decoded(data: ShowIngest) -> dict[str, int]:
        return {"job_id": len(data.looks)}

    return Litestar([accept_decoded if decode else accept])


def checked_app() -> Litestar:
    """A raw route that reads the body once, checks its signature and strictly decodes it
    (rk's ``read_body``, ``verify`` and wire type), then answers 202: no database."""
    decoder = msgspec.json.Decoder(ShowIngest)

    @asgi(PATH, copy_scope=False)
    async def accept_checked(scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        body = await read_body(receive, headers.get("content-length"), 16 << 20)
        verify(
            SECRET,
            "POST",
            PATH,
            headers.get(TIMESTAMP_HEADER.lower()),
            headers.get(SIGNATURE_HEADER.lower()),
            body,
            nonce=headers.get(NONCE_HEADER.lower()),
        )
        answer = msgspec.json.encode({"job_id": len(decoder.decode(body).looks)})
        length = (b"content-length", str(len(answer)).encode())
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": 202,
            "headers": [(b"content-type", b"application/json"), length],
        }
        await send(start)
        await send({"type": "http.response.body", "body": answer, "more_body": False})

    return Litestar([accept_checked])


def bare_server(port: int, kind: str) -> None:
    """A baseline app (``bare``, ``decoding`` or ``checked``) under uvicorn on ``port``."""
    import uvicorn

    app = checked_app() if kind == "checked" else bare_app(kind == "decoding")
    uvicorn.run(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")


async def _connection(port: int, body: bytes, until: float, latencies: list[float]) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    errors = 0
    try:
        while time.monotonic() < until:
            headers = signed_headers(SECRET, "POST", PATH, body)
            head = (
                f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                + "\r\n"
            )
            started = time.perf_counter()
            writer.write(head.encode() + body)
            status_and_headers = await reader.readuntil(b"\r\n\r\n")
            lines = status_and_headers.decode("latin-1").split("\r\n")
            length = next(
                int(line.split(":", 1)[1])
                for line in lines
                if line.lower().startswith("content-length:")
            )
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            if lines[0].split()[1] != "202":
                errors += 1
    finally:
        writer.close()
    return errors


def client(
    port: int,
    body: bytes,
    connections: int,
    seconds: float,
    start_at: float,
    out: multiprocessing.Queue,
) -> None:
    """One load process: ``connections`` keep-alive connections for ``seconds``."""
    latencies: list[float] = []

    async def main() -> int:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        until = time.monotonic() + seconds
        results = await asyncio.gather(
            *(_connection(port, body, until, latencies) for _ in range(connections))
        )
        return sum(results)

    errors = asyncio.run(main())
    out.put((len(latencies), errors, latencies))


def load(
    port: int, body: bytes, clients: int, connections: int, seconds: float
) -> tuple[float, int, list[float]]:
    """Requests per second, error count and all latencies from ``clients`` processes."""
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()
    start_at = time.time() + 1.5
    procs = [
        ctx.Process(target=client, args=(port, body, connections, seconds, start_at, out))
        for _ in range(clients)
    ]
    for proc in procs:
        proc.start()
    done = 0
    errors = 0
    latencies: list[float] = []
    for _ in procs:
        count, errs, lats = out.get(timeout=seconds + 60)
        done += count
        errors += errs
        latencies += lats
    for proc in procs:
        proc.join()
    return done / seconds, errors, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; best shown")
    parser.add_argument("--database", default="", help="PostgreSQL DSN (default: SQLite)")
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--decoding-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--checked-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    for kind in ("bare", "decoding", "checked"):
        port = getattr(args, f"{kind}_server")
        if port:
            bare_server(port, kind)
            return

    with tempfile.TemporaryDirectory(prefix="rk-bench-api-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RK_")}
        env.update({"RK_INGEST_SECRET": SECRET})
        if args.database:
            env["RK_DATABASE"] = args.database
        added = subprocess.run(
            [RK, "brands", "add", "Maison Aurele", "--data-dir", tmp],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        brand_uid = re.search(r"uid=(\S+)", added.stdout + added.stderr).group(1)  # type: ignore[union-attr]
        body = payload(brand_uid)
        rk_port, bare_port, decoding_port, checked_port = (free_port() for _ in range(4))
        servers = [
            subprocess.Popen(
                [RK, "serve-backend", "--port", str(rk_port), "--workers", "0", "--data-dir", tmp],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ),
            *(
                subprocess.Popen(
                    [sys.executable, "-m", "bench.ingest_api", flag, str(port)],
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for flag, port in (
                    ("--bare-server", bare_port),
                    ("--decoding-server", decoding_port),
                    ("--checked-server", checked_port),
                )
            ),
        ]
        try:
            for port in (rk_port, bare_port, decoding_port, checked_port):
                wait_for_port(port)
            targets = (
                ("bare Litestar 202", bare_port),
                ("Litestar 202 + decode body", decoding_port),
                ("202 + rk's checks, no DB", checked_port),
                ("rk ingest (signed)", rk_port),
            )
            best: dict[str, tuple[str, float, int, float, float]] = {}
            for _ in range(args.repeat):  # rounds interleave the targets: load shifts hit all
                for name, port in targets:
                    rate, errors, latencies = load(
                        port, body, args.clients, args.connections, args.seconds
                    )
                    lat = sorted(latencies) or [0.0]
                    row = (name, rate, errors, statistics.median(lat), lat[int(len(lat) * 0.99)])
                    if name not in best or rate > best[name][1]:
                        best[name] = row
            rows = [best[name] for name, _ in targets]
        finally:
            for proc in servers:
                proc.terminate()
                proc.wait(timeout=30)

    engine = "PostgreSQL" if args.database else "SQLite"
    print(
        f"ingest API, 40-look ShowIngest with brand ({len(body)} bytes), 1 uvicorn worker, "
        f"{args.clients} client processes × {args.connections} connections, "
        f"best of {args.repeat} interleaved rounds of {args.seconds:g} s, backend on {engine}, "
        f"load average {os.getloadavg()[0]:.1f} after"
    )
    print(f"{'target':<28}{'req/s':>10}{'non-202':>10}{'p50 ms':>10}{'p99 ms':>10}")
    for name, rate, errors, p50, p99 in rows:
        print(f"{name:<28}{rate:>10.0f}{errors:>10}{p50 * 1000:>10.2f}{p99 * 1000:>10.2f}")
    bare, decoding, checked, rk = (rate for _, rate, _, _, _ in rows)
    print(f"ratio rk / bare: {rk / bare:.2f}")
    print(f"ratio rk / Litestar + decode: {rk / decoding:.2f}")
    print(f"ceiling, rk's checks without a database / bare: {checked / bare:.2f}")


if __name__ == "__main__":
    main()
