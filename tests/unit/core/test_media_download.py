"""A spider's image download: the body whole, the byte cap, one-line failures."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from rk.core.runtime.media_download import DownloadFailed, download

CHUNKS = [b"\xff\xd8" + bytes(range(256)) * 40, b"middle" * 3000, b"\xff\xd9"]


class Chunked(httpx.AsyncByteStream):
    """A body sent in pieces with no Content-Length, as a streaming site sends it."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def client(chunks: list[bytes], status: int = 200) -> httpx.AsyncClient:
    """A client whose every GET answers ``chunks`` with ``status``."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, stream=Chunked(chunks))

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


async def test_the_pieces_come_back_as_one_body_in_order() -> None:
    async with client(CHUNKS) as http:
        data = await download(http, "https://site.test/a.jpg", cap=1 << 20)
    assert data == b"".join(CHUNKS)
    assert type(data) is bytes


async def test_a_body_exactly_at_the_cap_is_kept() -> None:
    size = sum(map(len, CHUNKS))
    async with client(CHUNKS) as http:
        assert len(await download(http, "https://site.test/a.jpg", cap=size)) == size


async def test_a_body_growing_past_the_cap_fails_without_a_declared_length() -> None:
    async with client(CHUNKS) as http:
        with pytest.raises(DownloadFailed, match="more than media.max_image_bytes"):
            await download(http, "https://site.test/a.jpg", cap=sum(map(len, CHUNKS)) - 1)


async def test_an_empty_body_and_a_non_200_fail() -> None:
    async with client([]) as http:
        with pytest.raises(DownloadFailed, match="empty"):
            await download(http, "https://site.test/a.jpg", cap=100)
    async with client([b"gone"], status=404) as http:
        with pytest.raises(DownloadFailed, match="HTTP 404"):
            await download(http, "https://site.test/a.jpg", cap=100)
