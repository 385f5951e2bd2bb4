"""Search by photo is bounded for anonymous callers, over real HTTP with the tiny CLIP: a
picture with no reduced decode is refused from its header past the pixel cap, a huge JPEG
is decoded reduced, busy slots answer 503 and a chatty address 429, both with Retry-After."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import msgspec
from PIL import Image

from rk.core.api.plugins import RkPluginManager
from rk.core.config import SearchSettings
from tests.integration.embeddings.backend import embed_settings, picture
from tests.integration.server.helpers import Backend, running_backend

HTML = {"accept": "text/html"}


def big(fmt: str, side: int = 6300) -> bytes:
    """A ``side``×``side`` picture that compresses to ~100 KiB as PNG: grey, a gradient band."""
    image = Image.new("RGB", (side, side), (128, 128, 128))
    band = Image.linear_gradient("L").resize((side, side // 20)).convert("RGB")
    image.paste(band, (0, side // 2))
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


@asynccontextmanager
async def photo_backend(
    tmp_path: Path, pm: RkPluginManager, **search: int
) -> AsyncIterator[Backend]:
    """A backend with the tiny CLIP and these ``search.*`` settings."""
    settings = msgspec.structs.replace(
        embed_settings(tmp_path), search=msgspec.convert(search, SearchSettings)
    )
    async with running_backend(settings, pm) as backend:
        yield backend


async def test_a_6300_px_png_is_refused_from_its_header_and_a_6300_px_jpeg_decoded_reduced(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with photo_backend(tmp_path, plugin_manager, photo_uploads_per_minute=0) as site:
        png = big("PNG")
        assert len(png) < 200 * 1024
        api = await site.client.post(
            "/api/search/image", content=png, headers={"content-type": "image/png"}
        )
        assert api.status_code == 413
        error = api.json()["error"]
        assert "6300×6300" in error
        assert "a PNG may have at most 8 megapixels" in error
        page = await site.client.post(
            "/search", files={"image": ("big.png", png, "image/png")}, headers=HTML
        )
        assert page.status_code == 413
        assert "at most 8 megapixels" in page.text
        jpeg = await site.client.post(
            "/api/search/image", content=big("JPEG"), headers={"content-type": "image/jpeg"}
        )
        assert jpeg.status_code == 200, jpeg.text
        assert jpeg.json()["model"]


async def slow_upload(site: Backend) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A photo search whose body stops half-way: it holds its slot while the server waits."""
    reader, writer = await asyncio.open_connection("127.0.0.1", site.settings.server.port)
    head = (
        "POST /api/search/image HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n"
    )
    writer.write(head.encode() + picture(1)[:200])
    await writer.drain()
    return reader, writer


async def search(site: Backend) -> httpx.Response:
    return await site.client.post(
        "/api/search/image", content=picture(2), headers={"content-type": "image/jpeg"}
    )


async def test_busy_slots_answer_503_with_retry_after_at_once(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with photo_backend(
        tmp_path, plugin_manager, photo_concurrency=1, photo_uploads_per_minute=0
    ) as site:
        reader, writer = await slow_upload(site)
        for _ in range(200):
            answer = await search(site)
            if answer.status_code == 503:
                break
            assert answer.status_code == 200, answer.text
            await asyncio.sleep(0.02)
        assert answer.status_code == 503
        assert int(answer.headers["retry-after"]) >= 1
        assert "photo searches" in answer.json()["error"]
        page = await site.client.post(
            "/search", files={"image": ("a.jpg", picture(3), "image/jpeg")}, headers=HTML
        )
        assert page.status_code == 503
        assert int(page.headers["retry-after"]) >= 1
        assert not reader.at_eof()
        writer.close()
        await writer.wait_closed()
        for _ in range(200):
            answer = await search(site)
            if answer.status_code == 200:
                break
            await asyncio.sleep(0.02)
        assert answer.status_code == 200, answer.text


async def test_an_address_past_its_rate_gets_429_with_retry_after(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with photo_backend(tmp_path, plugin_manager, photo_uploads_per_minute=2) as site:
        assert [(await search(site)).status_code for _ in range(2)] == [200, 200]
        refused = await search(site)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert "at most 2 photo searches a minute" in refused.json()["error"]
        page = await site.client.post(
            "/search", files={"image": ("a.jpg", picture(3), "image/jpeg")}, headers=HTML
        )
        assert page.status_code == 429
        assert "retry-after" in page.headers
