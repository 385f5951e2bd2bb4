"""The rendition ladder of an image being stored: kept when storage holds it, else made.

The backend makes an image's renditions when it stores the image (``rk.server.media
.store_ladder``), off the event loop and never on a request's path. An original whose
ladder is recorded already is not decoded again while storage holds every rung the record
lists: a re-crawl of a known photo costs a few HEADs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rk.core.api.storage import Storage
from rk.server.media import ladder_stored, recorded_ladder, store_ladder


async def ensure_ladder(
    storage: Storage,
    key: str,
    load: Callable[[], Awaitable[bytes]],
    before_write: Callable[[str], None],
) -> None:
    """See that original ``key`` has its ladder in storage, recorded; ``load()`` gives its
    bytes when they are needed, ``before_write`` hears each rung key before it is written."""
    known = await recorded_ladder(key)
    if known is None or not await ladder_stored(storage, key, known):
        await store_ladder(storage, key, await load(), before_write)
