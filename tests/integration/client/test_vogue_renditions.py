"""A Vogue show crawled from the photo site, uploaded with thumbnails from its ``sm`` renditions.

The photo site answers ``w_N,c_limit`` renditions as the CDN does (the photo scaled to N
wide), so the source's ``thumb_url`` (``w_360``) is the same photo, smaller.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from PIL import Image

from rk.core.api.keys import sha1_hex
from rk.core.api.sources import ShowSummary
from rk.core.config import MediaSettings, Settings, SpiderSettings
from rk.core.runtime.client import BackendClient
from rk.core.runtime.http import polite_client
from rk.core.runtime.media_upload import MediaUploader
from rk.core.runtime.thumbs import make_thumbnail
from rk.plugins.vogue.source import VogueSource
from tests.integration.spider.photos import PhotoSite, serve_photo_site

from .conftest import SECRET, StandInBackend

SPIDER = SpiderSettings(min_interval_s=0.0, retries=0, timeout_s=10.0)
SHOW = "resort-2031/halden-company"


@pytest.fixture
def photos() -> Iterator[PhotoSite]:
    with serve_photo_site((600, 900)) as site:
        yield site


async def test_a_crawled_show_gets_its_thumbnails_from_the_sm_renditions(
    backend: StandInBackend, photos: PhotoSite
) -> None:
    settings = Settings(
        media=MediaSettings(upload=True, concurrency=3),
        sources={"vogue": {"base_url": photos.base_url, "link_details": False}},
    )
    async with BackendClient(backend.endpoint, SECRET) as client, polite_client(SPIDER) as http:
        vogue = VogueSource(http, settings.source_options("vogue"))
        found = ShowSummary(url=f"{photos.base_url}/fashion-shows/{SHOW}", key=SHOW)
        show = await vogue.fetch_show(found, None)
        stored, stats = await MediaUploader(client, http, settings).upload_show(show, "runway")
    refs = stored.images()
    assert refs
    assert (stats.uploaded, stats.thumbs_from_rendition, stats.rendition_fallbacks) == (
        len(refs),
        len(refs),
        0,
    )
    for ref in refs:
        assert ref.thumb_url is not None
        assert "/w_360,c_limit/" in ref.thumb_url
        original = photos.photo(urlsplit(ref.url).path)
        thumb = backend.objects[f"thumb/{sha1_hex(original)}.jpg"]
        expected = make_thumbnail(original, 256)
        assert expected is not None
        assert Image.open(io.BytesIO(thumb)).size == Image.open(io.BytesIO(expected)).size
    assert {urlsplit(ref.thumb_url or "").path for ref in refs} <= set(photos.paths("/photos/"))
