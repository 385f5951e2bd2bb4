"""The backend's ``/media`` routes, for stores that cannot sign or serve URLs themselves.

``PUT /media/upload/<key>?size=&sha1=&expires=&sig=`` accepts the one body a signed URL
(``rk.core.media_urls``) allows: the signed size, hashing to the signed sha1, before
expiry; only then is it created through the Storage, exclusively: an object that exists
is never replaced (the answer says ``created: false``).
``GET /media/<key>`` serves a stored object only while a published, live article uses
the key (``services.media_access``, asked on every request, a revalidation included);
anything else is the same 404 as a missing object, with ``Cache-Control: no-store``. A
served object may be kept ``media.public_max_age_s`` seconds and must then be revalidated
(its ETag, the sha1 its key names, makes that a 304): never ``immutable``, because any
published article can be taken down, and a takedown must reach every cache within that
time. ``GET /media/<key>?expires=&sig=`` (``rk.core.media_urls.read_url``) is the
backend's own signed read, for its workers: any stored key until it expires, ``private,
no-store``. Every answer has ``X-Content-Type-Options: nosniff`` and the content type the
bytes decode as (``application/octet-stream`` when they are no image): never a type taken
on trust.

Dependencies the app must provide: ``storage`` (the ``rk.core.api.storage.Storage``
instance), ``secret`` (the ``str`` that signs upload and read URLs, the same one given to
the storage as ``StorageContext.secret``) and ``settings``; public reads need the database.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, put
from litestar.di import NamedDependency, Provide
from litestar.params import Parameter
from msgspec import Struct

from rk.core.api.errors import ConfigError, InvalidKey, RkError, SignatureError
from rk.core.api.keys import is_media_key
from rk.core.api.storage import Storage
from rk.core.config import Settings
from rk.core.media_urls import ReadExpired, UploadExpired, verify_read, verify_upload
from rk.server.media.access import published_key
from rk.server.media.thumb_check import image_info
from rk.server.platform.http.errors import error_response

log = logging.getLogger(__name__)
NO_STORE = "no-store"
PRIVATE = "private, no-store"
OCTET_STREAM = "application/octet-stream"
KeyParam = Annotated[str, Parameter(description="A media key such as runway/<sha1>.jpg")]
REFUSALS: tuple[tuple[type[RkError], int], ...] = (
    (InvalidKey, 422),
    (UploadExpired, 410),
    (ReadExpired, 410),
    (SignatureError, 403),
    (ConfigError, 503),
)
"""The status of each way a signed URL can fail, most specific first (expiries are
SignatureErrors): a malformed grant 422, an expired one 410, a bad signature 403, no secret 503."""


@dataclass(frozen=True)
class MediaRequest:
    """What both ``/media`` handlers work with: the key the path names (leading slashes
    dropped), the app's ``storage``, the ``secret`` that signs upload and read URLs, and the
    ``settings``."""

    key: str
    storage: Storage
    secret: str
    settings: Settings


def media_request(
    key: KeyParam,
    storage: NamedDependency[Storage],
    secret: NamedDependency[str],
    settings: NamedDependency[Settings],
) -> MediaRequest:
    """The path's key and the app-level dependencies the handlers need, as one (``media``)."""
    return MediaRequest(key.lstrip("/"), storage, secret, settings)


Media = NamedDependency[MediaRequest]
"""The controller's ``media`` dependency, as its handlers declare it."""


class MediaStored(Struct, frozen=True, kw_only=True):
    """Answer to an upload; ``created`` False: the key existed and nothing was written."""

    key: str
    size: int
    created: bool


def error_answer(status: int, message: str) -> Response[Any]:
    """A one-line JSON error that no cache keeps (a 404 may be a 200 after a publish)."""
    return error_response(status, message, {"Cache-Control": NO_STORE})


def _refused(exc: RkError) -> Response[Any]:
    """The answer to a signed URL that does not hold: its status is the first match in REFUSALS."""
    status = next(status for kind, status in REFUSALS if isinstance(exc, kind))
    return error_answer(status, str(exc))


