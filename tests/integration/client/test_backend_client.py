"""BackendClient against a signature-verifying stand-in backend over real sockets."""

from __future__ import annotations

import logging

import httpx
import msgspec
import pytest

from rk.core.api.keys import sha1_hex
from rk.core.api.signing import signed_headers
from rk.core.api.wire import (
    BrandInfo,
    BrandRef,
    CrawlResult,
    CrawlTask,
    EmbeddingFailure,
    EmbeddingSubmit,
    EmbeddingVector,
    ImageRef,
    Look,
    ShowIngest,
    UploadUrlRequest,
)
from rk.core.runtime.client import (
    BackendAuthError,
    BackendClient,
    BackendProtocolError,
    BackendRejected,
    BackendUnavailable,
    TaskLost,
    retry_backend,
)
from tests.support.net import free_port

from .conftest import SECRET, StandInBackend

SHOW = ShowIngest(
    source="vogue",
    kind="runway",
    show_key="spring-2025-ready-to-wear/maison-aurele",
    title="Maison Aurèle Spring 2025",
    brand=BrandRef(uid="b1", name="Maison Aurèle"),
    looks=[Look(number=1, image=ImageRef(url="https://img.example/1.jpg"))],
)
TASK = CrawlTask(
    id=5, brand_id=3, brand_uid="b1", brand_name="Maison Aurèle", max_shows=3, source="vogue"
)


def test_endpoints_are_derived_from_the_ingest_url() -> None:
    client = BackendClient("https://rk.example/x/admin/internal/ingest", SECRET)
    assert client.base == "https://rk.example/x/admin/internal/"
    assert str(client.url("upload-url")) == "https://rk.example/x/admin/internal/upload-url"
    assert str(client.url("crawl/tasks/7/heartbeat")).endswith(
        "/admin/internal/crawl/tasks/7/heartbeat"
    )
    pending = client.url("embeddings/pending", {"kind": "clip", "limit": 2})
    assert pending.raw_path == b"/x/admin/internal/embeddings/pending?kind=clip&limit=2"


async def test_ingest_is_signed_and_accepted(backend: StandInBackend) -> None:
    async with BackendClient(backend.endpoint, SECRET) as client:
        accepted = await client.ingest(SHOW)
    assert accepted.job_id == 1
    assert backend.shows == [SHOW]


async def test_query_string_is_part_of_the_signature(backend: StandInBackend) -> None:
    async with BackendClient(backend.endpoint, SECRET) as client:
        pending = await client.pending_embeddings("clip", 2)
    assert [i.image_id for i in pending.items] == [1, 2]
    assert pending.remaining == 3
    assert backend.seen[-1].target == "/admin/internal/embeddings/pending?kind=clip&limit=2"
    # Headers signed for one query do not pass for another.
    path = "/admin/internal/embeddings/pending"
    headers = signed_headers(SECRET, "GET", f"{path}?kind=clip&limit=2", b"")
    async with httpx.AsyncClient() as raw:
        tampered = await raw.get(
            f"http://127.0.0.1:{backend.port}{path}?kind=clip&limit=500", headers=headers
        )
    assert tampered.status_code == 401


async def test_claim_heartbeat_report(backend: StandInBackend) -> None:
    backend.tasks.append(TASK)
    async with BackendClient(backend.endpoint, SECRET) as client:
        assert await client.claim("w1", "theimpression") is None
        task = await client.claim("w1", "vogue")
        assert task == TASK
        assert await client.claim("w1", "vogue") is None
        await client.heartbeat(5, "w1")
        await client.report(5, CrawlResult(worker="w1", status="done", shows_submitted=2))
    assert backend.results[5].shows_submitted == 2


async def test_lost_task_is_409(backend: StandInBackend) -> None:
    backend.held[5] = "someone-else"
    async with BackendClient(backend.endpoint, SECRET) as client:
        with pytest.raises(TaskLost, match="task 5 is not held by w1"):
            await client.heartbeat(5, "w1")
        with pytest.raises(TaskLost):
            await client.report(5, CrawlResult(worker="w1", status="failed", error="x"))


async def test_wrong_secret_is_an_auth_error(backend: StandInBackend) -> None:
    async with BackendClient(backend.endpoint, "not-the-secret") as client:
        with pytest.raises(BackendAuthError) as caught:
            await client.ingest(SHOW)
    message = str(caught.value)
    assert message.startswith("backend rejected the signature: ingest.secret differs")
    assert "signature does not match" in message
    assert backend.shows == []


async def test_invalid_body_is_rejected_with_the_servers_line(backend: StandInBackend) -> None:
    bad = msgspec.structs.replace(SHOW, source="Not A Source!")
    async with BackendClient(backend.endpoint, SECRET) as client:
        with pytest.raises(BackendRejected) as caught:
            await client.ingest(bad)
    assert caught.value.status == 422
    assert "$.source" in caught.value.error
    assert "\n" not in str(caught.value)


