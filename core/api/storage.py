"""The storage interface: put, get, head, delete and presign one object key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar, Protocol, runtime_checkable

from msgspec import Struct

from rk.core.api.wire import UploadUrl


class StorageContext(Struct, frozen=True, kw_only=True):
    """What a storage needs from the backend that constructs it.

    ``backend_url`` is where the backend's own ``/media`` routes are reachable (used by
    stores that cannot sign URLs themselves); ``secret`` signs those routes.
    """

    backend_url: str = "http://127.0.0.1:8092"
    secret: str = ""


class ObjectInfo(Struct, frozen=True, kw_only=True):
    """What a HEAD (or a listing) tells about a stored object; ``modified`` in unix seconds."""

    key: str
    size: int
    modified: int = 0


@runtime_checkable
class Storage(Protocol):
    """An object store addressed by a URL (``s3://bucket/prefix``, ``file:///path``, …)."""

    schemes: ClassVar[tuple[str, ...]]

    def __init__(self, url: str, context: StorageContext) -> None: ...

    async def put(
        self, key: str, data: bytes, content_type: str = "image/jpeg", *, sha1: str | None = None
    ) -> None:
        """Store ``data`` under ``key`` (replacing what is there).

        ``sha1``: the hex SHA-1 of exactly ``data``, when the caller has computed it already;
        the store checks a content key against it instead of hashing the bytes again.
        """
        ...

    async def create(
        self, key: str, data: bytes, content_type: str = "image/jpeg", *, sha1: str | None = None
    ) -> bool:
        """Store ``data`` under ``key`` only if nothing is there; False (nothing written) if so.

        Exclusive: of two concurrent creates exactly one writes. Objects are never replaced.
        ``sha1`` as for ``put``.
        """
        ...

    async def get(self, key: str) -> bytes:
        """The object's bytes; raises ``FileNotFoundError`` when it does not exist."""
        ...

    def list_objects(self, prefix: str = "") -> AsyncIterator[ObjectInfo]:
        """Every object whose key starts with ``prefix`` (any order), with size and mtime."""
        ...

    async def head(self, key: str) -> ObjectInfo | None:
        """The object's size, or None when it does not exist."""
        ...

    async def delete(self, key: str) -> None:
        """Delete the object; deleting a missing key is not an error."""
        ...

    async def presign_put(self, key: str, size: int, sha1: str, expires_s: int) -> UploadUrl:
        """A URL a spider can PUT exactly these bytes to, valid ``expires_s`` seconds.

        The URL only ever creates: a PUT to a key that exists by then writes nothing.
        """
        ...

    async def url_for(self, key: str, expires_s: int) -> str:
        """A URL a client can GET the object from (public, presigned, or a backend route)."""
        ...
