"""0058: ``search_photos``, the photos visitors searched with, kept a while by their SHA-1.

A search by photo answers with a redirect to ``/search?photo=<sha1>``, a page that can be
reloaded and shared: the photo (re-encoded, bounded in size) and the vector its search
used live here until ``expires_at``, then are deleted by the next search that stores or
asks for one (``rk.server.site.photo_search``).
"""

from __future__ import annotations

from piccolo.columns import BigInt, Bytea, Integer, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute


async def forwards(engine: Engine) -> None:
    """Create ``search_photos`` and its expiry index."""
    await create_table(
        engine,
        "search_photos",
        {
            "sha1": Varchar(length=40, unique=True),
            "data": Bytea(),
            "width": Integer(default=0),
            "height": Integer(default=0),
            "model": Varchar(length=128, default=""),
            "vector": Bytea(),
            "created_at": BigInt(default=0),
            "expires_at": BigInt(default=0),
        },
    )
    await execute(engine, "CREATE INDEX search_photos_expires_at ON search_photos (expires_at)")
