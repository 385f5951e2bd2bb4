"""0071: which vocabulary and model tagged each image, the tag decisions' audit, and tag
changes moving the public site's ``content`` counter (issue 30).

- ``image_tag_runs``: one row per image (unique ``image_id``, ``ON DELETE CASCADE``) saying
  which ``model`` and ``vocabulary`` digest last computed its ``auto`` tags, also when none
  applied; an image whose row names another model or digest is tagged again. Index
  (model, vocabulary, image_id) finds those still to do.
- ``image_tag_audit``: each moderator's decision on a tag (confirm, remove, add): who, when,
  the tag's state before and after, through what (web or cli). No key to ``images``: the
  record outlives the image. Index (image_id, id).
- Triggers: any write to ``image_tags`` moves ``public_changes.content`` (per statement on
  PostgreSQL; per row of a published image on SQLite), so cached pages filtered or
  faceted by tag are rendered afresh.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute
from rk.server.platform.db.migration_steps import each_engine, sqlite_row_trigger, table_ddl

IMAGE_KEY = 'FOREIGN KEY ("image_id") REFERENCES "images" ("id") ON DELETE CASCADE'
PUBLISHED_TAG = (
    "EXISTS (SELECT 1 FROM images i JOIN articles a ON a.id = i.article_id"
    " WHERE i.id = {row}.image_id AND a.status = 'published')"
)
SQLITE_BUMP = (
    "UPDATE public_changes SET version = version + 1,"
    " changed_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE name = 'content';"
)
SQLITE_TRIGGERS = {
    "insert": ("AFTER INSERT ON image_tags", PUBLISHED_TAG.format(row="NEW")),
    "update": (
        "AFTER UPDATE ON image_tags",
        f"{PUBLISHED_TAG.format(row='OLD')} OR {PUBLISHED_TAG.format(row='NEW')}",
    ),
    "delete": ("AFTER DELETE ON image_tags", PUBLISHED_TAG.format(row="OLD")),
}
SQLITE = [
    sqlite_row_trigger(f"rk_public_image_tags_{name}", event, when, SQLITE_BUMP)
    for name, (event, when) in SQLITE_TRIGGERS.items()
]
PG_TRIGGER = (
    "CREATE TRIGGER rk_public_image_tags AFTER INSERT OR UPDATE OR DELETE ON image_tags"
    " FOR EACH STATEMENT EXECUTE FUNCTION rk_public_bump('content')"
)


async def forwards(engine: Engine) -> None:
    """Create both tables and their indexes, and the counter triggers of the engine."""
    runs = {
        "image_id": BigInt(),
        "model": Varchar(length=200, default=""),
        "vocabulary": Varchar(length=64, default=""),
        "computed_at": BigInt(default=0),
    }
    await execute(engine, table_ddl(engine, "image_tag_runs", runs, IMAGE_KEY))
    await execute(engine, "CREATE UNIQUE INDEX image_tag_runs_image ON image_tag_runs (image_id)")
    await execute(
        engine,
        "CREATE INDEX image_tag_runs_model ON image_tag_runs (model, vocabulary, image_id)",
    )
    await create_table(
        engine,
        "image_tag_audit",
        {
            "image_id": BigInt(),
            "tag": Varchar(length=64),
            "old_state": Varchar(length=16, default=""),
            "new_state": Varchar(length=16, default=""),
            "user_id": BigInt(default=0),
            "actor": Varchar(length=64, default=""),
            "via": Varchar(length=16, default=""),
            "at": BigInt(default=0),
        },
    )
    await execute(engine, "CREATE INDEX image_tag_audit_image ON image_tag_audit (image_id, id)")
    await each_engine(engine, SQLITE, [PG_TRIGGER])
