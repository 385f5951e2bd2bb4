"""The signed crawl-task API of a real backend process: what spiders send, what they get.

The happy path goes through ``BackendClient`` (exactly what ``rk spider serve`` sends);
refusals are checked on the raw HTTP answer: a one-line JSON error and the right 4xx.
"""

from __future__ import annotations

import asyncio

import httpx
import msgspec
import pytest

from rk.core.api.signing import signed_headers
from rk.core.api.wire import CrawlResult
from rk.core.runtime.client import BackendClient, TaskLost
from rk.server.platform.db.tables import Brand
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E, SECRET
from tests.integration.spider.procs import LEASE_S, Backend

TASKS = "/admin/internal/crawl/tasks"


async def signed(backend: Backend, path: str, body: bytes, secret: str = SECRET) -> httpx.Response:
    headers = signed_headers(secret, "POST", path, body)
    headers["Content-Type"] = "application/json"
    async with httpx.AsyncClient(base_url=backend.url, timeout=10) as http:
        return await http.post(path, content=body, headers=headers)


def one_line_error(response: httpx.Response) -> str:
    body = response.json()
    assert set(body) == {"error"}
    assert "\n" not in body["error"]
    return body["error"]


async def test_claim_heartbeat_result_through_the_client(e2e_sqlite: E2E) -> None:
    backend = e2e_sqlite.backend()
    empty = await signed(backend, TASKS, b'{"worker": "w-1", "source": "vogue"}')
    assert (empty.status_code, empty.content) == (204, b"")
    async with BackendClient(backend.endpoint, SECRET) as client:
        assert await client.claim("w-1", "vogue") is None
        brand_id, task_id = await e2e_sqlite.queue("Kestrel & Vine", max_shows=2)
        await Brand.update({Brand.slugs: '{"vogue": "kestrel-vine"}'}).where(Brand.id == brand_id)
        assert await client.claim("w-1", "theimpression") is None

        task = await client.claim("w-1", "vogue")
        assert task is not None
        brand = await client.brand(brand_id)
        assert (task.id, task.brand_id, task.brand_uid, task.brand_name) == (
            task_id,
            brand_id,
            brand.uid,
            "Kestrel & Vine",
        )
        assert (task.max_shows, task.source, task.slug) == (2, "vogue", "kestrel-vine")
        assert task.lease_s == LEASE_S
        assert await client.claim("w-2", "vogue") is None

        await client.heartbeat(task_id, "w-1")
        with pytest.raises(TaskLost):
            await client.heartbeat(task_id, "w-2")
        with pytest.raises(TaskLost):
            await client.report(task_id, CrawlResult(worker="w-2", status="done"))
        await client.report(task_id, CrawlResult(worker="w-1", status="done", shows_submitted=2))
    row = await archive.task(task_id)
    assert (row["status"], row["shows_submitted"], row["worker"]) == ("done", 2, "w-1")


async def test_a_stale_result_after_the_lease_was_reclaimed_is_409_and_changes_nothing(
    e2e_sqlite: E2E,
) -> None:
    backend = e2e_sqlite.backend()
    _, task_id = await e2e_sqlite.queue("Halden & Co.")
    async with BackendClient(backend.endpoint, SECRET) as client:
        assert await client.claim("slow", "vogue") is not None
        await asyncio.sleep(LEASE_S + 1.1)
        again = await client.claim("fast", "vogue")
        assert again is not None
        assert again.id == task_id
    before = await archive.task(task_id)
    stale = msgspec.json.encode(CrawlResult(worker="slow", status="done", shows_submitted=9))
    response = await signed(backend, f"{TASKS}/{task_id}/result", stale)
    assert response.status_code == 409
    assert "not held by slow" in one_line_error(response)
    assert await archive.task(task_id) == before
    assert (before["status"], before["worker"], before["attempts"]) == ("running", "fast", 2)


BAD = [
    (TASKS, b'{"worker": "w", "source": "vogue", "extra": 1}', 422, "unknown field"),
    (TASKS, b'{"worker": "w"', 400, "not valid JSON"),
    (TASKS, b'{"worker": "", "source": "vogue"}', 422, "worker"),
    (TASKS, b'{"worker": "w", "source": "Not A Source"}', 422, "source"),
    (f"{TASKS}/1/result", b'{"worker": "w", "status": "maybe"}', 422, "status"),
    (f"{TASKS}/1/result", b'{"worker": "w", "status": "done", "shows_submitted": -1}', 422, ""),
    (f"{TASKS}/987/result", b'{"worker": "w", "status": "done"}', 404, "does not exist"),
    (f"{TASKS}/987/heartbeat", b'{"worker": "w"}', 404, "does not exist"),
    (f"{TASKS}/0/heartbeat", b'{"worker": "w"}', 404, ""),
    (f"{TASKS}/abc/heartbeat", b'{"worker": "w"}', 404, ""),
]


async def test_bad_requests_are_one_line_json_4xx_and_change_nothing(e2e_sqlite: E2E) -> None:
    backend = e2e_sqlite.backend()
    await e2e_sqlite.queue("Halden & Co.")
    for path, body, status, message in BAD:
        response = await signed(backend, path, body)
        assert response.status_code == status, (path, body, response.text)
        assert message in one_line_error(response), (path, body)
    claim = b'{"worker": "w", "source": "vogue"}'
    response = await signed(backend, TASKS, claim, secret="wrong")
    assert response.status_code == 401
    assert "signature" in one_line_error(response)
    async with httpx.AsyncClient(base_url=backend.url) as http:
        assert (await http.post(TASKS, content=claim)).status_code == 401
    [row] = await archive.all_tasks()
    assert (row["status"], row["attempts"]) == ("queued", 0)
