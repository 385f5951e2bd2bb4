"""Clients that misbehave on the wire, against a real ``rk serve-backend`` over raw sockets:
one that drops its body half-way is a 499 (logged and counted as such, never a 500, and out
of the latency histogram); a signed route without its signature headers is a 401 before any
body is sent; a request head or body that stalls is cut off after its timeout; connections
past ``server.max_connections`` get rk's JSON 503 with
Retry-After (not uvicorn's plain-text one)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import msgspec

from rk.core.api.signing import signed_headers
from rk.server.platform.http.capacity import MESSAGE, RETRY_AFTER_S
from tests.integration.server.helpers import INGEST, SECRET, UPLOAD_URL, show
from tests.integration.server.test_operations import Samples, samples
from tests.integration.spider.procs import Backend, eventually

HISTOGRAM = "rk_http_request_duration_seconds_count"
CLOSED = "rk_http_client_closed_total"


def backend(tmp_path: Path, sqlite_dsn: str, **server: object) -> Backend:
    return Backend(tmp_path, sqlite_dsn, ingest={"secret": SECRET}, server=server).start()


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


async def answer_of(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body of one HTTP/1.1 answer on ``reader``."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    status_line, *lines = head.decode("latin-1").split("\r\n")[:-2]
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    body = await asyncio.wait_for(reader.readexactly(int(headers["content-length"])), 30)
    return int(status_line.split()[1]), headers, body


async def test_signed_routes_refuse_missing_signatures_before_the_body_is_sent(
    tmp_path: Path, sqlite_dsn: str
) -> None:
    site = backend(tmp_path, sqlite_dsn)
    try:
        for path in (INGEST, UPLOAD_URL):
            reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
            declared = {"Content-Type": "application/json", "Content-Length": str(2 * 1024 * 1024)}
            writer.write(head("POST", path, declared))
            await writer.drain()
            status, _, body = await answer_of(reader)
            assert status == 401, body
            assert json.loads(body) == {"error": "missing X-RK-Timestamp or X-RK-Signature header"}
            writer.close()
    finally:
        site.stop()


async def test_stalled_heads_are_closed_and_stalled_bodies_answered_408(
    tmp_path: Path, sqlite_dsn: str
) -> None:
    site = backend(tmp_path, sqlite_dsn, header_timeout_s=1, body_timeout_s=1)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 30) == b""
        writer.close()
        await site.wait_for("no request head within 1 s")
        reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
        photo = {"Content-Type": "image/jpeg", "Content-Length": "100000"}
        writer.write(head("POST", "/api/search/image", photo) + b"\xff\xd8\xff\xe0")
        await writer.drain()
        status, headers, body = await answer_of(reader)
        assert status == 408
        assert json.loads(body) == {"error": "the request body did not arrive within 1 s"}
        assert headers["connection"] == "close"
        assert await asyncio.wait_for(reader.read(), 30) == b""
        writer.close()
        async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
            assert (await client.get("/healthz")).status_code == 200
    finally:
        site.stop()
    assert "Traceback" not in site.log()


async def test_connections_past_the_cap_get_a_json_503_with_retry_after(
    tmp_path: Path, sqlite_dsn: str
) -> None:
    site = backend(tmp_path, sqlite_dsn, max_connections=3)
    try:
        held = [await asyncio.open_connection("127.0.0.1", site.port) for _ in range(3)]
        for path in ("/healthz", "/api/shows", "/no/such/page"):
            reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
            writer.write(head("GET", path, {}))
            await writer.drain()
            status, headers, body = await answer_of(reader)
            assert status == 503, path
            assert json.loads(body) == {"error": MESSAGE}
            assert headers["content-type"] == "application/json"
            assert headers["retry-after"] == str(RETRY_AFTER_S)
            assert headers["connection"] == "close"
            assert headers["x-content-type-options"] == "nosniff"
            assert await asyncio.wait_for(reader.read(), 30) == b""
            writer.close()
        for _, idle in held:
            idle.close()
        async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:

            async def served() -> bool:
                return (await client.get("/healthz")).status_code == 200

            await eventually(served, "a request served once the held connections closed")
        assert counted(await metrics(site), "rk_http_over_capacity_total") == 3
        await site.wait_for("GET over capacity -> 503")
    finally:
        site.stop()
    assert "Exceeded concurrency limit" not in site.log()
