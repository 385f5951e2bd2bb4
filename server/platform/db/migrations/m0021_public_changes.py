"""0021: change counters for the public site's page cache, kept by triggers.

``public_changes`` holds two counters: ``content`` moves whenever something a public page
shows may have changed (a published article inserted, updated or deleted, or one becoming
or ceasing to be published; any brand change; an image of a published article added,
changed or removed), ``neighbours`` whenever a stored neighbour list changes. Pages are
cached per process under the counters they were rendered with, and every request reads
the counters (one primary-key read), so a change made by any process or any tool shows on
the next request. Triggers, not application code, move the counters: no writer (ingest,
moderation, a CLI, a hand-written UPDATE) can forget to.

Writes that cannot change a public page leave the counters alone: ingest inserting a
pending article and its images, embedding leases on images. On PostgreSQL, article and image
inserts and deletes are checked once per statement (transition tables), so a bulk ``COPY`` costs
one check, not one per row; updates of the shown columns are checked per row (a column
list rules out transition tables).
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute
from rk.server.platform.db.migration_steps import each_engine, sqlite_row_trigger

SQLITE_BUMP = (
    "UPDATE public_changes SET version = version + 1,"
    " changed_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE name = '{name}';"
)
PUBLISHED_IMAGE = (
    "EXISTS (SELECT 1 FROM articles WHERE id = {row}.article_id AND status = 'published')"
)
IMAGE_COLUMNS = "role, position, key, thumb_key, width, height, article_id"
SQLITE_TRIGGERS = {
    "articles_insert": ("AFTER INSERT ON articles", "NEW.status = 'published'", "content"),
    "articles_update": (
        "AFTER UPDATE ON articles",
        "OLD.status = 'published' OR NEW.status = 'published'",
        "content",
    ),
    "articles_delete": ("AFTER DELETE ON articles", "OLD.status = 'published'", "content"),
    "brands_insert": ("AFTER INSERT ON brands", "1", "content"),
    "brands_update": ("AFTER UPDATE ON brands", "1", "content"),
    "brands_delete": ("AFTER DELETE ON brands", "1", "content"),
    "images_insert": ("AFTER INSERT ON images", PUBLISHED_IMAGE.format(row="NEW"), "content"),
    "images_update": (
        f"AFTER UPDATE OF {IMAGE_COLUMNS} ON images",
        f"{PUBLISHED_IMAGE.format(row='OLD')} OR {PUBLISHED_IMAGE.format(row='NEW')}",
        "content",
    ),
    "images_delete": ("AFTER DELETE ON images", PUBLISHED_IMAGE.format(row="OLD"), "content"),
    "neighbors_insert": ("AFTER INSERT ON image_neighbors", "1", "neighbours"),
    "neighbors_update": ("AFTER UPDATE ON image_neighbors", "1", "neighbours"),
    "neighbors_delete": ("AFTER DELETE ON image_neighbors", "1", "neighbours"),
}
SQLITE = [
    sqlite_row_trigger(f"rk_public_{name}", event, when, SQLITE_BUMP.format(name=counter))
    for name, (event, when, counter) in SQLITE_TRIGGERS.items()
]
PG_BUMP_CONTENT_IF = """CREATE OR REPLACE FUNCTION {name}() RETURNS trigger AS $$
    BEGIN
      IF EXISTS ({rows}) THEN
        UPDATE public_changes SET version = version + 1,
          changed_at = extract(epoch FROM now())::bigint WHERE name = 'content';
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql"""
"""A trigger function that moves ``content`` when the query ``rows`` finds a row."""
PG_FUNCTIONS = [
    """CREATE OR REPLACE FUNCTION rk_public_bump() RETURNS trigger AS $$
    BEGIN
      UPDATE public_changes SET version = version + 1,
        changed_at = extract(epoch FROM now())::bigint WHERE name = TG_ARGV[0];
      RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    PG_BUMP_CONTENT_IF.format(
        name="rk_public_bump_image",
        rows="SELECT 1 FROM articles\n            WHERE id IN (NEW.article_id, OLD.article_id)"
        " AND status = 'published'",
    ),
    PG_BUMP_CONTENT_IF.format(
        name="rk_public_bump_articles",
        rows="SELECT 1 FROM changed_articles WHERE status = 'published'",
    ),
    PG_BUMP_CONTENT_IF.format(
        name="rk_public_bump_images",
        rows="SELECT 1 FROM changed_images i JOIN articles a ON a.id = i.article_id"
        "\n            WHERE a.status = 'published'",
    ),
]
PG_TRIGGERS = [
    "CREATE TRIGGER rk_public_articles_insert AFTER INSERT ON articles"
    " REFERENCING NEW TABLE AS changed_articles FOR EACH STATEMENT"
    " EXECUTE FUNCTION rk_public_bump_articles()",
    "CREATE TRIGGER rk_public_articles_update AFTER UPDATE ON articles FOR EACH ROW"
    " WHEN (OLD.status = 'published' OR NEW.status = 'published')"
    " EXECUTE FUNCTION rk_public_bump('content')",
    "CREATE TRIGGER rk_public_articles_delete AFTER DELETE ON articles"
    " REFERENCING OLD TABLE AS changed_articles FOR EACH STATEMENT"
    " EXECUTE FUNCTION rk_public_bump_articles()",
    "CREATE TRIGGER rk_public_brands AFTER INSERT OR UPDATE OR DELETE ON brands"
    " FOR EACH STATEMENT EXECUTE FUNCTION rk_public_bump('content')",
    "CREATE TRIGGER rk_public_images_insert AFTER INSERT ON images"
    " REFERENCING NEW TABLE AS changed_images FOR EACH STATEMENT"
    " EXECUTE FUNCTION rk_public_bump_images()",
    "CREATE TRIGGER rk_public_images_delete AFTER DELETE ON images"
    " REFERENCING OLD TABLE AS changed_images FOR EACH STATEMENT"
    " EXECUTE FUNCTION rk_public_bump_images()",
    f"CREATE TRIGGER rk_public_images_update AFTER UPDATE OF {IMAGE_COLUMNS} ON images"
    " FOR EACH ROW EXECUTE FUNCTION rk_public_bump_image()",
    "CREATE TRIGGER rk_public_neighbors AFTER INSERT OR UPDATE OR DELETE ON image_neighbors"
    " FOR EACH STATEMENT EXECUTE FUNCTION rk_public_bump('neighbours')",
]


async def forwards(engine: Engine) -> None:
    """The counters table, its two rows, and the triggers of the engine."""
    columns = {
        "name": Varchar(length=32, unique=True),
        "version": BigInt(default=0),
        "changed_at": BigInt(default=0),
    }
    await create_table(engine, "public_changes", columns)
    await execute(
        engine,
        "INSERT INTO public_changes (name, version, changed_at)"
        " VALUES ('content', 0, 0), ('neighbours', 0, 0)",
    )
    await each_engine(engine, SQLITE, [*PG_FUNCTIONS, *PG_TRIGGERS])
