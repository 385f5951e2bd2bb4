"""0068: the rendition ladder stored for each original (issue 29): ``image_renditions``.

One row per original (``key``, unique: its content key ``runway|street/<sha1>.jpg``): the
widths of the WebP rungs stored for it (``r/<width>/<sha1>.webp``), comma-separated,
narrowest first, ``""`` when no rung fits (the original is no wider than the narrowest, or
does not decode), and when they were made. An original without a row has no ladder yet
(``rk storage renditions`` gives it one). A row describes the bytes, not an image: every
image with that original shares it, so it has no foreign key to ``images``, and the unique
key is the index every lookup (and the backfill's "not made yet" probe) reads.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table


async def forwards(engine: Engine) -> None:
    """Create ``image_renditions``."""
    await create_table(
        engine,
        "image_renditions",
        {
            "key": Varchar(length=64, unique=True),
            "widths": Varchar(length=64, default=""),
            "made_at": BigInt(default=0),
        },
    )
