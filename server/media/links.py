"""The storage as pages see it: ``url_for`` links a key through one checked route of rk.

A page never hands out a URL that skips rk's checks: not a presigned GET or a public
bucket URL (either outlives a takedown), not a signed read. Public pages and the public
API link ``{backend}/media/<key>``, which serves a key only while a published article
uses it; the console links ``/admin/media/<key>``, which serves any stored key to a
signed-in session. Everything else is the app's storage itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar

from rk.core.api.storage import ObjectInfo, Storage
from rk.core.api.wire import UploadUrl
from rk.core.media_urls import media_url

CONSOLE_MEDIA_PATH = "/admin/media/"


class LinkedStorage:
    """``storage`` whose ``url_for`` answers ``base + key`` whatever the store could sign."""

    schemes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, storage: Storage, base: str) -> None:
        self.storage = storage
        self.base = base

    async def put(
        self, key: str, data: bytes, content_type: str = "image/jpeg", *, sha1: str | None = None
    ) -> None:
        """The storage's ``put``."""
        await self.storage.put(key, data, content_type, sha1=sha1)

    async def create(
        self, key: str, data: bytes, content_type: str = "image/jpeg", *, sha1: str | None = None
    ) -> bool:
        """The storage's ``create``."""
        return await self.storage.create(key, data, content_type, sha1=sha1)

    async def get(self, key: str) -> bytes:
        """The storage's ``get``."""
        return await self.storage.get(key)

    def list_objects(self, prefix: str = "") -> AsyncIterator[ObjectInfo]:
        """The storage's ``list_objects``."""
        return self.storage.list_objects(prefix)

    async def head(self, key: str) -> ObjectInfo | None:
        """The storage's ``head``."""
        return await self.storage.head(key)

    async def delete(self, key: str) -> None:
        """The storage's ``delete``."""
        await self.storage.delete(key)

    async def presign_put(self, key: str, size: int, sha1: str, expires_s: int) -> UploadUrl:
        """The storage's ``presign_put``."""
        return await self.storage.presign_put(key, size, sha1, expires_s)

    async def url_for(self, key: str, expires_s: int) -> str:
        """``base + key``: the checked route of rk that serves it (``expires_s`` is unused)."""
        return f"{self.base}{key}"


def public_storage(storage: Storage, backend_url: str) -> Storage:
    """The storage as public pages and the public API link it: ``{backend}/media/<key>``."""
    return LinkedStorage(storage, media_url(backend_url, ""))


def console_storage(storage: Storage) -> Storage:
    """The storage as the console links it: ``/admin/media/<key>``."""
    return LinkedStorage(storage, CONSOLE_MEDIA_PATH)
