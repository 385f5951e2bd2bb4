"""0032: ``public_facet_counts``, the home page's filter counts kept exact by triggers.

The home page's sidebar counts published shows per kind, year, season, city and brand, and
``/brands`` per brand. Counted afresh, each is a GROUP BY over every published article
(1.4 s for the first home page of 100,000 shows on SQLite). Here each (facet, value) holds
its count, ``('total', '')`` the number of published shows, and triggers on ``articles``
move them whenever a published, live article (``status = 'published' AND deleted_at = 0``)
is inserted or deleted, becomes or stops being one, or has a counted column changed.
Counts may drop to 0; readers skip those rows. Brands are counted by ``brand_id`` written as
text (the table holds every facet's values as text).

On SQLite the triggers run per row. On PostgreSQL inserts and deletes are counted once per
statement from transition tables (a bulk ``COPY`` costs one statement), updates per row (a
column list rules out transition tables). Each first locks the ``content`` row of
``public_changes``, which m0021's triggers update in the same transaction anyway, so
concurrent writers take their locks in one order and never deadlock on the counts.
"""

from __future__ import annotations

from piccolo.columns import BigInt, Varchar
from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import create_table, execute
from rk.server.platform.db.migration_steps import each_engine, sqlite_row_trigger

FACETS = {
    "total": "''",
    "kind": "{r}.kind",
    "year": "SUBSTR({r}.date, 1, 4)",
    "season": "{r}.season",
    "city": "{r}.city",
    "brand": "CAST({r}.brand_id AS VARCHAR(200))",
}
"""Each facet's value for an article row ``{r}``."""
LIVE = "{r}.status = 'published' AND {r}.deleted_at = 0"
COUNTED = "status, deleted_at, kind, date, season, city, brand_id"
UPSERT = (
    "INSERT INTO public_facet_counts (facet, value, n)"
    " SELECT facet, value, SUM(d) FROM ({deltas}) AS deltas WHERE true"
    " GROUP BY facet, value HAVING SUM(d) <> 0 ORDER BY facet, value"
    " ON CONFLICT (facet, value) DO UPDATE SET n = public_facet_counts.n + excluded.n"
)
"""Add the ``d`` of each (facet, value) of ``{deltas}`` (locks taken in key order)."""
LOCK = "PERFORM 1 FROM public_changes WHERE name = 'content' FOR UPDATE;"


def row_deltas(row: str, sign: str) -> str:
    """One delta row per facet of the article row ``row`` (``NEW``/``OLD``), each ``sign``."""
    return " UNION ALL ".join(
        f"SELECT '{facet}' AS facet, {expr.format(r=row)} AS value, {sign} AS d"
        for facet, expr in FACETS.items()
    )


def table_deltas(table: str, sign: str) -> str:
    """The delta rows of every live article in ``table`` (alias ``a``), each ``sign``."""
    return " UNION ALL ".join(
        f"SELECT '{facet}' AS facet, {expr.format(r='a')} AS value, {sign} AS d"
        f" FROM {table} a WHERE {LIVE.format(r='a')}"
        for facet, expr in FACETS.items()
    )


def live(row: str) -> str:
    """1 when the article row ``row`` is counted, else 0."""
    return f"(CASE WHEN {LIVE.format(r=row)} THEN 1 ELSE 0 END)"


UPDATE_DELTAS = " UNION ALL ".join(
    (row_deltas("OLD", "-" + live("OLD")), row_deltas("NEW", live("NEW")))
)
"""An update: the old row's values uncounted if it was counted, the new one's counted if it is."""
SQLITE_TRIGGERS = {
    "insert": ("AFTER INSERT ON articles", LIVE.format(r="NEW"), row_deltas("NEW", "1")),
    "delete": ("AFTER DELETE ON articles", LIVE.format(r="OLD"), row_deltas("OLD", "-1")),
    "update": (
        f"AFTER UPDATE OF {COUNTED} ON articles",
        f"({LIVE.format(r='OLD')}) OR ({LIVE.format(r='NEW')})",
        UPDATE_DELTAS,
    ),
}
SQLITE = [
    sqlite_row_trigger(f"rk_facet_counts_{name}", event, when, f"{UPSERT.format(deltas=deltas)};")
    for name, (event, when, deltas) in SQLITE_TRIGGERS.items()
]
PG_FUNCTIONS = [
    f"""CREATE OR REPLACE FUNCTION rk_facet_counts_statement() RETURNS trigger AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        IF EXISTS (SELECT 1 FROM new_articles a WHERE {LIVE.format(r="a")}) THEN
          {LOCK}
          {UPSERT.format(deltas=table_deltas("new_articles", "1"))};
        END IF;
      ELSIF EXISTS (SELECT 1 FROM old_articles a WHERE {LIVE.format(r="a")}) THEN
        {LOCK}
        {UPSERT.format(deltas=table_deltas("old_articles", "-1"))};
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    f"""CREATE OR REPLACE FUNCTION rk_facet_counts_row() RETURNS trigger AS $$
    BEGIN
      {LOCK}
      {UPSERT.format(deltas=UPDATE_DELTAS)};
      RETURN NULL;
    END $$ LANGUAGE plpgsql""",
]
PG_TRIGGERS = [
    "CREATE TRIGGER rk_facet_counts_insert AFTER INSERT ON articles"
    " REFERENCING NEW TABLE AS new_articles FOR EACH STATEMENT"
    " EXECUTE FUNCTION rk_facet_counts_statement()",
    "CREATE TRIGGER rk_facet_counts_delete AFTER DELETE ON articles"
    " REFERENCING OLD TABLE AS old_articles FOR EACH STATEMENT"
    " EXECUTE FUNCTION rk_facet_counts_statement()",
    f"CREATE TRIGGER rk_facet_counts_update AFTER UPDATE OF {COUNTED} ON articles FOR EACH ROW"
    f" WHEN (({LIVE.format(r='OLD')}) OR ({LIVE.format(r='NEW')}))"
    " EXECUTE FUNCTION rk_facet_counts_row()",
]


async def forwards(engine: Engine) -> None:
    """The counts table, filled from the published articles, and the engine's triggers."""
    columns = {
        "facet": Varchar(length=16),
        "value": Varchar(length=200),
        "n": BigInt(default=0),
    }
    await create_table(engine, "public_facet_counts", columns)
    await execute(
        engine,
        "CREATE UNIQUE INDEX public_facet_counts_key ON public_facet_counts (facet, value)",
    )
    await execute(engine, UPSERT.format(deltas=table_deltas("articles", "1")))
    await each_engine(engine, SQLITE, [*PG_FUNCTIONS, *PG_TRIGGERS])
