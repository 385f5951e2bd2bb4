"""Which media keys the public may read: those a published, live article uses right now.

A content key (``runway|street/<sha1>.jpg``) can only be an image's ``key`` and a
thumbnail key (``thumb/<sha1>.jpg``) only its ``thumb_key``, so one statement on that
column's index, joined to the article by its primary key, answers it. A rendition
(``r/<width>/<sha1>.webp``) is readable exactly when its original is: the same statement
on ``key``, for the original under either kind. ``/media`` asks on every read (a
revalidation included), so a takedown holds from the next request on.
"""

from __future__ import annotations

from rk.server.media.repository import used_by_published_article


async def published_key(key: str) -> bool:
    """True while an image of a published, not deleted article uses ``key`` (as its original
    or thumbnail, or for a rendition its original)."""
    return await used_by_published_article(key)
