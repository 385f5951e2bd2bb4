"""Content-addressed object keys: the same bytes always land on the same key."""

from __future__ import annotations

import hashlib
import re
from typing import Literal

from rk.core.api.errors import InvalidKey

Kind = Literal["runway", "street"]
KINDS: tuple[Kind, ...] = ("runway", "street")

CONTENT_KEY = re.compile(r"^(runway|street)/([0-9a-f]{40})\.jpg\Z")
THUMB_KEY = re.compile(r"^thumb/([0-9a-f]{40})\.jpg\Z")
r"""``\Z``, not ``$``: ``$`` also matches before a trailing newline (``…jpg\n``)."""


class Hashed(bytes):
    """Bytes that carry their SHA-1, computed once when made: ``sha1_hex`` reads it back.

    An ingest hashes a body to name its key and the storage hashes it again to check the
    key; the bytes are immutable, so the first hash can answer the second.
    """

    sha1: str

    def __new__(cls, data: bytes) -> Hashed:
        """``data``'s bytes and their SHA-1."""
        made = super().__new__(cls, data)
        made.sha1 = hashlib.sha1(data).hexdigest()
        return made


def sha1_hex(data: bytes) -> str:
    """The lowercase hex SHA-1 of ``data`` (read from ``Hashed`` bytes, not recomputed)."""
    if type(data) is Hashed:
        return data.sha1
    return hashlib.sha1(data).hexdigest()


def content_key(kind: Kind, sha1: str) -> str:
    """``runway/<sha1>.jpg`` or ``street/<sha1>.jpg``."""
    key = f"{kind}/{sha1}.jpg"
    parse_content_key(key)
    return key


def thumb_key(sha1: str) -> str:
    """``thumb/<sha1 of the original>.jpg``."""
    return f"thumb/{sha1}.jpg"


def parse_content_key(key: str) -> tuple[Kind, str]:
    """``(kind, sha1)`` of a content key; InvalidKey for anything else."""
    match = CONTENT_KEY.match(key)
    if not match:
        raise InvalidKey(
            f"key {key[:80]!r} is not content-addressed (expected runway/<40 hex>.jpg "
            "or street/<40 hex>.jpg)"
        )
    kind: Kind = "runway" if match.group(1) == "runway" else "street"
    return kind, match.group(2)


def is_media_key(key: str) -> bool:
    """True for content keys and thumbnail keys: the only keys rk ever stores."""
    return bool(CONTENT_KEY.match(key) or THUMB_KEY.match(key))
