"""Similar looks and search on the public pages with the tiny CLIP, on SQLite and
PostgreSQL: published images only, no scores shown, "more like this" titled by its look, a
photo search at a URL that can be reloaded and shared, bad uploads refused with a reason."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import SearchPhoto
from tests.integration.embeddings.backend import embed_backend
from tests.integration.public.archive import Archive, seed, set_status
from tests.integration.public.vectors import embed_archive, wait_placed
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}
HIDDEN = ("pending", "rejected", "deleted")
EXIF = (
    b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x01"
    b"\x01\x0f\x00\x02\x00\x00\x00\x04rk!\x00\x00\x00\x00\x00"
)
"""An EXIF block naming the camera's make ("rk!"), which a kept photo must not carry."""


@pytest.fixture
async def clip_site(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[tuple[Backend, Archive]]:
    """A backend with the tiny CLIP, the test archive, and every picture's vector placed."""
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as backend:
        archive = await seed(backend.storage)
        await embed_archive(archive, plugin_manager)
        await wait_placed()
        yield backend, archive


def tile_ids(html: str) -> list[int]:
    """Image ids of the scored tiles of a page, in order."""
    return [int(i) for i in re.findall(r'<a class="tile" href="/images/(\d+)">', html)]


def hidden_images(archive: Archive) -> set[int]:
    return {i for name in HIDDEN for i in archive.images[name]}


async def test_image_page_shows_published_similar_looks_with_scores(
    clip_site: tuple[Backend, Archive],
) -> None:
    site, archive = clip_site
    image_id = archive.images["acne-ss25"][0]
    page = await site.client.get(f"/images/{image_id}", headers=HTML)
    assert page.status_code == 200
    similar = tile_ids(page.text.split('id="similar-rail"')[1])
    assert similar
    assert image_id not in similar
    assert not set(similar) & hidden_images(archive)
    assert "tile__score" not in page.text, "visitors see no similarity scores"
    api = (await site.client.get(f"/api/images/{image_id}")).json()
    assert [look["picture"]["image_id"] for look in api["similar"]] == similar
    assert api["model"]
    other = next(look for look in api["similar"] if look["show_id"] != archive.shows["acne-ss25"])
    await set_status(other["show_id"], "rejected")
    again = await site.client.get(f"/images/{image_id}", headers=HTML)
    assert other["picture"]["image_id"] not in tile_ids(again.text)


async def test_search_by_words_lists_published_looks_with_scores(
    clip_site: tuple[Backend, Archive],
) -> None:
    site, archive = clip_site
    page = await site.client.get("/search", params={"q": "red tartan coat"}, headers=HTML)
    assert page.status_code == 200
    found = tile_ids(page.text)
    published = {i for ids in archive.images.values() for i in ids} - hidden_images(archive)
    assert set(found) == published
    assert "Looks like “red tartan coat”" in page.text
    assert 'value="red tartan coat"' in page.text


async def test_search_by_uploaded_photo_finds_that_photo_first(
    clip_site: tuple[Backend, Archive],
) -> None:
    site, archive = clip_site
    image_id = archive.images["aurele-ss25"][2]
    upload = {"image": ("look.jpg", archive.pictures[image_id], "image/jpeg")}
    sent = await site.client.post("/search", files=upload, headers=HTML)
    assert sent.status_code == 303, "an upload answers with its results' own URL"
    assert sent.headers["cache-control"] == "no-store"
    location = sent.headers["location"]
    sha1 = re.fullmatch(r"/search\?photo=([0-9a-f]{40})", location)
    assert sha1 is not None, location
    page = await site.client.get(location, headers=HTML)
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    found = tile_ids(page.text)
    assert found[0] == image_id
    assert not set(found) & hidden_images(archive)
    assert f'src="/search/photos/{sha1.group(1)}.jpg"' in page.text, "the page shows the photo"
    again = await site.client.get(location, headers=HTML)
    assert tile_ids(again.text) == found, "the page can be reloaded"
    photo = await site.client.get(f"/search/photos/{sha1.group(1)}.jpg")
    assert photo.status_code == 200
    assert photo.headers["content-type"] == "image/jpeg"
    assert hashlib.sha1(photo.content).hexdigest() == sha1.group(1), "content-addressed"
    resent = await site.client.post("/search", files=upload, headers=HTML)
    assert resent.headers["location"] == location


async def test_a_search_photo_is_kept_bounded_and_only_until_it_expires(
    clip_site: tuple[Backend, Archive],
) -> None:
    site, _ = clip_site
    big = io.BytesIO()
    Image.new("RGB", (3000, 2000), (200, 30, 60)).save(big, format="JPEG", exif=EXIF)
    sent = await site.client.post(
        "/search", files={"image": ("big.jpg", big.getvalue(), "image/jpeg")}, headers=HTML
    )
    assert sent.status_code == 303
    name = sent.headers["location"].rsplit("=", 1)[1]
    photo = await site.client.get(f"/search/photos/{name}.jpg")
    with Image.open(io.BytesIO(photo.content)) as kept:
        assert max(kept.size) <= 768, kept.size
        assert not kept.getexif(), "the kept photo carries no metadata"
    assert len(photo.content) < 200 * 1024
    await SearchPhoto.update({SearchPhoto.expires_at: 1}).where(SearchPhoto.sha1 == name)
    gone = await site.client.get(sent.headers["location"], headers=HTML)
    assert gone.status_code == 410
    assert "no longer kept" in gone.text
    assert (await site.client.get(f"/search/photos/{name}.jpg")).status_code == 404
    fresh = await site.client.post(
        "/search", files={"image": ("b.jpg", png(64, 96), "image/png")}, headers=HTML
    )
    assert fresh.status_code == 303
    assert await SearchPhoto.count().where(SearchPhoto.sha1 == name) == 0, "expired: deleted"
    unknown = await site.client.get("/search", params={"photo": "0" * 40}, headers=HTML)
    assert unknown.status_code == 410


async def test_more_like_this_leaves_out_the_image_itself(
    clip_site: tuple[Backend, Archive],
) -> None:
    site, archive = clip_site
    image_id = archive.images["zeta-ss25"][0]
    page = await site.client.get(f"/images/{image_id}", headers=HTML)
    assert f'href="/search?like={image_id}"' in page.text
    more = await site.client.get("/search", params={"like": str(image_id)}, headers=HTML)
    assert more.status_code == 200
    assert "<title>More like Zeta, look 1 · rk</title>" in more.text
    assert "More like Zeta, look 1</h2>" in more.text, "titled by the look, never by its id"
    assert f"image {image_id}" not in more.text
    head = more.text.split('id="results"')[0]
    assert f'class="search-from" href="/images/{image_id}"' in head, "its thumbnail leads"
    found = tile_ids(more.text.split('id="results"')[1])
    assert found
    assert image_id not in found
    assert not set(found) & hidden_images(archive)
    hidden = archive.images["pending"][0]
    missing = await site.client.get("/search", params={"like": str(hidden)}, headers=HTML)
    assert missing.status_code == 404


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("L", (width, height)).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "status", "words"),
    [
        ("notes.txt", b"just some text, not a picture", 422, "not an image rk can read"),
        ("empty.jpg", b"", 400, "choose a photo"),
        ("bomb.png", png(8000, 8000), 413, "at most 40 megapixels"),
        ("cut.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 64, 422, "not an image"),
    ],
)
async def test_bad_uploads_come_back_with_the_reason(
    clip_site: tuple[Backend, Archive], name: str, data: bytes, status: int, words: str
) -> None:
    site, _ = clip_site
    page = await site.client.post(
        "/search", files={"image": (name, data, "image/png")}, headers=HTML
    )
    assert page.status_code == status
    assert words in page.text
    assert 'id="e-image"' in page.text
    api = await site.client.post("/api/search/image", content=data)
    assert api.status_code == (400 if not data else status)
    assert api.json()["error"]
