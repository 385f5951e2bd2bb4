"""The spider-less run on PostgreSQL + S3 (moto's server): upload-url, ingest, article, objects."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rk.core.api.wire import ImageRef
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import (
    UPLOAD_URL,
    add_brand,
    article_of,
    backend_settings,
    images_of,
    show,
)
from tests.integration.server.images import ImageServer, jpeg
from tests.integration.storage.helpers import new_bucket, run_moto, s3_url

pytestmark = pytest.mark.postgres


@pytest.fixture
def moto_endpoint() -> Iterator[str]:
    with run_moto() as endpoint:
        yield endpoint


async def test_end_to_end_on_postgresql_and_s3(
    start_backend: StartBackend,
    images: ImageServer,
    pg_dsn: str,
    moto_endpoint: str,
    tmp_path: Path,
) -> None:
    storage = s3_url(moto_endpoint, new_bucket(moto_endpoint))
    settings = backend_settings(
        tmp_path, database=pg_dsn, storage=storage, workers=2, allow=images.allow
    )
    backend = await start_backend(settings)
    brand = await add_brand("Maison Aurele")

    uploaded = jpeg(1)
    digest = hashlib.sha1(uploaded).hexdigest()
    key = f"runway/{digest}.jpg"
    body = json.dumps({"key": key, "size": len(uploaded), "sha1": digest}).encode()
    grant = await backend.signed("POST", UPLOAD_URL, body)
    assert grant.status_code == 200, grant.text
    presigned = grant.json()
    assert presigned["url"].startswith(moto_endpoint)
    put = await backend.client.put(presigned["url"], content=uploaded, headers=presigned["headers"])
    assert put.status_code == 200, put.text

    downloaded = [jpeg(n) for n in range(2, 6)]
    refs = [ImageRef(url=images.url("/up.jpg"), key=key, size=len(uploaded), sha1=digest)]
    refs += [ImageRef(url=images.add(f"/{n}.jpg", d)) for n, d in enumerate(downloaded)]
    refs.append(ImageRef(url=images.url("/missing.jpg")))
    payload = show("ss25/production", refs, brand=brand)
    job = await backend.ingest_and_wait(payload)
    assert job["outcome"] == "created"
    assert job["note"] == "created, 5 images, 1 missing: look 6 (HTTP 404)"
    assert job["brand_id"] > 0

    article = await article_of(payload)
    assert article["status"] == "pending"
    assert article["brand_id"] == job["brand_id"]
    rows = await images_of(article["id"])
    assert len(rows) == 5
    for row, data in zip(rows, [uploaded, *downloaded], strict=True):
        assert await backend.storage.get(row["key"]) == data
        assert await backend.storage.head(row["thumb_key"]) is not None
    assert rows[0]["uploaded_by_spider"] == 1
    assert "/up.jpg" not in images.hits

    again = await backend.ingest_and_wait(payload)
    assert again["outcome"] == "skipped_existing"
