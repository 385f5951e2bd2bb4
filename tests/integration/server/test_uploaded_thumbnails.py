"""Spider-uploaded thumbnails are verified before they are referenced; sizes never left at 0.

A thumbnail key does not name its own bytes: whatever an upload put there must decode as
the original's thumbnail before an image row points at it (issue 9 §3). An image whose
thumbnail existed already still gets its width and height (public-site leftover).
"""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from PIL import Image as PILImage

from rk.core.api.wire import ImageRef
from rk.core.runtime.thumbs import make_thumbnail
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import UPLOAD_URL, Backend, article_of, images_of, show
from tests.integration.server.images import jpeg


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


async def upload(backend: Backend, key: str, data: bytes, thumb_of: str | None = None) -> None:
    """Upload like a spider: upload-url, then PUT."""
    request = {"key": key, "size": len(data), "sha1": sha1(data)}
    if thumb_of:
        request["thumb_of"] = thumb_of
    grant = (await backend.signed("POST", UPLOAD_URL, json.dumps(request).encode())).json()
    assert grant["exists"] is False
    put = await backend.client.put(grant["url"], content=data, headers=grant["headers"])
    assert put.status_code == 201, put.text


def small_jpeg(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", size, (9, 9, 9)).save(out, "JPEG")
    return out.getvalue()


@pytest.mark.parametrize(
    "bad",
    [b"<html><script>alert(1)</script></html>", small_jpeg((100, 100)), b"\xff\xd8\xff\xe0"],
    ids=["html", "wrong-size", "truncated"],
)
async def test_a_bad_uploaded_thumbnail_is_replaced_before_use(
    start_backend: StartBackend, bad: bytes
) -> None:
    backend = await start_backend()
    original = jpeg(90, (600, 900))
    key, thumb = f"runway/{sha1(original)}.jpg", f"thumb/{sha1(original)}.jpg"
    await upload(backend, key, original)
    await upload(backend, thumb, bad, thumb_of=sha1(original))
    ref = ImageRef(url="http://example.invalid/x.jpg", key=key, size=len(original))
    payload = show(f"ss25/bad-thumb-{sha1(bad)[:6]}", [ref])
    job = await backend.ingest_and_wait(payload)
    assert job["outcome"] == "created", job
    row = (await images_of((await article_of(payload))["id"]))[0]
    assert (row["thumb_key"], row["width"], row["height"]) == (thumb, 600, 900)
    stored = await backend.storage.get(thumb)
    assert stored != bad
    served = await backend.client.get(await backend.storage.url_for(thumb, 60))
    assert served.headers["content-type"] == "image/jpeg"
    assert PILImage.open(io.BytesIO(served.content)).size == (256, 384)


async def test_a_good_uploaded_thumbnail_is_kept_and_sizes_come_from_the_original(
    start_backend: StartBackend,
) -> None:
    backend = await start_backend()
    original = jpeg(91, (1000, 600))
    key, thumb = f"runway/{sha1(original)}.jpg", f"thumb/{sha1(original)}.jpg"
    good = make_thumbnail(original, 256)
    assert good is not None
    await upload(backend, key, original)
    await upload(backend, thumb, good, thumb_of=sha1(original))
    refs = [ImageRef(url="http://example.invalid/x.jpg", key=key, size=len(original))]
    first, second = show("ss25/good-1", refs), show("ss25/good-2", refs)
    for payload in (first, second):
        job = await backend.ingest_and_wait(payload)
        assert job["outcome"] == "created", job
        row = (await images_of((await article_of(payload))["id"]))[0]
        assert (row["thumb_key"], row["width"], row["height"]) == (thumb, 1000, 600)
    assert await backend.storage.get(thumb) == good


async def test_upload_url_for_an_existing_thumbnail_says_exists(
    start_backend: StartBackend,
) -> None:
    backend = await start_backend()
    original = jpeg(92)
    thumb = f"thumb/{sha1(original)}.jpg"
    good = make_thumbnail(original, 256)
    assert good is not None
    await upload(backend, thumb, good, thumb_of=sha1(original))
    html = b"<html>replaced</html>"
    request = {"key": thumb, "size": len(html), "sha1": sha1(html), "thumb_of": sha1(original)}
    grant = (await backend.signed("POST", UPLOAD_URL, json.dumps(request).encode())).json()
    assert grant["exists"] is True
    assert grant["url"] == ""
    assert await backend.storage.get(thumb) == good
