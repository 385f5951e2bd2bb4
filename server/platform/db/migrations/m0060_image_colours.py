"""0060: each image's garment palette (issue 30): ``image_colours``, one row per main colour.

A row is one colour of an image's palette (``rk.server.colour``): its ``rank`` (1: the
largest share), the nearest fashion colour ``name`` and the ΔE00 to it (``delta_e``), the
colour as ``hex`` and as CIELAB (``lab_l``, ``lab_a``, ``lab_b``, D65), its ``share`` of the
garment (a palette's shares sum to 1) and when it was measured. Rows go with their image
(``ON DELETE CASCADE``, declared in the table on both engines). Indexes:
``image_colours_image_rank`` (unique: one palette per image, and what the backfill's
"not measured yet" probe reads) and ``image_colours_name_share`` (search by colour
pre-filters on names, and the facet counts per name). Ids are BIGINT on PostgreSQL, as 0011
made them for every table whose rows accumulate.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Integer, Real, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute
from rk.server.platform.db.migration_steps import bigint_ids, table_ddl

IMAGE_KEY = 'FOREIGN KEY ("image_id") REFERENCES "images" ("id") ON DELETE CASCADE'


async def forwards(engine: Engine) -> None:
    """Create ``image_colours`` with its key to ``images`` and its two indexes."""
    columns = {
        "image_id": BigInt(),
        "rank": Integer(),
        "name": Varchar(length=32),
        "hex": Varchar(length=7),
        "lab_l": Real(),
        "lab_a": Real(),
        "lab_b": Real(),
        "share": Real(),
        "delta_e": Real(),
        "computed_at": BigInt(default=0),
    }
    await execute(engine, table_ddl(engine, "image_colours", columns, IMAGE_KEY))
    await bigint_ids(engine, "image_colours")
    await execute(
        engine,
        "CREATE UNIQUE INDEX image_colours_image_rank ON image_colours (image_id, rank)",
    )
    await execute(engine, "CREATE INDEX image_colours_name_share ON image_colours (name, share)")
