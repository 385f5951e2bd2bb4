"""Signed ingest as capacity: shows a second and a core, and p99, at 64 concurrent spiders.

A real ``rk serve-backend`` (one uvicorn worker, no ingest workers, so the figure is the
intake alone) takes signed 40-look ``ShowIngest`` POSTs from ``--spiders`` keep-alive
connections spread over two client processes (a minimal HTTP/1.1 client on asyncio: an
httpx loop would measure httpx). Each connection posts back to back, which is far more than
a spider does: a spider posts one show every few seconds (it fetches a show page and its
looks between posts). The table gives, per round, shows a second, the backend's CPU per
show (its process, plus its PostgreSQL backends on ``--database``), shows a second per busy
core (1 ÷ that CPU), p50 and p99, and how many spiders one core serves at one show every
``--spider-interval`` seconds each.

    .venv/bin/python -m bench.ingest_api [--spiders 64] [--seconds 5] [--rounds 3]
                                         [--database DSN]

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
from dataclasses import dataclass
from pathlib import Path

from bench.ingest_show import PATH, SECRET, payload
from bench.job_queue import backend_cpu_s, proc_cpu_s
from rk.core.api.signing import signed_headers
from tests.support.net import free_port, wait_for_port

RK = str(Path(sys.executable).with_name("rk"))
CLIENTS = 2


@dataclass(frozen=True)
class Round:
    """One timed round: shows accepted, non-202 answers, latencies, backend CPU seconds."""

    shows: int
    errors: int
    latencies: list[float]
    cpu_s: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.shows / self.seconds

    @property
    def cpu_us(self) -> float:
        return self.cpu_s / max(self.shows, 1) * 1e6

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies) or [0.0]
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def _connection(port: int, body: bytes, until: float, latencies: list[float]) -> int:
    """Post signed shows back to back on one keep-alive connection; the non-202 count."""
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
            lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            length = next(
                int(line.split(":", 1)[1])
                for line in lines
                if line.lower().startswith("content-length:")
            )
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            errors += lines[0].split()[1] != "202"
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
    """One load process: ``connections`` connections posting for ``seconds``."""
    latencies: list[float] = []

    async def main() -> int:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        until = time.monotonic() + seconds
        posting = (_connection(port, body, until, latencies) for _ in range(connections))
        return sum(await asyncio.gather(*posting))

    errors = asyncio.run(main())
    out.put((errors, latencies))


def timed_round(
    port: int, body: bytes, spiders: int, seconds: float, backend: int, dsn: str
) -> Round:
    """``spiders`` connections over ``CLIENTS`` processes for ``seconds``, CPU read around it."""
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()
    start_at = time.time() + 1.5
    shares = [spiders // CLIENTS + (i < spiders % CLIENTS) for i in range(CLIENTS)]
    procs = [
        ctx.Process(target=client, args=(port, body, share, seconds, start_at, out))
        for share in shares
    ]
    for proc in procs:
        proc.start()
    db_before = asyncio.run(backend_cpu_s(dsn))
    cpu_before = proc_cpu_s([backend])[backend]
    errors, latencies = 0, []
    for _ in procs:
        errs, lats = out.get(timeout=seconds + 60)
        errors += errs
        latencies += lats
    cpu = proc_cpu_s([backend])[backend] - cpu_before
    db_after = asyncio.run(backend_cpu_s(dsn))
    cpu += sum(used - db_before.get(pid, 0.0) for pid, used in db_after.items())
    for proc in procs:
        proc.join()
    return Round(len(latencies) - errors, errors, latencies, cpu, seconds)


def show_table(rounds: list[Round], args: argparse.Namespace, size: int) -> None:
    """Each round, the medians, and the fleet one core serves."""
    engine = "PostgreSQL" if args.database else "SQLite"
    print(
        f"signed ingest capacity: {size}-byte 40-look ShowIngest, 1 uvicorn worker on "
        f"{engine}, {args.spiders} spiders posting back to back, {len(rounds)} rounds of "
        f"{args.seconds:g} s, load average {os.getloadavg()[0]:.1f}"
    )
    head = ("round", "shows/s", "CPU µs/show", "shows/s/core", "p50 ms", "p99 ms", "non-202")
    print("| " + " | ".join(head) + " |\n|" + "---|" + "---:|" * (len(head) - 1))
    for n, r in enumerate(rounds, 1):
        cells = (r.rate, r.cpu_us, 1e6 / r.cpu_us, r.quantile(0.5) * 1e3, r.quantile(0.99) * 1e3)
        print(f"| {n} | " + " | ".join(f"{c:,.1f}" for c in cells) + f" | {r.errors} |")
    per_core = statistics.median(1e6 / r.cpu_us for r in rounds)
    p99 = statistics.median(r.quantile(0.99) for r in rounds) * 1e3
    print(
        f"median: {per_core:,.0f} shows/s per busy core, p99 {p99:.1f} ms at {args.spiders} "
        f"spiders; at one show every {args.spider_interval:g} s a spider, one core serves "
        f"{per_core * args.spider_interval:,.0f} spiders"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spiders", type=int, default=64, help="concurrent connections")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spider-interval", type=float, default=3.0, help="s between posts")
    parser.add_argument("--database", default="", help="PostgreSQL DSN (default: SQLite)")
    args = parser.parse_args()

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
        uid = re.search(r"uid=(\S+)", added.stdout + added.stderr)
        if uid is None:
            raise SystemExit(f"rk brands add said no uid: {added.stdout}{added.stderr}")
        body = payload(uid.group(1))
        port = free_port()
        server = subprocess.Popen(
            [RK, "serve-backend", "--port", str(port), "--workers", "0", "--data-dir", tmp],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(port)
            timed_round(port, body, args.spiders, 1.0, server.pid, args.database)  # warm-up
            rounds = [
                timed_round(port, body, args.spiders, args.seconds, server.pid, args.database)
                for _ in range(args.rounds)
            ]
        finally:
            server.terminate()
            server.wait(timeout=30)
    show_table(rounds, args, len(body))


if __name__ == "__main__":
    main()
