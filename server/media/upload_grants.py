"""Upload URLs for spiders: check each request, answer ``exists`` for keys already stored.

One request (``upload-url``) asks storage with a HEAD. Many (``upload-urls``, a show's
images at once) ask the archive first, in one query: a key some image row holds is in
storage (rows are written after their objects), a thumbnail exists when the row of its
original names one. Only keys the archive does not know are asked of storage, with HEADs
that run side by side, so a re-crawl of an archived show costs one query and a first crawl
no more HEADs than one request per image did. An ``exists`` that storage no longer backs
is safe: ingest then finds the key missing and downloads the image from its URL.
"""

from __future__ import annotations

import asyncio
import logging
import time

from rk.core.api.errors import InvalidKey
from rk.core.api.keys import CONTENT_KEY, KINDS, THUMB_KEY, parse_content_key
from rk.core.api.storage import Storage
from rk.core.api.wire import UploadUrl, UploadUrlRequest
from rk.core.config import Settings
from rk.server.media.repository import images_with_keys
from rk.server.platform.http.errors import ApiError, Unavailable

HEADS_AT_ONCE = 16

log = logging.getLogger(__name__)


def check(request: UploadUrlRequest, max_bytes: int) -> None:
    """ApiError / InvalidKey unless these bytes may be uploaded under this key."""
    if request.thumb_of is None:
        _, sha1 = parse_content_key(request.key)
        if sha1 != request.sha1:
            raise ApiError(f"sha1 {request.sha1} does not match the key {request.key}")
    elif not THUMB_KEY.match(request.key):
        raise InvalidKey(f"key {request.key[:80]!r} is not a thumbnail key thumb/<40 hex>.jpg")
    if request.size > max_bytes:
        raise ApiError(f"size {request.size} is over the {max_bytes}-byte image limit")


def _existing() -> UploadUrl:
    return UploadUrl(url="", expires_at=int(time.time()), exists=True)


async def grant_one(storage: Storage, settings: Settings, request: UploadUrlRequest) -> UploadUrl:
    """``exists`` when storage holds the key (of any size: objects are never replaced), else a
    presigned PUT."""
    check(request, settings.media.max_image_bytes)
    try:
        existing = await storage.head(request.key)
        if existing is not None:
            return _existing()
        ttl = settings.media.upload_url_ttl_s
        return await storage.presign_put(request.key, request.size, request.sha1, ttl)
    except OSError as exc:
        log.warning("storage failed: %s", exc)
        raise Unavailable("storage unavailable, retry later") from None


async def archived(requests: list[UploadUrlRequest]) -> set[str]:
    """The requested keys the archive already holds, from one query on ``images.key``."""
    originals = {r.key for r in requests if r.thumb_of is None}
    thumbs = {r.thumb_of: r.key for r in requests if r.thumb_of is not None}
    lookup = set(originals) | {f"{kind}/{sha1}.jpg" for sha1 in thumbs for kind in KINDS}
    rows = await images_with_keys(sorted(lookup))
    found: set[str] = set()
    for row in rows:
        if row["key"] in originals:
            found.add(row["key"])
        match = CONTENT_KEY.match(row["key"])
        if match and row["thumb_key"] and thumbs.get(match.group(2)) == row["thumb_key"]:
            found.add(row["thumb_key"])
    return found


async def grant_many(
    storage: Storage, settings: Settings, requests: list[UploadUrlRequest]
) -> list[UploadUrl]:
    """One answer per request, in order: ``exists`` or a presigned PUT."""
    for index, request in enumerate(requests):
        try:
            check(request, settings.media.max_image_bytes)
        except (ApiError, InvalidKey) as exc:
            raise ApiError(f"uploads[{index}]: {exc}") from None
    known = await archived(requests)
    gate = asyncio.Semaphore(HEADS_AT_ONCE)
    ttl = settings.media.upload_url_ttl_s

    async def one(request: UploadUrlRequest) -> UploadUrl:
        if request.key in known:
            return _existing()
        async with gate:
            existing = await storage.head(request.key)
        if existing is not None:
            return _existing()
        return await storage.presign_put(request.key, request.size, request.sha1, ttl)

    try:
        return list(await asyncio.gather(*(one(request) for request in requests)))
    except OSError as exc:
        log.warning("storage failed: %s", exc)
        raise Unavailable("storage unavailable, retry later") from None
