"""The ingest worker makes thumbnails from a site's smaller rendition, else from the original."""

from __future__ import annotations

import io
import json

from PIL import Image as PILImage

from rk.core.api.keys import sha1_hex
from rk.core.api.wire import ImageRef
from rk.core.runtime.thumbs import make_thumbnail
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import UPLOAD_URL, article_of, images_of, show
from tests.integration.server.images import Answer, ImageServer, jpeg


def colour_jpeg(colour: tuple[int, int, int], size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", size, colour).save(out, "JPEG", quality=90)
    return out.getvalue()


BLUE = (20, 40, 230)


async def test_thumbnails_from_renditions_and_fallbacks_to_the_original(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    # Renditions are blue, originals not: a thumbnail's colour says what it was made from.
    originals = [jpeg(n, (600, 900)) for n in (1, 2, 3, 4)]
    refs = [
        ImageRef(
            url=images.add("/1.jpg", originals[0]),
            thumb_url=images.add("/1-400x600.jpg", colour_jpeg(BLUE, (400, 600))),
        ),
        ImageRef(url=images.add("/2.jpg", originals[1]), thumb_url=images.url("/gone.jpg")),
        ImageRef(
            url=images.add("/3.jpg", originals[2]),
            thumb_url=images.add("/crop.jpg", colour_jpeg(BLUE, (300, 300))),
        ),
        ImageRef(
            url=images.add("/4.jpg", originals[3]),
            thumb_url=images.add(
                "/page.jpg", Answer(body=b"<html>no</html>", content_type="text/html")
            ),
        ),
    ]
    payload = show("ss31/renditions", refs)
    job = await backend.ingest_and_wait(payload)
    assert job["status"] == "done"
    assert job["note"] == (
        "created, 4 images; thumbnails: 1 from renditions, 3 from originals (rendition unfit)"
    )
    article = await article_of(payload)
    assert article is not None
    rows = await images_of(article["id"])
    for n, (row, data) in enumerate(zip(rows, originals, strict=True)):
        assert row["key"] == f"runway/{sha1_hex(data)}.jpg"
        thumb_bytes = await backend.storage.get(row["thumb_key"])
        thumb = PILImage.open(io.BytesIO(thumb_bytes))
        expected = make_thumbnail(data, backend.settings.media.thumb_size)
        assert expected is not None
        assert thumb.size == PILImage.open(io.BytesIO(expected)).size == (256, 384)
        centre = thumb.getpixel((128, 192))
        is_blue = all(abs(a - b) <= 16 for a, b in zip(centre, BLUE, strict=True))
        assert is_blue == (n == 0)
    assert images.hits["/1-400x600.jpg"] == 1


async def test_a_truncated_original_is_never_vouched_for_by_its_rendition(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    whole = jpeg(5, (600, 900))
    good = jpeg(6, (600, 900))
    refs = [
        ImageRef(
            url=images.add("/cut.jpg", whole[: len(whole) // 2]),
            thumb_url=images.add("/cut-400x600.jpg", colour_jpeg(BLUE, (400, 600))),
        ),
        ImageRef(url=images.add("/good.jpg", good)),
    ]
    job = await backend.ingest_and_wait(show("ss31/truncated", refs))
    assert job["status"] == "done"
    assert job["note"] == "created, 1 image, 1 missing: look 1 (image does not decode)"


async def test_an_uploaded_original_without_its_thumbnail_gets_one_from_the_rendition(
    start_backend: StartBackend, images: ImageServer
) -> None:
    backend = await start_backend()
    original = jpeg(7, (600, 900))
    key = f"runway/{sha1_hex(original)}.jpg"
    request = {"key": key, "size": len(original), "sha1": sha1_hex(original)}
    grant = (await backend.signed("POST", UPLOAD_URL, json.dumps(request).encode())).json()
    put = await backend.client.put(grant["url"], content=original, headers=grant["headers"])
    assert put.status_code == 201, put.text
    ref = ImageRef(
        url=images.url("/never-fetched.jpg"),
        key=key,
        size=len(original),
        thumb_url=images.add("/7-400x600.jpg", colour_jpeg(BLUE, (400, 600))),
    )
    payload = show("ss31/uploaded", [ref])
    job = await backend.ingest_and_wait(payload)
    assert job["note"] == "created, 1 image; thumbnails: 1 from renditions"
    article = await article_of(payload)
    assert article is not None
    row = (await images_of(article["id"]))[0]
    assert (row["key"], row["uploaded_by_spider"]) == (key, True)
    thumb = PILImage.open(io.BytesIO(await backend.storage.get(row["thumb_key"])))
    assert thumb.size == (256, 384)
    assert all(abs(a - b) <= 16 for a, b in zip(thumb.getpixel((128, 192)), BLUE, strict=True))
    assert "/never-fetched.jpg" not in images.hits