async def test_brand_lookup_and_404(backend: StandInBackend) -> None:
    backend.brands[3] = BrandInfo(id=3, uid="b1", name="Maison Aurèle", slugs={"vogue": "ma"})
    async with BackendClient(backend.endpoint, SECRET) as client:
        assert (await client.brand(3)).slugs == {"vogue": "ma"}
        with pytest.raises(BackendRejected, match=r"HTTP 404\): brand 9 does not exist"):
            await client.brand(9)


async def test_5xx_is_unavailable(backend: StandInBackend) -> None:
    backend.force("ingest", (500, b"Internal Server Error"))
    async with BackendClient(backend.endpoint, SECRET) as client:
        with pytest.raises(BackendUnavailable, match="HTTP 500: Internal Server Error"):
            await client.ingest(SHOW)


async def test_unreadable_answer_is_a_protocol_error(backend: StandInBackend) -> None:
    backend.force("brands/3", (200, b"<html>login</html>"))
    async with BackendClient(backend.endpoint, SECRET) as client:
        with pytest.raises(BackendProtocolError, match="not a BrandInfo"):
            await client.brand(3)


async def test_connection_refused_is_unavailable() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/admin/internal/ingest"
    async with BackendClient(endpoint, SECRET) as client:
        with pytest.raises(BackendUnavailable, match="backend unreachable .*ConnectError"):
            await client.claim("w1", "vogue")


async def test_upload_url_then_put(backend: StandInBackend) -> None:
    data = b"\xff\xd8 jpeg bytes"
    key = f"runway/{sha1_hex(data)}.jpg"
    request = UploadUrlRequest(key=key, size=len(data), sha1=sha1_hex(data))
    async with BackendClient(backend.endpoint, SECRET) as client:
        upload = await client.upload_url(request)
        assert not upload.exists
        await client.put_object(upload, data)
        assert (await client.upload_url(request)).exists
    assert backend.objects == {key: data}
    puts = [seen for seen in backend.seen if seen.method == "PUT"]
    assert [seen.target.split("?")[0] for seen in puts] == [f"/put/{key}"]


async def test_put_failures_are_mapped(backend: StandInBackend) -> None:
    data = b"bytes"
    request = UploadUrlRequest(key=f"runway/{sha1_hex(data)}.jpg", size=5, sha1=sha1_hex(data))
    backend.failing_puts.add(request.key)
    async with BackendClient(backend.endpoint, SECRET) as client:
        upload = await client.upload_url(request)
        with pytest.raises(BackendUnavailable, match="HTTP 503"):
            await client.put_object(upload, data)
        backend.failing_puts.clear()
        with pytest.raises(BackendRejected, match="does not match the signed size and sha1"):
            await client.put_object(upload, b"other")
    assert backend.objects == {}


async def test_submit_embeddings(backend: StandInBackend) -> None:
    submit = EmbeddingSubmit(
        items=[EmbeddingVector(kind="clip", image_id=1, vector=[0.5, 0.5])],
        failures=[EmbeddingFailure(kind="clip", image_id=2, error="undecodable")],
    )
    async with BackendClient(backend.endpoint, SECRET) as client:
        answer = await client.submit_embeddings(submit)
    assert (answer.saved, answer.failed) == (1, 1)


async def test_retry_backend_waits_out_an_outage_logging_once(
    backend: StandInBackend, caplog: pytest.LogCaptureFixture
) -> None:
    backend.tasks.append(TASK)
    backend.force("crawl/tasks", *[(503, b"restarting")] * 3)
    caplog.set_level(logging.INFO, logger="rk.core.runtime.client")
    async with BackendClient(backend.endpoint, SECRET) as client:
        task = await retry_backend(lambda: client.claim("w1", "vogue"), what="claim", base_s=0.01)
    assert task == TASK
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "claim: backend error at POST crawl/tasks: HTTP 503: restarting" in warnings[0].message
    assert "claim: backend reachable again after 3 retries" in caplog.text


async def test_retry_backend_logs_again_after_the_interval(
    backend: StandInBackend, caplog: pytest.LogCaptureFixture
) -> None:
    backend.force("crawl/tasks", *[(502, b"bad gateway")] * 3)
    async with BackendClient(backend.endpoint, SECRET) as client:
        await retry_backend(lambda: client.claim("w1", "vogue"), base_s=0.01, log_every_s=0)
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 3


async def test_retry_backend_does_not_retry_other_errors(backend: StandInBackend) -> None:
    async with BackendClient(backend.endpoint, "wrong") as client:
        with pytest.raises(BackendAuthError):
            await retry_backend(lambda: client.claim("w1", "vogue"), base_s=0.01)
    assert len(backend.seen) == 1