def _storage_unavailable(key: str, exc: OSError) -> Response[Any]:
    """A 503 for a storage that failed on ``key`` (the cause goes to the log only)."""
    log.warning("storage failed on %s: %s", key, exc)
    return error_answer(503, "storage unavailable, retry later")


def public_cache_control(max_age_s: int) -> str:
    """What a cache may do with a published key: keep it a while, then ask again."""
    return f"public, max-age={max(0, max_age_s)}, must-revalidate"


def _signed_read_refused(secret: str, key: str, query: dict[str, str]) -> Response[Any] | None:
    """None when ``query`` is a good signed read of ``key``, else the answer that refuses it."""
    try:
        verify_read(secret, key, query)
    except (SignatureError, ConfigError) as exc:
        return _refused(exc)
    return None


def _etag(key: str) -> str:
    """The key after its prefix, quoted: the sha1 it names (``640/<sha1>.webp`` for a
    rendition, whose rungs share their original's sha1); stable because an object never
    changes under its key."""
    return f'"{key.split("/", 1)[-1].removesuffix(".jpg")}"'


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


async def serve_object(
    request: Request[Any, Any, Any], storage: Storage, key: str, cache_control: str
) -> Response[Any]:
    """The stored bytes of media key ``key``, typed by what they are; 304 on its ETag."""
    etag = _etag(key)
    headers = {"Cache-Control": cache_control, "ETag": etag, "X-Content-Type-Options": "nosniff"}
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers=headers)
    try:
        data = await storage.get(key)
    except FileNotFoundError:
        return error_answer(404, f"no media at {key}")
    except OSError as exc:
        return _storage_unavailable(key, exc)
    info = image_info(data)
    return Response(data, media_type=info[2] if info else OCTET_STREAM, headers=headers)


class MediaController(Controller):
    """Signed uploads into, and cached downloads from, the configured storage."""

    path = "/media"
    dependencies = {"media": Provide(media_request, sync_to_thread=False)}

    @put("/upload/{key:path}", request_max_body_size=None, status_code=201)
    async def upload(self, request: Request[Any, Any, Any], media: Media) -> Response[Any]:
        """Store the body under ``key`` if the URL's signature, size and sha1 all agree."""
        key = media.key
        if not is_media_key(key):
            return error_answer(422, f"key {key[:80]!r} is not a media key")
        try:
            grant = verify_upload(media.secret, key, dict(request.query_params))
        except (InvalidKey, SignatureError, ConfigError) as exc:
            return _refused(exc)
        declared = request.headers.get("content-length")
        if declared is not None and declared != str(grant.size):
            return error_answer(422, f"body is {declared} bytes but the URL allows {grant.size}")
        body = await _read_body(request, grant.size)
        if body is None or len(body) != grant.size:
            return error_answer(
                422, f"body size differs from the {grant.size} bytes the URL allows"
            )
        if hashlib.sha1(body).hexdigest() != grant.sha1:
            return error_answer(422, f"body sha1 differs from the {grant.sha1} the URL allows")
        try:
            created = await media.storage.create(key, body, sha1=grant.sha1)
        except OSError as exc:
            return _storage_unavailable(key, exc)
        stored = MediaStored(key=key, size=grant.size, created=created)
        return Response(stored, status_code=201 if created else 200)

    @get("/{key:path}")
    async def download(self, request: Request[Any, Any, Any], media: Media) -> Response[Any]:
        """The bytes of a published key (or of any key, signed), typed by what they are."""
        key = media.key
        if not is_media_key(key):
            return error_answer(404, f"no media at {key[:80]!r}")
        query = dict(request.query_params)
        if "sig" in query or "expires" in query:
            refused = _signed_read_refused(media.secret, key, query)
            if refused is not None:
                return refused
            cache_control = PRIVATE
        elif await published_key(key):
            cache_control = public_cache_control(media.settings.media.public_max_age_s)
        else:
            return error_answer(404, f"no media at {key}")
        return await serve_object(request, media.storage, key, cache_control)


def media_routes() -> list[type[Controller]]:
    """The handlers to mount; they need the ``storage``, ``secret`` and ``settings`` deps."""
    return [MediaController]
