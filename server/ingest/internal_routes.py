"""The signed spider API under ``/admin/internal``: upload-url, brand lookup/ensure.

Bodies are decoded strictly into the wire Structs (``rk.server.platform.http.requests``); every
request is HMAC-checked by the router's guard (``rk.server.platform.signing.hmac_guard``) before a
handler runs.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody, Parameter

from rk.core.api.storage import Storage
from rk.core.api.wire import (
    BrandEnsure,
    BrandInfo,
    UploadUrl,
    UploadUrlRequest,
    UploadUrls,
    UploadUrlsRequest,
)
from rk.core.config import Settings
from rk.server.brands import BrandInputError, brand_info
from rk.server.crawl import ensure_brand
from rk.server.media import grant_many, grant_one
from rk.server.platform.http.errors import ApiError, NotFound

BrandRefParam = Annotated[
    str, Parameter(description="The brand's uid (as in a ShowIngest) or its numeric id")
]


class InternalController(Controller):
    """What spiders call: get upload URLs, look up or ensure a brand (ingest: ``routes.ingest``)."""

    path = "/"
    tags = ("internal",)

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
        return await grant_one(storage, settings, data)

    @post("/upload-urls", status_code=200, summary="Presign PUTs for many keys at once")
    async def upload_urls(
        self,
        data: JSONBody[UploadUrlsRequest],
        storage: NamedDependency[Storage],
        settings: NamedDependency[Settings],
    ) -> UploadUrls:
        """``upload-url`` for a show's images in one round trip, answers in request order.

        Keys the archive already holds are ``exists`` from one query; the others are
        asked of storage. Any request that ``upload-url`` would refuse refuses them all.
        """
        return UploadUrls(uploads=await grant_many(storage, settings, data.uploads))

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
