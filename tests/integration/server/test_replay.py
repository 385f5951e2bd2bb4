"""Each signed request is accepted once within its window, by every backend process.

Two backends share one database (SQLite file or PostgreSQL); the same signed request sent
to both, many times at once, makes one job and answers every other copy with a 409.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import msgspec

from rk.core.api.signing import NONCE_HEADER, signed_headers
from rk.server.platform.db.tables import SignedRequest
from rk.server.platform.signing.replay_guard import ReplayGuard
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import INGEST, SECRET, backend_settings, job_count, show
from tests.integration.server.test_internal_api import assert_error

BODY = msgspec.json.encode(show("ss25/replayed", ["https://img.example/1.jpg"]))


async def test_a_replayed_request_is_409_on_every_process(
    start_backend: StartBackend, any_dsn: str, tmp_path: Path
) -> None:
    one = await start_backend(backend_settings(tmp_path / "one", database=any_dsn, workers=0))
    two = await start_backend(backend_settings(tmp_path / "two", database=any_dsn, workers=0))
    headers = signed_headers(SECRET, "POST", INGEST, BODY)
    headers["Content-Type"] = "application/json"
    sends = [
        backend.client.post(INGEST, content=BODY, headers=headers)
        for _ in range(20)
        for backend in (one, two)
    ]
    answers = await asyncio.gather(*sends)
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [202] + [409] * 39
    replay = next(answer for answer in answers if answer.status_code == 409)
    assert_error(replay, 409, "replayed request")
    assert await job_count() == 1


async def test_fresh_nonces_make_identical_requests_distinct(
    start_backend: StartBackend, any_dsn: str, tmp_path: Path
) -> None:
    """rk's clients sign a fresh nonce each time; a nonce-less ``curl`` replay is still a 409."""
    backend = await start_backend(backend_settings(tmp_path, database=any_dsn, workers=0))
    now = int(time.time())
    first = await backend.signed("GET", "/admin/internal/ping", now=now)
    second = await backend.signed("GET", "/admin/internal/ping", now=now)
    assert (first.status_code, second.status_code) == (200, 200)
    assert first.request.headers[NONCE_HEADER] != second.request.headers[NONCE_HEADER]
    plain = signed_headers(SECRET, "GET", "/admin/internal/ping", b"", now, nonce="")
    assert NONCE_HEADER not in plain
    async with httpx.AsyncClient(base_url=backend.url) as client:
        assert (await client.get("/admin/internal/ping", headers=plain)).status_code == 200
        again = await client.get("/admin/internal/ping", headers=plain)
        assert_error(again, 409, "replayed request")
        forged = {**plain, NONCE_HEADER: "attacker-nonce"}
        assert_error(await client.get("/admin/internal/ping", headers=forged), 401, "signature")


async def test_expired_signatures_are_swept(
    start_backend: StartBackend, any_dsn: str, tmp_path: Path
) -> None:
    await start_backend(backend_settings(tmp_path, database=any_dsn, workers=0))
    past = int(time.time()) - 10
    await SignedRequest.insert(SignedRequest(signature="a" * 64, expires_at=past))
    guard = ReplayGuard()
    assert await guard.first_use("b" * 64, past + 1000)
    assert not await guard.first_use("b" * 64, past + 1000)
    rows = await SignedRequest.select(SignedRequest.signature).order_by(SignedRequest.signature)
    assert [row["signature"] for row in rows] == ["b" * 64]
