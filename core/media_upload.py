"""Direct media upload: the spider stores each image (and its thumbnail) itself.

For each image: download (polite client) → SHA-1 → ``<kind>/<sha1>.jpg`` → ``POST
upload-url`` → PUT the bytes → report ``ImageRef{url, key, size, sha1}``. With the bytes
in hand it also makes the thumbnail (``thumb/<sha1 of the original>.jpg``) and uploads it,
so the backend never needs the original. When the backend answers ``exists`` (storage
already holds the key) nothing is PUT: a re-crawl uploads nothing new. Any failure of one
image reports it with its URL only, and the show still goes. The spider never holds
storage credentials, only short-lived upload URLs.
"""

from __future__ import annotations

import asyncio
import io
import logging
import warnings
from typing import Literal

import httpx
import msgspec
from msgspec import Struct
from PIL import Image, UnidentifiedImageError

from rk.core import worker_metrics
from rk.core.client import BackendClient, BackendError
from rk.core.config import Settings
from rk.core.keys import KINDS, Kind, content_key, sha1_hex, thumb_key
from rk.core.thumbs import thumbnail
from rk.core.wire import ImageRef, ShowIngest, UploadUrlRequest

log = logging.getLogger(__name__)


class UploadStats(Struct, kw_only=True):
    """What happened to a show's images; ``uploaded + fell_back + failed == images``.

    ``uploaded`` counts images reported with a key, ``already_stored`` those of them the
    backend already had (nothing PUT). ``fell_back``: downloaded, but upload-url or PUT
    failed. ``failed``: the download itself failed (or was not an image / too large).
    With ``media.upload`` off nothing is attempted and only ``images`` is counted.
    """

    images: int = 0
    uploaded: int = 0
    already_stored: int = 0
    fell_back: int = 0
    failed: int = 0
    thumbs: int = 0
    thumb_failures: int = 0


Outcome = Literal["uploaded", "fell_back", "failed"]


class _Skip(Exception):
    """This image is reported with its URL only; ``outcome`` says which counter."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome: Outcome = outcome


class _Result(Struct, frozen=True, kw_only=True):
    """One image's new reference and how it got there."""

    ref: ImageRef
    outcome: Outcome
    existed: bool = False
    thumb: bool | None = None


def _count(result: _Result) -> None:
    """One image's outcome in the worker metrics."""
    if result.outcome == "uploaded":
        worker_metrics.IMAGES.labels("already_stored" if result.existed else "uploaded").inc()
    elif result.outcome == "fell_back":
        worker_metrics.IMAGES.labels("url_only").inc()
        worker_metrics.SPIDER_ERRORS.labels("image_upload").inc()
    else:
        worker_metrics.IMAGES.labels("failed").inc()
        worker_metrics.SPIDER_ERRORS.labels("image_download").inc()
    if result.thumb is False:
        worker_metrics.SPIDER_ERRORS.labels("thumbnail").inc()


