"""A spider's image download: the polite client, a byte cap, one-line reasons for failure."""

from __future__ import annotations

import httpx

from rk.core.runtime import worker_metrics


class DownloadFailed(Exception):
    """The image could not be downloaded; the message is one line saying why."""


async def download(http: httpx.AsyncClient, url: str, cap: int) -> bytes:
    """The body at ``url``, at most ``cap`` bytes; DownloadFailed otherwise (or when empty)."""
    try:
        async with http.stream("GET", url) as response:
            if response.status_code != 200:
                raise DownloadFailed(f"download answered HTTP {response.status_code}")
            declared = int(response.headers.get("Content-Length") or 0)
            if declared > cap:
                raise DownloadFailed(f"{declared} bytes exceeds media.max_image_bytes")
            chunks: list[bytes] = []
            received = 0
            async for chunk in response.aiter_bytes():
                received += len(chunk)
                if received > cap:
                    raise DownloadFailed(f"more than media.max_image_bytes ({cap})")
                chunks.append(chunk)
    except httpx.HTTPError as exc:
        raise DownloadFailed(f"download failed: {type(exc).__name__}: {exc}") from None
    if not received:
        raise DownloadFailed("download was empty")
    worker_metrics.BYTES.inc(received)
    return b"".join(chunks)
