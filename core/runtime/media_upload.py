"""Direct media upload: the spider stores each image (and its thumbnail) itself.

For each image: download (polite client) → SHA-1 → ``<kind>/<sha1>.jpg`` → upload URL →
PUT the bytes → report ``ImageRef{url, key, size, sha1}``. With the bytes in hand it also
makes the thumbnail (``thumb/<sha1 of the original>.jpg``) and uploads it, so the backend
never needs the original; when the source named a smaller rendition (``thumb_url``) the
thumbnail is made from that one small GET instead of decoding the original
(``rk.core.runtime.renditions``), else (or when it is missing or unfit) from the original. Upload
URLs are asked for a show at a time (``POST upload-urls``: one request for the originals,
one for the new thumbnails). When the backend answers ``exists`` (the archive or storage
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

from rk.core.api.keys import KINDS, Kind, content_key, sha1_hex, thumb_key
from rk.core.api.wire import ImageRef, ShowIngest, UploadUrl, UploadUrlRequest
from rk.core.config import Settings
from rk.core.runtime import worker_metrics
from rk.core.runtime.client import BackendClient, BackendError
from rk.core.runtime.media_download import DownloadFailed, download
from rk.core.runtime.renditions import rendition_thumbnail
from rk.core.runtime.thumbs import thumbnail

log = logging.getLogger(__name__)

# Images per upload-urls request: a typical show (up to 64 looks and details) is one batch.
UPLOAD_BATCH = 64
# Bytes a batch holds before it stops downloading (the rest go to the next batch): bounds a
# spider's memory when a source serves large originals (up to one download per
# ``media.concurrency`` slot more).
BATCH_BYTES = 64 * 1024 * 1024


class UploadStats(Struct, kw_only=True):
    """What happened to a show's images; ``uploaded + fell_back + failed == images``.

    ``uploaded`` counts images reported with a key, ``already_stored`` those of them the
    backend already had (nothing PUT). ``fell_back``: downloaded, but upload-url or PUT
    failed. ``failed``: the download itself failed (or was not an image / too large).
    With ``media.upload`` off nothing is attempted and only ``images`` is counted.
    ``thumbs_from_rendition``: new thumbnails made from the site's smaller rendition
    (``ImageRef.thumb_url``); ``rendition_fallbacks``: made from the original because the
    rendition was missing or unfit.
    """

    images: int = 0
    uploaded: int = 0
    already_stored: int = 0
    fell_back: int = 0
    failed: int = 0
    thumbs: int = 0
    thumb_failures: int = 0
    thumbs_from_rendition: int = 0
    rendition_fallbacks: int = 0


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
    rendition: bool | None = None


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
    if result.thumb is not None:
        made_from = {True: "rendition", False: "fallback", None: "original"}[result.rendition]
        worker_metrics.THUMBS.labels(made_from).inc()


def _skipped(url: str, skip: _Skip) -> _Result:
    """The image reported by its URL only, with the reason logged."""
    log.warning("image %s reported by URL only: %s", url, skip)
    return _Result(ref=ImageRef(url=url), outcome=skip.outcome)


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


class _Fetched(Struct, frozen=True, kw_only=True):
    """One downloaded image and the upload it asks for."""

    data: bytes
    ref: ImageRef
    request: UploadUrlRequest
    thumb_url: str | None = None


class _Made(Struct, frozen=True, kw_only=True):
    """A new original, PUT; its thumbnail waits for an upload URL."""

    result: _Result
    thumb: bytes
    request: UploadUrlRequest
    rendition: bool | None = None


Grant = UploadUrl | BackendError


class MediaUploader:
    """Uploads shows' images through the backend's upload URLs, ``media.concurrency`` at once.

    A show's images go in batches of ``UPLOAD_BATCH`` (fewer once ``batch_bytes`` are
    downloaded): download them all, ask for every
    original's upload URL in one signed request (``upload-urls``), make the thumbnails of
    the new ones and PUT the originals, then ask for the thumbnails' URLs in one more
    request and PUT them. A re-crawl of a stored show is one request per batch and no
    decode. When a batch request fails, each image asks on its own (``upload-url``); when
    a PUT fails, that image alone is reported by URL.
    """

    def __init__(
        self,
        client: BackendClient,
        http: httpx.AsyncClient,
        settings: Settings,
        batch_bytes: int = BATCH_BYTES,
    ) -> None:
        self.client = client
        self.batch_bytes = batch_bytes
        self.http = http
        self.media = settings.media
        self._gate = asyncio.Semaphore(max(1, self.media.concurrency))
        # Renditions are fetched while originals are PUT: slots of their own, so the small
        # GETs never wait behind uploads, and the site still sees at most ``concurrency``
        # GETs of a show at once (its originals were all downloaded before).
        self._rendition_gate = asyncio.Semaphore(max(1, self.media.concurrency))

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
        thumb_urls = {ref.url: ref.thumb_url for ref in images if ref.thumb_url}
        by_url: dict[str, _Result] = {}
        pending = urls
        while pending:
            batch = [(url, thumb_urls.get(url)) for url in pending[:UPLOAD_BATCH]]
            results, deferred = await self._batch(batch, media_kind)
            by_url.update(results)
            pending = deferred + pending[UPLOAD_BATCH:]
        for result in by_url.values():
            _count(result)
        for ref in images:
            result = by_url[ref.url]
            stats.uploaded += result.outcome == "uploaded"
            stats.fell_back += result.outcome == "fell_back"
            stats.failed += result.outcome == "failed"
            stats.already_stored += result.existed
            stats.thumbs += result.thumb is True
            stats.thumb_failures += result.thumb is False
            stats.thumbs_from_rendition += result.thumb is not None and result.rendition is True
            stats.rendition_fallbacks += result.thumb is not None and result.rendition is False

        def stored(ref: ImageRef) -> ImageRef:
            new = by_url[ref.url].ref
            return msgspec.structs.replace(new, look=ref.look, thumb_url=ref.thumb_url)

        looks = [msgspec.structs.replace(look, image=stored(look.image)) for look in show.looks]
        details = [stored(ref) for ref in show.details]
        return msgspec.structs.replace(show, looks=looks, details=details), stats

    async def _batch(
        self, urls: list[tuple[str, str | None]], kind: Kind
    ) -> tuple[dict[str, _Result], list[str]]:
        """Store these images, each with its rendition URL (two signed requests for the lot,
        one when all are stored); the URLs left for the next batch once ``batch_bytes`` were
        downloaded."""
        held = 0

        async def fetch(url: str, thumb_url: str | None) -> _Fetched | _Result | None:
            nonlocal held
            async with self._gate:
                if held >= self.batch_bytes:
                    return None
                item = await self._fetch(url, kind, thumb_url)
                held += len(item.data) if isinstance(item, _Fetched) else 0
                return item

        fetched = await asyncio.gather(*(fetch(url, thumb) for url, thumb in urls))
        deferred = [url for (url, _), item in zip(urls, fetched, strict=True) if item is None]
        ready = [item for item in fetched if isinstance(item, _Fetched)]
        results = {item.ref.url: item for item in fetched if isinstance(item, _Result)}
        grants = await self._grants([item.request for item in ready])
        stored = await asyncio.gather(
            *(self._store(item, grant) for item, grant in zip(ready, grants, strict=True))
        )
        made = [item for item in stored if isinstance(item, _Made)]
        results.update((item.ref.url, item) for item in stored if isinstance(item, _Result))
        thumb_grants = await self._grants([item.request for item in made])
        thumbs = await asyncio.gather(
            *(self._put_thumb(item, grant) for item, grant in zip(made, thumb_grants, strict=True))
        )
        for item, ok in zip(made, thumbs, strict=True):
            done = msgspec.structs.replace(item.result, thumb=ok, rendition=item.rendition)
            results[item.result.ref.url] = done
        return results, deferred

    async def _fetch(self, url: str, kind: Kind, thumb_url: str | None) -> _Fetched | _Result:
        """Download one image and name its upload; a failure reports its URL."""
        try:
            data = await self._download(url)
            sha1 = sha1_hex(data)
            request = UploadUrlRequest(
                key=content_key(kind, sha1), size=len(data), sha1=sha1, content_type=_mime(data)
            )
        except _Skip as skip:
            return _skipped(url, skip)
        ref = ImageRef(url=url, key=request.key, size=request.size, sha1=sha1)
        return _Fetched(data=data, ref=ref, request=request, thumb_url=thumb_url)

    async def _grants(self, requests: list[UploadUrlRequest]) -> list[Grant]:
        """Upload URLs for these requests in one round trip; one by one if that fails."""
        if not requests:
            return []
        try:
            return list(await self.client.upload_urls(requests))
        except BackendError as exc:
            log.warning("upload-urls failed (%s); asking for each image's URL alone", exc)
        return list(await asyncio.gather(*(self._grant(request) for request in requests)))

    async def _grant(self, request: UploadUrlRequest) -> Grant:
        """One upload URL (``upload-url``), or the error that refused it."""
        async with self._gate:
            try:
                return await self.client.upload_url(request)
            except BackendError as exc:
                return exc

    async def _store(self, item: _Fetched, grant: Grant) -> _Made | _Result:
        """PUT a new original once its thumbnail is made; bytes that do not decode are never
        stored. ``exists``: nothing to do.

        The thumbnail pool bounds the decoding; no upload slot is held meanwhile, so other
        images' PUTs go out while thumbnails are made.
        """
        try:
            if isinstance(grant, BackendError):
                raise _Skip("fell_back", str(grant))
            if grant.exists:
                return _Result(ref=item.ref, outcome="uploaded", existed=True)
            thumb, rendition = await self._thumbnail(item)
            if thumb is None:
                raise _Skip("failed", "does not decode as an image")
            async with self._gate:
                await self.client.put_object(grant, item.data)
        except BackendError as exc:
            return _skipped(item.ref.url, _Skip("fell_back", str(exc)))
        except _Skip as skip:
            return _skipped(item.ref.url, skip)
        request = UploadUrlRequest(
            key=thumb_key(item.request.sha1),
            size=len(thumb),
            sha1=sha1_hex(thumb),
            thumb_of=item.request.sha1,
        )
        result = _Result(ref=item.ref, outcome="uploaded")
        return _Made(result=result, thumb=thumb, request=request, rendition=rendition)

    async def _thumbnail(self, item: _Fetched) -> tuple[bytes | None, bool | None]:
        """The thumbnail, from the site's rendition when it stands in for the original, and
        whether it did (None: no rendition offered); an unfit rendition is logged."""
        if item.thumb_url is None:
            return await thumbnail(item.data, self.media.thumb_size), None
        try:
            async with self._rendition_gate:
                small = await download(self.http, item.thumb_url, self.media.max_image_bytes)
            made = await rendition_thumbnail(item.data, small, self.media.thumb_size)
            problem = made.problem
        except DownloadFailed as exc:
            made, problem = None, f"rendition {exc}"
        if made is not None and made.thumb is not None:
            return made.thumb, True
        log.info("image %s: thumbnail from the original: %s", item.ref.url, problem)
        return await thumbnail(item.data, self.media.thumb_size), False

    async def _put_thumb(self, item: _Made, grant: Grant) -> bool:
        """Upload the thumbnail; False (logged) when that failed, which never fails the image."""
        async with self._gate:
            try:
                if isinstance(grant, BackendError):
                    raise grant
                if not grant.exists:
                    await self.client.put_object(grant, item.thumb)
            except BackendError as exc:
                log.warning(
                    "image %s: thumbnail upload failed (%s); the backend will make it",
                    item.result.ref.url,
                    exc,
                )
                return False
        return True

    async def _download(self, url: str) -> bytes:
        """The image's bytes, at most ``media.max_image_bytes``; _Skip otherwise."""
        try:
            return await download(self.http, url, self.media.max_image_bytes)
        except DownloadFailed as exc:
            raise _Skip("failed", str(exc)) from None
