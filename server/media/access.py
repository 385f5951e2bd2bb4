"""Which media keys the public may read: those a published, live article uses right now.

A content key (``runway|street/<sha1>.jpg``) can only be an image's ``key`` and a
thumbnail key (``thumb/<sha1>.jpg``) only its ``thumb_key``, so one statement on that
column's index, joined to the article by its primary key, answers it. ``/media`` asks
on every read (a revalidation included), so a takedown holds from the next request on.
"""

from __future__ import annotations

from piccolo.querystring import QueryString

from rk.core.keys import THUMB_KEY
from rk.server.platform.db.tables import Image
from rk.server.similarity import PUBLISHED

USED_BY_PUBLISHED = (
    "SELECT 1 AS hit FROM images i JOIN articles a ON a.id = i.article_id"
    " WHERE i.{column} = {{}} AND {published} LIMIT 1"
)
QUERIES = {
    column: USED_BY_PUBLISHED.format(column=column, published=PUBLISHED)
    for column in ("key", "thumb_key")
}


def query_for(key: str) -> str:
    """The statement that finds a published use of ``key`` (a thumbnail or a content key)."""
    return QUERIES["thumb_key" if THUMB_KEY.match(key) else "key"]


async def published_key(key: str) -> bool:
    """True while an image of a published, not deleted article uses ``key`` (or its thumb)."""
    rows = await Image._meta.db.run_querystring(QueryString(query_for(key), key))
    return bool(rows)
