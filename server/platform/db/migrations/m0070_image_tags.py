"""0070: zero-shot tags per image (issue 30): ``image_tags``, one row per (image, tag).

A row is one tag of an image's garments, patterns, materials, silhouettes or necklines:
``tag`` is the vocabulary's name, ``score`` the model's margin-adjusted score (NULL for a
tag a moderator added by hand), ``state`` one of ``auto`` (the model's, replaced when the
vocabulary or the model changes), ``confirmed`` (a moderator kept it) or ``removed`` (a
moderator took it off: it stays off after recomputation and counts nowhere). ``model`` and
``vocabulary`` (a digest of the vocabulary file) say what computed an ``auto`` row. Rows go
with their image (``ON DELETE CASCADE``). Indexes: unique ``image_tags_image_tag`` (one row
per image and tag) and ``image_tags_tag_state`` (the facet, the filter and the trend counts
read by tag).
"""

from __future__ import annotations

from piccolo.columns import BigInt, Real, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute
from rk.server.platform.db.migration_steps import bigint_ids, table_ddl

IMAGE_KEY = 'FOREIGN KEY ("image_id") REFERENCES "images" ("id") ON DELETE CASCADE'


async def forwards(engine: Engine) -> None:
    """Create ``image_tags`` with its key to ``images`` and its two indexes."""
    columns = {
        "image_id": BigInt(),
        "tag": Varchar(length=64),
        "score": Real(null=True, default=None),
        "state": Varchar(length=16, default="auto"),
        "model": Varchar(length=200, default=""),
        "vocabulary": Varchar(length=64, default=""),
        "computed_at": BigInt(default=0),
    }
    await execute(engine, table_ddl(engine, "image_tags", columns, IMAGE_KEY))
    await bigint_ids(engine, "image_tags")
    await execute(engine, "CREATE UNIQUE INDEX image_tags_image_tag ON image_tags (image_id, tag)")
    await execute(engine, "CREATE INDEX image_tags_tag_state ON image_tags (tag, state)")
