"""Ingest gives every stored image its rendition ladder, and ``/media`` serves a rung only
while its original is published (issue 29), on SQLite and PostgreSQL.

The ladder is made from the original's bytes when the image is stored: downloaded by the
backend, or uploaded by a spider (then read back from storage). A photo the archive holds
already keeps the ladder it has; a job that fails deletes the rungs it wrote with the rest
of what it wrote.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from PIL import Image as PILImage

from rk.core.api.keys import rendition_key
from rk.core.api.wire import ImageRef
from rk.server.media import recorded_ladder
from tests.integration.public.archive import set_status
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, backend_settings, images_of, show
from tests.integration.server.images import Answer, ImageServer, jpeg
from tests.integration.server.test_uploaded_thumbnails import upload

RUNWAY = (1280, 1920)
RUNGS = {360: 540, 560: 840, 640: 960, 800: 1200, 1200: 1800}
"""The ladder of a 1280×1920 original: every rung narrower than it, height in proportion."""


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


async def test_ingest_stores_the_ladder_and_media_serves_it_once_published(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    big, small = jpeg(1, RUNWAY), jpeg(2, (320, 480))
    payload = show("ss25/ladder", [images.add("/big.jpg", big), images.add("/small.jpg", small)])
    job = await backend.ingest_and_wait(payload)
    assert job["outcome"] == "created", job
    article = await article_of(payload)
    assert article is not None
    rows = await images_of(article["id"])
    assert [await recorded_ladder(row["key"]) for row in rows] == ["360,560,640,800,1200", ""]
    for width, height in RUNGS.items():
        stored = await backend.storage.get(rendition_key(width, sha1(big)))
        with PILImage.open(io.BytesIO(stored)) as rung:
            assert (rung.format, rung.size) == ("WEBP", (width, height))
    assert await backend.storage.head(rendition_key(1600, sha1(big))) is None
    assert await backend.storage.head(rendition_key(360, sha1(small))) is None

    url = f"/media/{rendition_key(360, sha1(big))}"
    pending = await backend.client.get(url)
    assert pending.status_code == 404
    assert pending.json() == {"error": f"no media at {rendition_key(360, sha1(big))}"}
    await set_status(article["id"], "published")
    served = await backend.client.get(url)
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/webp"
    assert served.headers["etag"] == f'"360/{sha1(big)}.webp"'
    again = await backend.client.get(url, headers={"If-None-Match": served.headers["etag"]})
    assert again.status_code == 304
    other = await backend.client.get(f"/media/{rendition_key(560, sha1(big))}")
    assert other.headers["etag"] == f'"560/{sha1(big)}.webp"'
    await set_status(article["id"], "rejected")
    assert (await backend.client.get(url)).status_code == 404


async def test_a_known_photo_keeps_its_ladder_and_an_upload_gets_one(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    photo, uploaded = jpeg(3, RUNWAY), jpeg(4, (600, 900))
    first = show("ss25/first", [images.add("/photo.jpg", photo)])
    assert (await backend.ingest_and_wait(first))["outcome"] == "created"
    key = rendition_key(1200, sha1(photo))
    made = await backend.storage.head(key)
    assert made is not None

    uploaded_key = f"runway/{sha1(uploaded)}.jpg"
    await upload(backend, uploaded_key, uploaded)
    refs = [
        ImageRef(url=images.add("/again.jpg", photo)),
        ImageRef(url=images.url("/u.jpg"), key=uploaded_key, size=len(uploaded)),
    ]
    second = show("ss25/second", refs)
    job = await backend.ingest_and_wait(second)
    assert job["outcome"] == "created", job
    article = await article_of(second)
    assert article is not None
    rows = await images_of(article["id"])
    ladders = [await recorded_ladder(row["key"]) for row in rows]
    assert ladders == ["360,560,640,800,1200", "360,560"]
    assert await backend.storage.head(key) == made
    with PILImage.open(
        io.BytesIO(await backend.storage.get(rendition_key(560, sha1(uploaded))))
    ) as rung:
        assert rung.size == (560, 840)


async def test_a_failed_attempt_deletes_the_rungs_it_wrote(
    start_backend: StartBackend, images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    settings = backend_settings(
        tmp_path, database=any_dsn, backoff_s=600, max_attempts=2, allow=images.allow
    )
    backend = await start_backend(settings)
    photo = jpeg(5, RUNWAY)
    payload = show(
        "ss25/rollback",
        [images.add("/ok.jpg", photo), images.add("/down.jpg", Answer(status=503, body=b"x"))],
    )
    job_id = await backend.submit(payload)
    failed = await backend.wait_attempt(job_id, 1)
    assert failed["last_error"].startswith("1 of 2 images failed: look 2 (HTTP 503)")
    for key in [f"runway/{sha1(photo)}.jpg", *(rendition_key(w, sha1(photo)) for w in RUNGS)]:
        assert await backend.storage.head(key) is None, key
