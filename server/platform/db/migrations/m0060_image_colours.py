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
from piccolo.table import create_table_class

from rk.server.platform.db.migrate import execute

IMAGE_KEY = 'FOREIGN KEY ("image_id") REFERENCES "images" ("id") ON DELETE CASCADE'


def _table_ddl(engine: Engine) -> str:
    """``CREATE TABLE image_colours`` as piccolo renders it for ``engine``, with the image key."""
    table = create_table_class(
        "ImageColoursFrozen",
        class_kwargs={"tablename": "image_colours", "db": engine},
        class_members={
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
        },
    )
    (ddl,) = table.create_table().ddl
    return f"{ddl.rstrip().removesuffix(')')}, {IMAGE_KEY})"


async def forwards(engine: Engine) -> None:
    """Create ``image_colours`` with its key to ``images`` and its two indexes."""
    await execute(engine, _table_ddl(engine))
    if engine.engine_type == "postgres":
        await execute(engine, "ALTER TABLE image_colours ALTER COLUMN id TYPE BIGINT")
        await execute(engine, "ALTER SEQUENCE image_colours_id_seq AS BIGINT")
    await execute(
        engine,
        "CREATE UNIQUE INDEX image_colours_image_rank ON image_colours (image_id, rank)",
    )
    await execute(engine, "CREATE INDEX image_colours_name_share ON image_colours (name, share)")
