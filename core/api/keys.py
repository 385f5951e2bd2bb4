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
RENDITION_KEY = re.compile(r"^r/([1-9][0-9]{1,3})/([0-9a-f]{40})\.webp\Z")
"""``r/<width>/<sha1 of the original>.webp``: one rung of an image's rendition ladder.

Any width matches, not only today's ``RENDITION_WIDTHS``: a rung of an older ladder is
still a key rk stored, so the sweep and cleanup still know it."""
RENDITION_WIDTHS: tuple[int, ...] = (360, 560, 640, 800, 1200, 1600)
"""The ladder's widths (px): each stored image gets every one narrower than itself.

A browser takes the narrowest candidate that covers a tile's CSS width times its DPR, so
the rungs sit just above what phones at DPR 3 ask for: 360 for three columns (~114 CSS px
at 390 wide), 560 and 640 for two (175-195 CSS px on phones 390-430 wide), 800 for a
photo across a phone at DPR 2 (or Lighthouse's 1.75: 380 CSS px wants 665, which 640 falls
short of and 1200 overshoots by 2.2× the bytes), 1200 for it at DPR 3; 1600 for a large
screen."""


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


def rendition_key(width: int, sha1: str) -> str:
    """``r/<width>/<sha1 of the original>.webp``."""
    return f"r/{width}/{sha1}.webp"


def rendition_keys(sha1: str) -> list[str]:
    """The key of every rung the ladder may have for the original with this SHA-1."""
    return [rendition_key(width, sha1) for width in RENDITION_WIDTHS]


def rendition_originals(key: str) -> list[str] | None:
    """The content keys a rendition key may belong to (one per kind); None for any other key.

    A rendition is named by its original's SHA-1 alone, so it belongs to that original
    under whichever kind stores it.
    """
    match = RENDITION_KEY.match(key)
    if not match:
        return None
    return [content_key(kind, match.group(2)) for kind in KINDS]


def image_object_keys(key: str, thumb: str = "") -> list[str]:
    """Every object an image with original ``key`` and thumbnail ``thumb`` may have in storage:
    the original, the thumbnail, and each rung its rendition ladder may have."""
    match = CONTENT_KEY.match(key)
    rungs = rendition_keys(match.group(2)) if match else []
    return [k for k in (key, thumb, *rungs) if k]


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
    """True for content, thumbnail and rendition keys: the only keys rk ever stores."""
    return bool(CONTENT_KEY.match(key) or THUMB_KEY.match(key) or RENDITION_KEY.match(key))
