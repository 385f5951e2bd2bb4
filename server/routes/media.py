"""The backend's ``/media`` routes, for stores that cannot sign or serve URLs themselves.

``PUT /media/upload/<key>?size=&sha1=&expires=&sig=`` accepts the one body a signed URL
(``rk.core.media_urls``) allows: the signed size, hashing to the signed sha1, before
expiry; only then is it created through the Storage, exclusively: an object that exists
is never replaced (the answer says ``created: false``).
``GET /media/<key>`` serves a stored object with immutable caching headers (keys are
content addressed and objects never replaced, so an object never changes under its key),
``X-Content-Type-Options: nosniff``, and the content type its bytes decode as
(``application/octet-stream`` when they are no image): never a type taken on trust.

Dependencies the app must provide: ``storage`` (the ``rk.core.storage.Storage``
instance) and ``secret`` (the ``str`` that signs upload URLs, the same one given to the
storage as ``StorageContext.secret``).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Annotated, Any

from litestar import Controller, MediaType, Request, Response, get, put
from litestar.di import NamedDependency
from litestar.params import Parameter
from msgspec import Struct

from rk.core.errors import ConfigError, InvalidKey, SignatureError
from rk.core.keys import is_media_key
from rk.core.media_urls import UploadExpired, verify_upload
from rk.core.storage import Storage
from rk.core.wire import ErrorBody
from rk.server.errors import one_line
from rk.server.services.thumb_check import image_info

log = logging.getLogger(__name__)
CACHE_CONTROL = "public, max-age=31536000, immutable"
OCTET_STREAM = "application/octet-stream"
KeyParam = Annotated[str, Parameter(description="A media key such as runway/<sha1>.jpg")]


class MediaStored(Struct, frozen=True, kw_only=True):
    """Answer to an upload; ``created`` False: the key existed and nothing was written."""

    key: str
    size: int
    created: bool


def _error(status: int, message: str) -> Response[Any]:
    return Response(
        ErrorBody(error=one_line(message)), status_code=status, media_type=MediaType.JSON
    )


def _etag(key: str) -> str:
    """The sha1 the key names, quoted: stable because an object never changes under its key."""
    return f'"{key.rsplit("/", 1)[-1].removesuffix(".jpg")}"'


async def _read_body(request: Request[Any, Any, Any], size: int) -> bytes | None:
    """The body when it is at most ``size`` bytes; None as soon as it grows past that."""
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > size:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class MediaController(Controller):
    """Signed uploads into, and cached downloads from, the configured storage."""

    path = "/media"

    @put("/upload/{key:path}", request_max_body_size=None, status_code=201)
    async def upload(
        self,
        request: Request[Any, Any, Any],
        key: KeyParam,
        storage: NamedDependency[Storage],
        secret: NamedDependency[str],
    ) -> Response[Any]:
        """Store the body under ``key`` if the URL's signature, size and sha1 all agree."""
        key = key.lstrip("/")
        if not is_media_key(key):
            return _error(422, f"key {key[:80]!r} is not a media key")
        try:
            grant = verify_upload(secret, key, dict(request.query_params))
        except InvalidKey as exc:
            return _error(422, str(exc))
        except UploadExpired as exc:
            return _error(410, str(exc))
        except SignatureError as exc:
            return _error(403, str(exc))
        except ConfigError as exc:
            return _error(503, str(exc))
        declared = request.headers.get("content-length")
        if declared is not None and declared != str(grant.size):
            return _error(422, f"body is {declared} bytes but the URL allows {grant.size}")
        body = await _read_body(request, grant.size)
        if body is None or len(body) != grant.size:
            return _error(422, f"body size differs from the {grant.size} bytes the URL allows")
        if hashlib.sha1(body).hexdigest() != grant.sha1:
            return _error(422, f"body sha1 differs from the {grant.sha1} the URL allows")
        try:
            created = await storage.create(key, body)
        except OSError as exc:
            log.warning("storage failed on %s: %s", key, exc)
            return _error(503, "storage unavailable, retry later")
        stored = MediaStored(key=key, size=grant.size, created=created)
        return Response(stored, status_code=201 if created else 200)

    @get("/{key:path}")
    async def download(
        self, request: Request[Any, Any, Any], key: KeyParam, storage: NamedDependency[Storage]
    ) -> Response[Any]:
        """The object's bytes, typed by what they are, cached for good; 304 on a matching ETag."""
        key = key.lstrip("/")
        if not is_media_key(key):
            return _error(404, f"no media at {key[:80]!r}")
        etag = _etag(key)
        headers = {
            "Cache-Control": CACHE_CONTROL,
            "ETag": etag,
            "X-Content-Type-Options": "nosniff",
        }
        if request.headers.get("if-none-match") == etag:
            return Response(b"", status_code=304, headers=headers)
        try:
            data = await storage.get(key)
        except FileNotFoundError:
            return _error(404, f"no media at {key}")
        except OSError as exc:
            log.warning("storage failed on %s: %s", key, exc)
            return _error(503, "storage unavailable, retry later")
        info = image_info(data)
        return Response(data, media_type=info[2] if info else OCTET_STREAM, headers=headers)


def media_routes() -> list[type[Controller]]:
    """The handlers to mount; they need the ``storage`` and ``secret`` dependencies."""
    return [MediaController]
