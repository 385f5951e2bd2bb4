"""Operations endpoints of a real backend: /healthz, /readyz (and what makes it 503), /metrics."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from rk.server.platform.db.tables import CrawlTask, IngestJob
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import add_brand, backend_settings, show
from tests.integration.server.images import ImageServer, jpeg
from tests.support.net import free_port
from tests.support.pg import refusing_connections

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    """Every sample of a Prometheus text exposition, keyed by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(found: Samples, name: str, **labels: str) -> float:
    return found[(name, frozenset(labels.items()))]


async def test_healthz_and_request_id(start_backend: StartBackend) -> None:
    backend = await start_backend()
    answer = await backend.client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}
    assert len(answer.headers["x-request-id"]) == 16
    traced = await backend.client.get("/healthz", headers={"X-Request-ID": "lb-7f3a.1"})
    assert traced.headers["x-request-id"] == "lb-7f3a.1"
    odd = await backend.client.get("/healthz", headers={"X-Request-ID": "no spaces <here>"})
    assert odd.headers["x-request-id"] != "no spaces <here>"


async def test_readyz_ok_on_each_engine(start_backend: StartBackend, any_dsn: str, tmp_path: Path):
    backend = await start_backend(backend_settings(tmp_path, database=any_dsn))
    answer = await backend.client.get("/readyz")
    assert answer.status_code == 200, answer.text
    assert answer.json()["checks"] == {"database": "ok", "migrations": "ok", "storage": "ok"}


async def test_readyz_names_a_missing_migration(start_backend: StartBackend) -> None:
    backend = await start_backend()
    [last] = await IngestJob.raw("SELECT MAX(id) AS id FROM rk_migrations")
    await IngestJob.raw("DELETE FROM rk_migrations WHERE id = {}", last["id"])
    answer = await backend.client.get("/readyz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["checks"]["migrations"].startswith("1 migrations not applied")
    assert last["id"] in body["error"]
    assert body["checks"]["storage"] == "ok"


async def test_readyz_names_unreachable_storage(start_backend: StartBackend, tmp_path: Path):
    closed = f"http://127.0.0.1:{free_port()}"
    storage = f"s3://bucket/p?endpoint={closed}&access_key_id=AK&secret_access_key=SECRETKEY99"
    backend = await start_backend(backend_settings(tmp_path, storage=storage))
    answer = await backend.client.get("/readyz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["storage"] != "ok"
    assert body["error"].startswith("not ready: storage: ")
    assert "SECRETKEY99" not in answer.text


@pytest.mark.postgres
async def test_readyz_names_an_unreachable_database(
    start_backend: StartBackend, pg_dsn: str, tmp_path: Path
) -> None:
    backend = await start_backend(backend_settings(tmp_path, database=pg_dsn))
    assert (await backend.client.get("/readyz")).status_code == 200
    async with refusing_connections(pg_dsn):
        answer = await backend.client.get("/readyz")
        assert answer.status_code == 503
        body = answer.json()
        assert body["checks"]["database"] != "ok"
        assert body["checks"]["migrations"] == "database unreachable"
        assert body["error"].startswith("not ready: database: ")


async def test_metrics_count_jobs_images_requests_and_spiders(
    start_backend: StartBackend, images: ImageServer, tmp_path: Path
) -> None:
    backend = await start_backend()
    brand = await add_brand("Maison Aurele")
    first, second = jpeg(1), jpeg(2)
    urls = [images.add("/1.jpg", first), images.add("/2.jpg", second), images.url("/gone.jpg")]
    job = await backend.ingest_and_wait(show("s/1", urls, brand=brand))
    assert job["outcome"] == "created"
    await CrawlTask.insert(CrawlTask(brand_id=1, status="queued"))
    await CrawlTask.insert(CrawlTask(brand_id=1, status="running", worker="spider-a", locked_at=0))
    claimed = CrawlTask(brand_id=1, status="running", worker="spider-b", locked_at=int(2e9))
    await CrawlTask.insert(claimed)

    answer = await backend.client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    found = samples(answer.text)
    assert value(found, "rk_jobs_finished_total", kind="crawl", outcome="created") == 1
    assert value(found, "rk_job_duration_seconds_count", kind="crawl") == 1
    assert value(found, "rk_job_duration_seconds_bucket", kind="crawl", le="+Inf") == 1
    assert value(found, "rk_images_stored") == 2
    assert value(found, "rk_image_bytes_stored") == len(first) + len(second)
    assert value(found, "rk_crawl_tasks", status="queued") == 1
    assert value(found, "rk_crawl_tasks", status="running") == 2
    assert value(found, "rk_queue_depth", queue="crawl_tasks", status="queued") == 1
    assert value(found, "rk_spiders_seen") == 1
    assert value(found, "rk_neighbours_lag_seconds") == 0
    ingest = {"route": "/admin/internal/ingest", "method": "POST", "status": "202"}
    assert value(found, "rk_http_request_duration_seconds_count", **ingest) == 1
    assert ("rk_embeddings_pending", frozenset()) not in found  # no model: nothing to count


async def test_queue_depth_counts_waiting_jobs(start_backend: StartBackend) -> None:
    backend = await start_backend(workers=0)
    for n in range(3):
        await backend.submit(show(f"s/{n}", ["http://127.0.0.1:9/none.jpg"]))
    found = samples((await backend.client.get("/metrics")).text)
    assert value(found, "rk_queue_depth", queue="ingest", status="pending") == 3


@pytest.mark.postgres
async def test_two_backends_report_the_same_archive(
    start_backend: StartBackend, images: ImageServer, pg_dsn: str, tmp_path: Path
) -> None:
    """Archive figures come from the shared database; request latency stays per process."""
    one = await start_backend(
        backend_settings(tmp_path / "one", database=pg_dsn, allow=images.allow)
    )
    two = await start_backend(backend_settings(tmp_path / "two", database=pg_dsn, workers=0))
    for n in range(2):
        await one.ingest_and_wait(show(f"s/{n}", [images.add(f"/{n}.jpg", jpeg(n + 3))]))
    texts = await asyncio.gather(one.client.get("/metrics"), two.client.get("/metrics"))
    a, b = (samples(t.text) for t in texts)
    for name in ("rk_images_stored", "rk_image_bytes_stored"):
        assert value(a, name) == value(b, name) > 0
    labels = {"kind": "crawl", "outcome": "created"}
    assert value(a, "rk_jobs_finished_total", **labels) == 2
    assert value(b, "rk_jobs_finished_total", **labels) == 2
    posted = {"route": "/admin/internal/ingest", "method": "POST", "status": "202"}
    assert value(a, "rk_http_request_duration_seconds_count", **posted) == 2
    assert ("rk_http_request_duration_seconds_count", frozenset(posted.items())) not in b


async def test_census_follows_the_archive(start_backend: StartBackend, images: ImageServer) -> None:
    """The image census is re-read within its time budget: a new image shows up."""
    backend = await start_backend()
    before = samples((await backend.client.get("/metrics")).text)
    assert value(before, "rk_images_stored") == 0
    assert value(before, "rk_archive_census_age_seconds") >= 0
    await backend.ingest_and_wait(show("s/1", [images.add("/1.jpg", jpeg(1))]))
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        after = samples((await backend.client.get("/metrics")).text)
        if value(after, "rk_images_stored") == 1:
            break
        assert asyncio.get_running_loop().time() < deadline, "census never re-read"
        await asyncio.sleep(0.1)
