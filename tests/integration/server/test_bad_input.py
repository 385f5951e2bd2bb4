"""Bad input refused at the door on both engines: control characters, media keys, paths.

Each answer is a one-line JSON 4xx naming what is wrong (or a 503 that shows no path), and
nothing is queued or written.
"""

from __future__ import annotations

import json
import logging
import struct
import zlib
from pathlib import Path

import msgspec
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.core.api.wire import MAX_ID
from rk.core.runtime.thumbs import make_thumbnail
from rk.server.platform.db.tables import CrawlTask, ImageEmbeddingFailure
from tests.integration.embeddings.backend import embed_backend
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import Backend, backend_settings, job_count, show
from tests.integration.server.images import Answer, ImageServer, jpeg
from tests.integration.server.test_internal_api import assert_error
from tests.support.pg import refusing_connections

URL = "https://img.example/1.jpg"
SHA1 = "0123456789abcdef0123456789abcdef01234567"
TASKS = "/admin/internal/crawl/tasks"
EMBEDDINGS = "/admin/internal/embeddings"


@pytest.fixture
async def backend(start_backend: StartBackend, any_dsn: str, tmp_path: Path) -> Backend:
    return await start_backend(backend_settings(tmp_path, database=any_dsn, workers=0))


def _show_with(field: str, value: str) -> bytes:
    body = msgspec.to_builtins(show("ss25/a", ["https://img.example/1.jpg"]))
    body[field] = value
    return json.dumps(body).encode()


@pytest.mark.parametrize("field", ["title", "show_key", "season"])
async def test_nul_in_a_show_is_422_naming_the_field(backend: Backend, field: str) -> None:
    response = await backend.ingest(_show_with(field, "a\u0000b"))
    assert_error(response, 422, "control characters", f"$.{field}")
    assert await job_count() == 0


async def test_nul_in_a_crawl_worker_or_embedding_error_is_422(backend: Backend) -> None:
    claim = await backend.signed("POST", TASKS, b'{"worker": "w\\u0000", "source": "vogue"}')
    assert_error(claim, 422, "control characters", "$.worker")
    failure = {"kind": "runway", "image_id": 1, "error": "broken\u0000"}
    submitted = await backend.signed(
        "POST", EMBEDDINGS, json.dumps({"failures": [failure]}).encode()
    )
    assert_error(submitted, 422, "control characters", "$.failures[0].error")
    assert await CrawlTask.count() == 0
    assert await ImageEmbeddingFailure.count() == 0


@pytest.mark.parametrize("suffix", ["%0A", "%0a%0a", "%00", "/", "%20"])
async def test_media_keys_match_in_full(backend: Backend, suffix: str) -> None:
    """``runway/<sha1>.jpg\\n`` is not a key: 404, never a storage error with its path."""
    media_root = Path(backend.settings.storage_url.removeprefix("file://"))
    response = await backend.client.get(f"/media/runway/{SHA1}.jpg{suffix}")
    message = assert_error(response, 404)
    assert str(media_root) not in message


BIG = [2**31, 2**62, 2**63, 10**20]


@pytest.mark.parametrize("big", BIG)
async def test_large_ids_are_404_never_500(
    backend: Backend, big: int, caplog: pytest.LogCaptureFixture
) -> None:
    """int4 overflows (PostgreSQL) and > 2^63 (SQLite) are answered, not raised."""
    for path in (
        f"/api/images/{big}",
        f"/api/shows/{big}",
        f"/admin/internal/brands/{big}",
    ):
        response = await (
            backend.signed("GET", path) if "internal" in path else backend.client.get(path)
        )
        assert_error(response, 404)
    heartbeat = await backend.signed("POST", f"{TASKS}/{big}/heartbeat", b'{"worker": "w"}')
    assert_error(heartbeat, 404)
    listed = await backend.client.get(f"/api/shows?before={big}")
    assert 400 <= listed.status_code < 500, listed.text
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize("big", [2**31, 2**62, 2**63])
async def test_large_image_ids_with_a_model_are_answered(
    any_dsn: str, tmp_path: Path, plugin_manager: RkPluginManager, big: int
) -> None:
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as backend:
        assert_error(await backend.client.get(f"/api/images/{big}/similar"), 404)
        vector = {"kind": "runway", "image_id": big, "vector": [0.5] * 16}
        failure = {"kind": "runway", "image_id": big, "error": "undecodable"}
        body = json.dumps({"items": [vector], "failures": [failure]}).encode()
        answer = await backend.signed("POST", EMBEDDINGS, body)
        if big > MAX_ID:
            assert_error(answer, 422, "image_id")
        else:
            assert answer.status_code == 200, answer.text
            assert answer.json()["saved"] == 0


@pytest.mark.postgres
async def test_a_database_outage_is_503_with_retry_after_and_one_log_line(
    start_backend: StartBackend, pg_dsn: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    backend = await start_backend(backend_settings(tmp_path, database=pg_dsn, workers=0))
    assert (await backend.client.get("/api/shows")).status_code == 200
    async with refusing_connections(pg_dsn) as name:
        with caplog.at_level(logging.INFO):
            answers = [await backend.client.get("/api/shows") for _ in range(5)]
            answers.append(await backend.ingest(msgspec.json.encode(show("s/1", [URL]))))
        for response in answers:
            message = assert_error(response, 503, "database unavailable")
            assert response.headers["retry-after"].isdigit()
            assert name not in message
    outage_lines = [r for r in caplog.records if "database unavailable" in r.getMessage()]
    assert len(outage_lines) == 1
    assert not [r for r in caplog.records if r.exc_info and r.name.startswith("rk")]


def png_bomb(side: int = 13000) -> bytes:
    """A small PNG whose header claims ``side``×``side`` RGBA pixels (676 MB decoded)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body).to_bytes(4, "big")
        return len(body).to_bytes(4, "big") + kind + body + crc

    header = struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (1 + 4 * side) * 64, 9)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


async def test_an_image_bomb_fails_alone_before_it_is_decoded(
    start_backend: StartBackend, images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    backend = await start_backend(backend_settings(tmp_path, database=any_dsn, allow=images.allow))
    bomb = images.add("/bomb.png", Answer(body=png_bomb(), content_type="image/png"))
    payload = show("ss25/bomb", [bomb, images.add("/fine.jpg", jpeg(5))])
    job = await backend.ingest_and_wait(payload)
    assert (job["status"], job["outcome"]) == ("done", "created")
    assert job["note"] == (
        "created, 1 image, 1 missing: look 1 (too many pixels (13000×13000; at most 40 Mpx))"
    )
    assert make_thumbnail(png_bomb(), 256) is None
