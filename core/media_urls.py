"""Signed upload URLs and public media URLs for stores served by the backend's ``/media`` routes.

Stores that cannot sign URLs themselves (``file://``, ``memory://``) hand spiders a
backend route instead: ``PUT {backend}/media/upload/<key>?size=&sha1=&expires=&sig=``.
``sig`` is a hex HMAC-SHA256 over the key, size, sha1 and expiry with the backend
secret, so a leaked URL can only ever write those exact bytes under that key, and only
until it expires. The store signs (``upload_url``) and the route verifies
(``verify_upload``); both live here so they cannot drift apart.

Reads come in two kinds. ``media_url`` is the public ``GET {backend}/media/<key>``, which
serves a key only while a published article uses it. ``read_url`` adds ``expires`` and a
``sig`` (HMAC over the key and expiry, another domain than uploads) for the backend's own
workers (the embed worker reads pending images): it reads any stored key until it expires.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping
from urllib.parse import urlencode

from msgspec import Struct

from rk.core.api.errors import ConfigError, InvalidKey, SignatureError
from rk.core.api.keys import CONTENT_KEY, RENDITION_KEY, is_media_key

UPLOAD_PATH = "/media/upload/"
MEDIA_PATH = "/media/"
_DOMAIN = "rk-media-upload-v1"
_READ_DOMAIN = "rk-media-read-v1"
_SHA1_HEX = frozenset("0123456789abcdef")


class UploadExpired(SignatureError):
    """A correctly signed upload URL whose expiry has passed: ask for a new one."""


class ReadExpired(SignatureError):
    """A correctly signed read URL whose expiry has passed."""


class UploadGrant(Struct, frozen=True, kw_only=True):
    """What a verified upload URL allows: exactly ``size`` bytes hashing to ``sha1``."""

    key: str
    size: int
    sha1: str
    expires: int


def check_upload_target(key: str, size: int, sha1: str) -> None:
    """Raise InvalidKey unless ``key`` is a media key that these bytes may be stored under.

    A content key names the SHA-1 of its bytes, so the sha1 must be the key's own;
    a thumbnail key names the original's SHA-1, so any sha1 is allowed there. A rendition
    key is refused: the backend makes renditions from the original, nobody uploads one.
    """
    if RENDITION_KEY.match(key):
        raise InvalidKey(f"key {key[:80]!r} is a rendition: the backend makes those")
    if not is_media_key(key):
        raise InvalidKey(
            f"key {key[:80]!r} is not a media key (runway/<sha1>.jpg, street/<sha1>.jpg "
            "or thumb/<sha1>.jpg)"
        )
    if len(sha1) != 40 or not set(sha1) <= _SHA1_HEX:
        raise InvalidKey(f"sha1 {sha1[:80]!r} is not 40 lowercase hex digits")
    if size < 1:
        raise InvalidKey(f"size must be at least 1 byte, got {size}")
    match = CONTENT_KEY.match(key)
    if match and match.group(2) != sha1:
        raise InvalidKey(f"sha1 {sha1} does not match the content key {key}")


def upload_signature(secret: str, key: str, size: int, sha1: str, expires: int) -> str:
    """Hex HMAC-SHA256 binding key, size, sha1 and expiry; ConfigError without a secret."""
    if not secret:
        raise ConfigError("server.secret is empty: media upload URLs cannot be signed")
    message = "\n".join([_DOMAIN, key, str(size), sha1, str(expires)]).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def upload_url(backend_url: str, secret: str, key: str, size: int, sha1: str, expires: int) -> str:
    """The signed ``PUT`` URL for one upload, valid until unix time ``expires``."""
    check_upload_target(key, size, sha1)
    query = urlencode(
        {
            "size": size,
            "sha1": sha1,
            "expires": expires,
            "sig": upload_signature(secret, key, size, sha1, expires),
        }
    )
    return f"{backend_url.rstrip('/')}{UPLOAD_PATH}{key}?{query}"


def media_url(backend_url: str, key: str) -> str:
    """The backend's public ``GET`` URL for a stored media key."""
    return f"{backend_url.rstrip('/')}{MEDIA_PATH}{key}"


def read_signature(secret: str, key: str, expires: int) -> str:
    """Hex HMAC-SHA256 binding a read of ``key`` to its expiry; ConfigError without a secret."""
    if not secret:
        raise ConfigError("server.secret is empty: media read URLs cannot be signed")
    message = "\n".join([_READ_DOMAIN, key, str(expires)]).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def read_url(backend_url: str, secret: str, key: str, expires: int) -> str:
    """The signed ``GET`` URL that reads ``key`` (published or not) until unix time ``expires``."""
    if not is_media_key(key):
        raise InvalidKey(f"key {key[:80]!r} is not a media key")
    query = urlencode({"expires": expires, "sig": read_signature(secret, key, expires)})
    return f"{media_url(backend_url, key)}?{query}"


def verify_read(secret: str, key: str, query: Mapping[str, str], *, now: int | None = None) -> int:
    """The expiry of a correctly signed, unexpired read URL for ``key``.

    Raises:
        SignatureError: ``expires`` is missing or the signature does not match.
        ReadExpired: the URL is authentic but its expiry has passed.
    """
    expires = _int_param(query, "expires")
    expected = read_signature(secret, key, expires)
    if not hmac.compare_digest(expected.encode(), query.get("sig", "").strip().lower().encode()):
        raise SignatureError("read URL signature does not match (tampered or another secret)")
    current = int(time.time()) if now is None else now
    if current > expires:
        raise ReadExpired(f"read URL expired {current - expires} s ago; ask for a new one")
    return expires


def _int_param(query: Mapping[str, str], name: str) -> int:
    raw = query.get(name)
    if raw is None or not raw.isdigit() or len(raw) > 16:
        raise SignatureError(f"URL has no valid {name!r} parameter")
    return int(raw)


def verify_upload(
    secret: str, key: str, query: Mapping[str, str], *, now: int | None = None
) -> UploadGrant:
    """The grant of a correctly signed, unexpired upload URL for ``key``.

    Raises:
        InvalidKey: the key is not a media key, or the sha1 contradicts a content key.
        SignatureError: a parameter is missing or the signature does not match.
        UploadExpired: the URL is authentic but its expiry has passed.
    """
    size = _int_param(query, "size")
    expires = _int_param(query, "expires")
    sha1 = query.get("sha1", "")
    check_upload_target(key, size, sha1)
    sig = query.get("sig", "")
    expected = upload_signature(secret, key, size, sha1, expires)
    if not hmac.compare_digest(expected.encode(), sig.strip().lower().encode()):
        raise SignatureError("upload URL signature does not match (tampered or another secret)")
    current = int(time.time()) if now is None else now
    if current > expires:
        raise UploadExpired(f"upload URL expired {current - expires} s ago; ask for a new one")
    return UploadGrant(key=key, size=size, sha1=sha1, expires=expires)
