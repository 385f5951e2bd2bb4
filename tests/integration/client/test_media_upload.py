"""Direct media upload against the stand-in backend, with images served over real HTTP."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import msgspec
import pytest
from PIL import Image

from rk.core.api.keys import sha1_hex
from rk.core.api.wire import ImageRef, Look, ShowIngest
from rk.core.config import MediaSettings, Settings, SpiderSettings
from rk.core.runtime import worker_metrics
from rk.core.runtime.client import BackendClient
from rk.core.runtime.http import polite_client
from rk.core.runtime.media_upload import MediaUploader, UploadStats

from .conftest import SECRET, StandInBackend

SPIDER = SpiderSettings(min_interval_s=0.0, retries=1, backoff_base_s=0.01, timeout_s=5.0)


def jpeg(colour: str, size: tuple[int, int] = (600, 900)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG")
    return out.getvalue()


def show_of(backend: StandInBackend, looks: list[str], details: list[str]) -> ShowIngest:
    base = f"http://127.0.0.1:{backend.port}"
    return ShowIngest(
        source="vogue",
        kind="runway",
        show_key="fall-2025/maison",
        title="Maison Fall 2025",
        looks=[Look(number=n, image=ImageRef(url=base + p)) for n, p in enumerate(looks, 1)],
        details=[ImageRef(url=base + p) for p in details],
    )


@pytest.fixture
async def uploader(backend: StandInBackend) -> AsyncIterator[MediaUploader]:
    settings = Settings(media=MediaSettings(upload=True, concurrency=3, thumb_size=128))
    async with BackendClient(backend.endpoint, SECRET) as client, polite_client(SPIDER) as http:
        yield MediaUploader(client, http, settings)


async def test_every_image_and_its_thumbnail_is_stored(
    backend: StandInBackend, uploader: MediaUploader
) -> None:
    images = {"/a.jpg": jpeg("red"), "/b.jpg": jpeg("green"), "/d.jpg": jpeg("blue", (900, 600))}
    backend.site.update({path: (200, data) for path, data in images.items()})
    show, stats = await uploader.upload_show(
        show_of(backend, ["/a.jpg", "/b.jpg"], ["/d.jpg", "/a.jpg"]), "runway"
    )
    assert (stats.images, stats.uploaded, stats.thumbs, stats.fell_back, stats.failed) == (
        4,
        4,
        4,
        0,
        0,
    )
    for ref in show.images():
        data = images[urlsplit(ref.url).path]
        assert (ref.key, ref.size, ref.sha1) == (
            f"runway/{sha1_hex(data)}.jpg",
            len(data),
            sha1_hex(data),
        )
        assert backend.objects[ref.key] == data
        thumb = Image.open(io.BytesIO(backend.objects[f"thumb/{sha1_hex(data)}.jpg"]))
        assert min(thumb.size) == 128
    # Three distinct images: three originals and three thumbnails, each PUT once.
    assert len(backend.objects) == 6
    assert len([s for s in backend.seen if s.method == "PUT"]) == 6


async def test_a_recrawl_uploads_nothing_new(
    backend: StandInBackend, uploader: MediaUploader
) -> None:
    backend.site.update({"/a.jpg": (200, jpeg("red")), "/b.jpg": (200, jpeg("navy"))})
    first, _ = await uploader.upload_show(show_of(backend, ["/a.jpg", "/b.jpg"], []), "runway")
    puts = len([s for s in backend.seen if s.method == "PUT"])
    again, stats = await uploader.upload_show(show_of(backend, ["/a.jpg", "/b.jpg"], []), "runway")
    assert again == first
    assert (stats.uploaded, stats.already_stored, stats.thumbs) == (2, 2, 0)
    assert len([s for s in backend.seen if s.method == "PUT"]) == puts


async def test_failures_report_the_url_only_and_the_show_still_goes(
    backend: StandInBackend, uploader: MediaUploader
) -> None:
    full = jpeg("red")
    doomed = jpeg("teal")
    backend.site.update(
        {
            "/ok.jpg": (200, full),
            "/missing.jpg": (404, b"not found"),
            "/html.jpg": (200, b"<html>blocked</html>"),
            "/no-header.jpg": (200, full[:200]),
            "/truncated.jpg": (200, full[: len(full) // 2]),
            "/put-fails.jpg": (200, doomed),
        }
    )
    backend.failing_puts.add(f"runway/{sha1_hex(doomed)}.jpg")
    paths = ["/ok.jpg", "/missing.jpg", "/html.jpg", "/no-header.jpg", "/truncated.jpg"]
    show, stats = await uploader.upload_show(show_of(backend, paths, ["/put-fails.jpg"]), "runway")
    refs = {urlsplit(ref.url).path: ref for ref in show.images()}
    assert (stats.uploaded, stats.fell_back, stats.failed) == (1, 1, 4)
    assert refs["/ok.jpg"].key == f"runway/{sha1_hex(full)}.jpg"
    for path in [*paths[1:], "/put-fails.jpg"]:
        assert refs[path] == ImageRef(url=refs[path].url)
    assert [look.number for look in show.looks] == [1, 2, 3, 4, 5]
    # Bytes that do not decode are never stored.
    assert set(backend.objects) == {f"runway/{sha1_hex(full)}.jpg", f"thumb/{sha1_hex(full)}.jpg"}


async def test_upload_url_refused_falls_back_to_the_url(
    backend: StandInBackend, uploader: MediaUploader
) -> None:
    backend.site["/a.jpg"] = (200, jpeg("red"))
    backend.force("upload-url", (500, b"Internal Server Error"))
    show, stats = await uploader.upload_show(show_of(backend, ["/a.jpg"], []), "runway")
    assert (stats.uploaded, stats.fell_back) == (0, 1)
    assert show.looks[0].image.key is None


async def test_images_over_the_size_cap_are_not_uploaded(backend: StandInBackend) -> None:
    backend.site["/big.jpg"] = (200, jpeg("red", (2000, 2000)))
    settings = Settings(media=MediaSettings(upload=True, max_image_bytes=1000))
    async with BackendClient(backend.endpoint, SECRET) as client, polite_client(SPIDER) as http:
        _, stats = await MediaUploader(client, http, settings).upload_show(
            show_of(backend, ["/big.jpg"], []), "street"
        )
    assert stats.failed == 1
    assert backend.objects == {}


async def test_street_kind_and_upload_off(backend: StandInBackend) -> None:
    data = jpeg("red")
    backend.site["/s.jpg"] = (200, data)
    source = show_of(backend, ["/s.jpg"], [])
    async with BackendClient(backend.endpoint, SECRET) as client, polite_client(SPIDER) as http:
        off = MediaUploader(client, http, Settings())
        assert await off.upload_show(source, "street") == (source, UploadStats(images=1))
        assert backend.seen == []
        on = MediaUploader(client, http, Settings(media=MediaSettings(upload=True)))
        show, _ = await on.upload_show(source, "street")
        assert show.looks[0].image.key == f"street/{sha1_hex(data)}.jpg"
        with pytest.raises(ValueError, match="media kind 'catwalk'"):
            await on.upload_show(source, "catwalk")


def thumb_of(backend: StandInBackend, data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(backend.objects[f"thumb/{sha1_hex(data)}.jpg"]))


def thumbs_counted(source: str) -> float:
    value = worker_metrics.REGISTRY.get_sample_value("rk_spider_thumbs_total", {"source": source})
    return value or 0.0


async def test_thumbnails_are_made_from_the_sites_smaller_rendition(
    backend: StandInBackend, uploader: MediaUploader
) -> None:
    # The rendition is another colour, so the thumbnail shows which one it was made from.
    original = jpeg("red", (600, 900))
    backend.site.update(
        {"/a.jpg": (200, original), "/a-200x300.jpg": (200, jpeg("blue", (200, 300)))}
    )
    base = f"http://127.0.0.1:{backend.port}"
    source = show_of(backend, ["/a.jpg"], [])
    look = source.looks[0]
    source = msgspec.structs.replace(
        source,
        looks=[
            msgspec.structs.replace(
                look,
                image=msgspec.structs.replace(look.image, thumb_url=f"{base}/a-200x300.jpg"),
            )
        ],
    )
    before = thumbs_counted("rendition")
    show, stats = await uploader.upload_show(source, "runway")
    assert (stats.uploaded, stats.thumbs, stats.thumbs_from_rendition) == (1, 1, 1)
    assert stats.rendition_fallbacks == 0
    assert show.looks[0].image.thumb_url == f"{base}/a-200x300.jpg"
    assert backend.objects[show.looks[0].image.key or ""] == original
    thumb = thumb_of(backend, original)
    assert thumb.size == (128, 192)  # what make_thumbnail gives the 600×900 original
    assert thumb.getpixel((64, 96))[2] > 200  # blue: made from the rendition
    assert thumbs_counted("rendition") == before + 1


async def test_a_missing_or_unfit_rendition_falls_back_to_the_original(
    backend: StandInBackend, uploader: MediaUploader
) -> None:
    originals = {f"/{n}.jpg": jpeg(c, (600, 900)) for n, c in enumerate(["red", "lime", "navy"])}
    backend.site.update({path: (200, data) for path, data in originals.items()})
    backend.site["/square.jpg"] = (200, jpeg("white", (300, 300)))  # a crop, not the photo
    backend.site["/html.jpg"] = (200, b"<html>blocked</html>")
    truncated = jpeg("teal", (600, 900))
    backend.site["/truncated.jpg"] = (200, truncated[: len(truncated) // 2])
    backend.site["/fine-200x300.jpg"] = (200, jpeg("white", (200, 300)))
    base = f"http://127.0.0.1:{backend.port}"
    renditions = {
        "/0.jpg": "/gone-200x300.jpg",  # 404
        "/1.jpg": "/square.jpg",
        "/2.jpg": "/html.jpg",
        "/truncated.jpg": "/fine-200x300.jpg",  # a fine rendition never vouches for the original
    }
    show = show_of(backend, list(renditions), [])
    looks = [
        msgspec.structs.replace(
            look,
            image=msgspec.structs.replace(look.image, thumb_url=base + renditions[path]),
        )
        for look, path in zip(show.looks, renditions, strict=True)
    ]
    before = thumbs_counted("fallback")
    done, stats = await uploader.upload_show(msgspec.structs.replace(show, looks=looks), "runway")
    assert (stats.uploaded, stats.failed, stats.thumbs) == (3, 1, 3)
    assert (stats.thumbs_from_rendition, stats.rendition_fallbacks) == (0, 3)
    assert thumbs_counted("fallback") == before + 3
    for data in originals.values():
        thumb = thumb_of(backend, data)
        assert thumb.size == (128, 192)
        assert thumb.getpixel((64, 96)) != (255, 255, 255)  # the original's colour
    assert done.looks[3].image == ImageRef(
        url=base + "/truncated.jpg", thumb_url=base + "/fine-200x300.jpg"
    )
    assert f"runway/{sha1_hex(truncated[: len(truncated) // 2])}.jpg" not in backend.objects
