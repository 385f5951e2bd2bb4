"""Paths with control characters, sent raw to a real ``rk serve-backend``: a JSON 404 before
any handler (never a 500), and the log line that records them cannot be forged (issue 27 row 12).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rk.server.platform.http.control_paths import MESSAGE
from tests.integration.server.test_slow_clients import answer_of, backend, head
from tests.integration.spider.procs import Backend

FORGED = "2026-01-01 00:00:00,000 INFO rk.server: FAKE"
CONTROL_PATHS = [
    "/static/a%00b",
    "/static/%0a" + FORGED.replace(" ", "%20"),
    "/%7f",
    "/brands/x%0d",
    "/brands/x%c2%85",
    "/api/search/%09",
    "/admin/internal/ingest%00",
]


async def get(site: Backend, path: str) -> tuple[int, dict[str, str], bytes]:
    """One raw GET of ``path`` exactly as written (no client-side normalising)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
    writer.write(head("GET", path, {"Connection": "close"}))
    await writer.drain()
    try:
        return await answer_of(reader)
    finally:
        writer.close()


async def test_control_characters_in_a_path_are_a_json_404(tmp_path: Path, sqlite_dsn: str) -> None:
    site = backend(tmp_path, sqlite_dsn)
    try:
        for path in CONTROL_PATHS:
            status, headers, body = await get(site, path)
            assert (status, json.loads(body)) == (404, {"error": MESSAGE}), path
            assert headers["content-type"] == "application/json"
            assert headers["x-content-type-options"] == "nosniff"
        await site.wait_for(r"GET /admin/internal/ingest\\x00 -> 404")
    finally:
        site.stop()
    log = site.log()
    assert "\nFAKE" not in log
    assert not any(line.startswith(FORGED) for line in log.splitlines())
    assert f"GET /static/\\n{FORGED} -> 404" in log
    assert "GET /static/a\\x00b -> 404" in log
    assert "-> 500" not in log
    assert "Traceback" not in log


async def test_other_odd_static_names_are_404_and_assets_still_served(
    tmp_path: Path, sqlite_dsn: str
) -> None:
    site = backend(tmp_path, sqlite_dsn)
    try:
        for path in ("/static/" + "a" * 300, "/static/" + "a/" * 3000, "/static/..%2frk.css"):
            status, _, body = await get(site, path)
            assert status == 404, (path[:40], body)
            assert "error" in json.loads(body)
        status, _, body = await get(site, "/brands/caf%C3%A9")
        assert status == 404
        assert json.loads(body)["error"] != MESSAGE
        status, headers, _ = await get(site, "/static/rk.css")
        assert status == 200
        assert headers["content-type"].startswith("text/css")
    finally:
        site.stop()
    assert "-> 500" not in site.log()
