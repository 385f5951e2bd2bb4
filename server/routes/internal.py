"""The signed spider API under ``/admin/internal``: ingest, upload-url, brand lookup/ensure.

Bodies are decoded strictly into the wire Structs (``rk.server.requests``); every request
is HMAC-checked by the router's guard (``rk.server.auth``) before a handler runs.
"""

from __future__ import annotations

import logging
import time
from typing import Annotated

from litestar import Controller, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, Parameter

from rk.core.config import Settings
from rk.core.errors import InvalidKey
from rk.core.keys import THUMB_KEY, parse_content_key
from rk.core.storage import Storage
from rk.core.wire import (
    BrandEnsure,
    BrandInfo,
    IngestAccepted,
    ShowIngest,
    UploadUrl,
    UploadUrlRequest,
)
from rk.server.errors import ApiError, NotFound, Unavailable
from rk.server.services.brand_admin import BrandInputError
from rk.server.services.brands import brand_info
from rk.server.services.intake import ShowIntake
from rk.server.services.season_crawl import ensure_brand

log = logging.getLogger(__name__)
BrandRefParam = Annotated[
    str, Parameter(description="The brand's uid (as in a ShowIngest) or its numeric id")
]


class InternalController(Controller):
    """What spiders call: submit a show, get an upload URL, look up or ensure a brand."""

    path = "/"
    tags = ("internal",)

    @post("/ingest", status_code=202, summary="Queue a show for ingest")
    async def ingest(
        self,
        data: JSONBody[ShowIngest],
        intake: NamedDependency[ShowIntake],
    ) -> IngestAccepted:
        """Validate the show, resolve its brand and queue an ingest job; 202 with its id."""
        return IngestAccepted(job_id=await intake.submit(data))

    @post("/upload-url", status_code=200, summary="Presign a PUT for one content-addressed key")
    async def upload_url(
        self,
        data: JSONBody[UploadUrlRequest],
        storage: NamedDependency[Storage],
        settings: NamedDependency[Settings],
    ) -> UploadUrl:
        """A URL the spider can PUT exactly these bytes to, valid ``media.upload_url_ttl_s``.

        Content keys (``runway|street/<sha1>.jpg``) must name the body's sha1; a thumbnail
        key is ``thumb/<thumb_of>.jpg``. When storage already holds the key (of any size),
        the answer says ``exists`` and the spider PUTs nothing: objects are never replaced.
        """
        if data.thumb_of is None:
            _, sha1 = parse_content_key(data.key)
            if sha1 != data.sha1:
                raise ApiError(f"sha1 {data.sha1} does not match the key {data.key}")
        elif not THUMB_KEY.match(data.key):
            raise InvalidKey(f"key {data.key[:80]!r} is not a thumbnail key thumb/<40 hex>.jpg")
        limit = settings.media.max_image_bytes
        if data.size > limit:
            raise ApiError(f"size {data.size} is over the {limit}-byte image limit")
        try:
            existing = await storage.head(data.key)
            if existing is not None:
                return UploadUrl(url="", expires_at=int(time.time()), exists=True)
            ttl = settings.media.upload_url_ttl_s
            return await storage.presign_put(data.key, data.size, data.sha1, ttl)
        except OSError as exc:
            log.warning("storage failed on %s: %s", data.key, exc)
            raise Unavailable("storage unavailable, retry later") from None

    @get("/brands/{ref:str}", summary="One brand, by uid or id")
    async def brand(self, ref: BrandRefParam) -> BrandInfo:
        """The brand with this uid (or numeric id): id, uid, name and per-source slugs."""
        info = await brand_info(ref)
        if info is None:
            raise NotFound(f"no brand {ref[:64]!r}")
        return info

    @post("/brands", status_code=200, summary="Find a brand by slug or name, creating it")
    async def ensure_brand(self, data: JSONBody[BrandEnsure]) -> BrandInfo:
        """The brand with this slug on the source (else this name), created when missing.

        A spider crawling a whole season meets brands the archive does not have yet.
        """
        try:
            info, _ = await ensure_brand(data.name, data.source, data.slug)
        except BrandInputError as exc:
            raise ApiError(str(exc)) from None
        return info