def _mime(data: bytes) -> str:
    """The image's MIME type from its header (no full decode); _Skip when it is none."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                mime = Image.MIME.get(img.format or "")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        mime = None
    if not mime or not mime.startswith("image/"):
        raise _Skip("failed", "not an image")
    return mime


class MediaUploader:
    """Uploads shows' images through the backend's upload URLs, ``media.concurrency`` at once."""

    def __init__(self, client: BackendClient, http: httpx.AsyncClient, settings: Settings) -> None:
        self.client = client
        self.http = http
        self.media = settings.media
        self._gate = asyncio.Semaphore(max(1, self.media.concurrency))

    async def upload_show(self, show: ShowIngest, kind: str) -> tuple[ShowIngest, UploadStats]:
        """The show with key/size/sha1 on every image that was stored, and the counts."""
        images = show.images()
        stats = UploadStats(images=len(images))
        if not self.media.upload or not images:
            return show, stats
        if kind not in KINDS:
            raise ValueError(f"media kind {kind!r} is not one of {', '.join(KINDS)}")
        media_kind: Kind = "runway" if kind == "runway" else "street"
        urls = list(dict.fromkeys(ref.url for ref in images))
        results = await asyncio.gather(*(self._one(url, media_kind) for url in urls))
        by_url = dict(zip(urls, results, strict=True))
        for result in results:
            _count(result)
        for ref in images:
            result = by_url[ref.url]
            stats.uploaded += result.outcome == "uploaded"
            stats.fell_back += result.outcome == "fell_back"
            stats.failed += result.outcome == "failed"
            stats.already_stored += result.existed
            stats.thumbs += result.thumb is True
            stats.thumb_failures += result.thumb is False
        looks = [
            msgspec.structs.replace(look, image=by_url[look.image.url].ref) for look in show.looks
        ]
        details = [
            msgspec.structs.replace(by_url[ref.url].ref, look=ref.look) for ref in show.details
        ]
        return msgspec.structs.replace(show, looks=looks, details=details), stats

    async def _one(self, url: str, kind: Kind) -> _Result:
        """Store one image; on any failure its URL alone, with the reason logged."""
        async with self._gate:
            try:
                return await self._store(url, kind)
            except _Skip as skip:
                log.warning("image %s reported by URL only: %s", url, skip)
                return _Result(ref=ImageRef(url=url), outcome=skip.outcome)

    async def _store(self, url: str, kind: Kind) -> _Result:
        """Download, ask for an upload URL, and PUT the original and its thumbnail.

        The upload URL is asked for before decoding, so a re-crawl (the backend answers
        ``exists``) costs one download and one small request per image, no decode. A new
        image is decoded (into its thumbnail) before its PUT, so bytes that do not decode
        are never stored.
        """
        data = await self._download(url)
        sha1 = sha1_hex(data)
        request = UploadUrlRequest(
            key=content_key(kind, sha1), size=len(data), sha1=sha1, content_type=_mime(data)
        )
        ref = ImageRef(url=url, key=request.key, size=request.size, sha1=request.sha1)
        try:
            upload = await self.client.upload_url(request)
            if upload.exists:
                return _Result(ref=ref, outcome="uploaded", existed=True)
            thumb = await thumbnail(data, self.media.thumb_size)
            if thumb is None:
                raise _Skip("failed", "does not decode as an image")
            await self.client.put_object(upload, data)
        except BackendError as exc:
            raise _Skip("fell_back", str(exc)) from None
        return _Result(ref=ref, outcome="uploaded", thumb=await self._thumbnail(url, thumb, sha1))

    async def _download(self, url: str) -> bytes:
        """The image's bytes, at most ``media.max_image_bytes``; _Skip otherwise."""
        cap = self.media.max_image_bytes
        try:
            async with self.http.stream("GET", url) as response:
                if response.status_code != 200:
                    raise _Skip("failed", f"download answered HTTP {response.status_code}")
                declared = int(response.headers.get("Content-Length") or 0)
                if declared > cap:
                    raise _Skip("failed", f"{declared} bytes exceeds media.max_image_bytes")
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > cap:
                        raise _Skip("failed", f"more than media.max_image_bytes ({cap})")
        except httpx.HTTPError as exc:
            raise _Skip("failed", f"download failed: {type(exc).__name__}: {exc}") from None
        if not body:
            raise _Skip("failed", "download was empty")
        worker_metrics.BYTES.inc(len(body))
        return bytes(body)

    async def _thumbnail(self, url: str, thumb: bytes, original_sha1: str) -> bool:
        """Upload the thumbnail; False (logged) when that failed, which never fails the image."""
        request = UploadUrlRequest(
            key=thumb_key(original_sha1),
            size=len(thumb),
            sha1=sha1_hex(thumb),
            thumb_of=original_sha1,
        )
        try:
            upload = await self.client.upload_url(request)
            if not upload.exists:
                await self.client.put_object(upload, thumb)
        except BackendError as exc:
            log.warning(
                "image %s: thumbnail upload failed (%s); the backend will make it", url, exc
            )
            return False
        return True
