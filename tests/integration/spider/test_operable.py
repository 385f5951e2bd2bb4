"""An operator's view of a production-shaped crawl: metrics, JSON logs, and no secret leaked.

Real processes: ``rk serve-backend`` on PostgreSQL (DSN with a password; the test server
trusts 127.0.0.1, so any password connects) and S3 (moto's server, with a secret key),
``rk spider serve --plugin vogue`` uploading through presigned URLs with its metrics port
open, both at debug level so they log as much as they ever do. Then every line of their
logs is scanned for the secrets the test gave them.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import yaml

from tests.integration.server.test_operations import samples, value
from tests.integration.spider import archive
from tests.integration.spider.conftest import E2E, SECRET, _world
from tests.integration.spider.photos import PhotoSite
from tests.integration.spider.procs import Backend, eventually, spider, spider_config
from tests.integration.storage.helpers import new_bucket, run_moto
from tests.support.net import free_port

DB_PASSWORD = "pg-Pa55word-e2e"
S3_SECRET = "s3-secret-key-e2e-0123"
LEAKS = {
    "presigned signature": re.compile(r"(?i)x-amz-signature=(?!\*\*\*)"),
    "rk upload signature": re.compile(r"[?&]sig=(?!\*\*\*)"),
    "URL password": re.compile(r"://[^:/@\s\"]+:(?!\*\*\*)[^@\s\"]+@"),
}


@pytest.fixture
def moto_endpoint() -> Iterator[str]:
    with run_moto() as endpoint:
        yield endpoint


@pytest.fixture
async def e2e_pg(tmp_path: Path, pg_dsn: str, site: PhotoSite) -> AsyncIterator[E2E]:
    """The spider end-to-end world on PostgreSQL."""
    async for world in _world(tmp_path, pg_dsn, site):
        yield world


def leaks(text: str) -> list[str]:
    """What in ``text`` is a secret or looks like an unmasked credential."""
    found = [name for name in (SECRET, DB_PASSWORD, S3_SECRET) if name in text]
    return found + [what for what, pattern in LEAKS.items() if pattern.search(text)]


def with_password(dsn: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(netloc=f"{parts.username}:{DB_PASSWORD}@{parts.hostname}"))


@pytest.mark.postgres
async def test_metrics_json_logs_and_no_secret_in_any_log(
    e2e_pg: E2E, moto_endpoint: str, tmp_path: Path
) -> None:
    e2e = e2e_pg
    bucket = new_bucket(moto_endpoint)
    storage = (
        f"s3://{bucket}/media?endpoint={moto_endpoint}&region=us-east-1"
        f"&access_key_id=AKIDTEST&secret_access_key={S3_SECRET}"
    )
    backend = Backend(
        tmp_path / "backend", with_password(e2e.dsn), e2e.allow, ingest={"secret": SECRET}
    )
    config = yaml.safe_load(backend.config.read_text())
    backend.config.write_text(yaml.safe_dump({**config, "storage": storage}))
    backend.args = ["-v", "--log-json", *backend.args]
    e2e.procs.append(backend.start())
    _, task_id = await e2e.queue("Halden & Co.", max_shows=2)

    metrics_port = free_port()
    config_path = spider_config(tmp_path, "spider", backend.endpoint, SECRET, e2e.site.base_url)
    proc = spider(tmp_path, "spider", config_path, "-w", "1", "-i", "1")
    proc.args = ["-v", *proc.args, "--metrics-port", str(metrics_port)]
    e2e.procs.append(proc.start())

    async def done() -> dict | None:
        row = await archive.task(task_id)
        return row if row["status"] == "done" else None

    task = await eventually(done, "the crawl task done")
    await eventually(archive.jobs_done, "every ingest job finished")
    await proc.wait_for(f"task {task_id} done: ")

    async with httpx.AsyncClient() as client:
        scraped = await client.get(f"http://127.0.0.1:{metrics_port}/metrics")
        found = samples(scraped.text)
        assert value(found, "rk_spider_shows_total", outcome="submitted") == task["shows_submitted"]
        assert value(found, "rk_spider_images_total", outcome="uploaded") > 0
        assert value(found, "rk_spider_bytes_total") > 0
        backend_metrics = samples((await client.get(f"{backend.url}/metrics")).text)
    assert value(backend_metrics, "rk_images_stored") > 0
    assert value(backend_metrics, "rk_crawl_tasks", status="done") == 1

    e2e.stop()
    backend_lines = backend.log().splitlines()
    records = [json.loads(line) for line in backend_lines if line.startswith("{")]
    assert any(r["msg"].startswith("database: ") for r in records)
    served = [r for r in records if r["logger"] == "rk.server.request"]
    assert served
    assert all(re.fullmatch(r"[0-9a-f]{16}", r["request_id"]) for r in served)
    for log in (backend.log(), proc.log()):
        assert log.strip()
        assert leaks(log) == []


def test_leak_scanner_finds_what_it_looks_for() -> None:
    assert leaks(f"connect postgresql://rk:{DB_PASSWORD}@db/rk") == [DB_PASSWORD, "URL password"]
    assert leaks("PUT http://s3/b/k?X-Amz-Signature=abc") == ["presigned signature"]
    assert leaks("PUT /media/upload/k?size=1&sig=abc") == ["rk upload signature"]
    assert leaks("postgresql://rk:***@db/rk ?X-Amz-Signature=*** &sig=***") == []
