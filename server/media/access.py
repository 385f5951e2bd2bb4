"""Which media keys the public may read: those a published, live article uses right now.

A content key (``runway|street/<sha1>.jpg``) can only be an image's ``key`` and a
thumbnail key (``thumb/<sha1>.jpg``) only its ``thumb_key``, so one statement on that
column's index, joined to the article by its primary key, answers it. ``/media`` asks
on every read (a revalidation included), so a takedown holds from the next request on.
"""

from __future__ import annotations

from rk.server.media.repository import used_by_published_article


async def published_key(key: str) -> bool:
    """True while an image of a published, not deleted article uses ``key`` (or its thumb)."""
    return await used_by_published_article(key)
