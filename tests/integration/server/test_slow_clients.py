"""Clients that misbehave on the wire, against a real ``rk serve-backend`` over raw sockets:
one that drops its body half-way is a 499 (logged and counted as such, never a 500, and out
of the latency histogram)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import msgspec

from rk.core.signing import signed_headers
from tests.integration.server.helpers import INGEST, SECRET, show
from tests.integration.server.test_operations import Samples, samples
from tests.integration.spider.procs import Backend

HISTOGRAM = "rk_http_request_duration_seconds_count"
CLOSED = "rk_http_client_closed_total"


def backend(tmp_path: Path, sqlite_dsn: str) -> Backend:
    return Backend(tmp_path, sqlite_dsn, ingest={"secret": SECRET}).start()


def head(method: str, path: str, headers: dict[str, str]) -> bytes:
    """An HTTP/1.1 request head."""
    lines = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def counted(found: Samples, name: str, **labels: str) -> float:
    """The sum of ``name`` over every sample that has ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in found.items() if n == name and want <= ls)


async def metrics(site: Backend) -> Samples:
    async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
        return samples((await client.get("/metrics")).text)


async def drop_half_way(site: Backend, request: bytes, body: bytes) -> None:
    """Send ``request`` and half of ``body``, then close the connection."""
    _, writer = await asyncio.open_connection("127.0.0.1", site.port)
    writer.write(request + body[: len(body) // 2])
    await writer.drain()
    writer.close()
    await writer.wait_closed()


async def test_a_body_dropped_half_way_is_a_499_not_a_500(tmp_path: Path, sqlite_dsn: str) -> None:
    site = backend(tmp_path, sqlite_dsn)
    try:
        before = await metrics(site)
        body = msgspec.json.encode(show("s/dropped", ["https://img.example/1.jpg"] * 50))
        signed = signed_headers(SECRET, "POST", INGEST, body)
        sent = {**signed, "Content-Type": "application/json", "Content-Length": str(len(body))}
        await drop_half_way(site, head("POST", INGEST, sent), body)
        picture = b"\xff\xd8\xff\xe0" + b"\x00" * 4000
        photo = {"Content-Type": "image/jpeg", "Content-Length": str(len(picture))}
        await drop_half_way(site, head("POST", "/api/search/image", photo), picture)
        await site.wait_for(r"POST /api/search/image -> 499")
        await site.wait_for(rf"POST {INGEST} -> 499")
        after = await metrics(site)
    finally:
        site.stop()
    for route in (INGEST, "/api/search/image"):
        assert counted(after, CLOSED, route=route, status="499") == 1
        assert counted(after, HISTOGRAM, route=route) == counted(before, HISTOGRAM, route=route)
    assert counted(after, HISTOGRAM, status="500") == 0
    log = site.log()
    assert "-> 500" not in log
    assert "server error" not in log
    assert "Traceback" not in log
