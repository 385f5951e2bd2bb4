"""0004: foreign keys between articles, images, embeddings, failures and neighbour rows.

``images.article_id`` → ``articles`` (articles are soft-deleted, so never cascades);
``image_embeddings``, ``image_embedding_failures`` and ``image_neighbors`` (both ends) →
``images`` with ``ON DELETE CASCADE``: re-ingesting a rejected article replaces its
images, and what hung off the old ones goes with them.

Existing rows are checked first: if any would violate a key, nothing changes and the
error names them (``MigrationRefused``). PostgreSQL adds constraints; SQLite cannot, so
each child table is rebuilt with its keys (images first, while nothing references it
yet), copying rows, indexes and triggers.
"""

from __future__ import annotations

import re

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.core.api.errors import RkError
from rk.server.platform.db.migrate import execute

SHOWN = 5
"""How many offending row ids the error names per reference."""


class MigrationRefused(RkError):
    """Existing rows would violate the keys; the message names them and the fix."""


FOREIGN_KEYS: list[tuple[str, str, str, str]] = [
    ("images", "article_id", "articles", ""),
    ("image_embeddings", "image_id", "images", " ON DELETE CASCADE"),
    ("image_embedding_failures", "image_id", "images", " ON DELETE CASCADE"),
    ("image_neighbors", "image_id", "images", " ON DELETE CASCADE"),
    ("image_neighbors", "neighbor_id", "images", " ON DELETE CASCADE"),
]
"""(child table, column, parent table, action), parents before their children."""


async def _rows(engine: Engine, sql: str) -> list[dict[str, object]]:
    return list(await engine.run_querystring(QueryString(sql)))


async def violations(engine: Engine) -> list[str]:
    """One phrase per reference existing rows break: ``images id 4, 9 refer to missing …``."""
    found = []
    for child, column, parent, _ in FOREIGN_KEYS:
        orphans = (
            f"FROM {child} c WHERE NOT EXISTS (SELECT 1 FROM {parent} p WHERE p.id = c.{column})"
        )
        (count,) = await _rows(engine, f"SELECT COUNT(*) AS n {orphans}")
        if not count["n"]:
            continue
        ids = await _rows(engine, f"SELECT c.id {orphans} ORDER BY c.id LIMIT {SHOWN}")
        shown = ", ".join(str(row["id"]) for row in ids)
        n = int(str(count["n"]))
        more = ", …" if n > SHOWN else ""
        rows = f"{n} row{'s' if n != 1 else ''}"
        found.append(f"{child} id {shown}{more} refer to missing {parent} ({column}, {rows})")
    return found


async def _rebuild_sqlite(engine: Engine, table: str, keys: list[str]) -> None:
    """Recreate ``table`` with ``keys`` added, keeping its rows, indexes and triggers."""
    (row,) = await _rows(
        engine, f"SELECT sql FROM sqlite_master WHERE type = 'table' AND name = '{table}'"
    )
    extras = await _rows(
        engine,
        "SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger')"
        f" AND tbl_name = '{table}' AND sql IS NOT NULL",
    )
    create = str(row["sql"]).rstrip().rstrip(")")
    create = re.sub(rf'^CREATE TABLE\s+"?{table}"?', f'CREATE TABLE "{table}_fk"', create)
    await execute(engine, f"{create}, {', '.join(keys)})")
    await execute(engine, f'INSERT INTO "{table}_fk" SELECT * FROM "{table}"')
    await execute(engine, f'DROP TABLE "{table}"')
    await execute(engine, f'ALTER TABLE "{table}_fk" RENAME TO "{table}"')
    for extra in extras:
        await execute(engine, str(extra["sql"]))


async def forwards(engine: Engine) -> None:
    """Check existing rows, then add the keys (and an index for the neighbour cascade)."""
    problems = await violations(engine)
    if problems:
        raise MigrationRefused(
            "cannot add foreign keys (migration 0004): "
            + "; ".join(problems)
            + "; delete or fix those rows, then migrate again"
        )
    if engine.engine_type == "sqlite":
        by_table: dict[str, list[str]] = {}
        for child, column, parent, action in FOREIGN_KEYS:
            key = f'FOREIGN KEY ("{column}") REFERENCES "{parent}" ("id"){action}'
            by_table.setdefault(child, []).append(key)
        await execute(engine, "PRAGMA legacy_alter_table = ON")
        for table, keys in by_table.items():
            await _rebuild_sqlite(engine, table, keys)
        await execute(engine, "PRAGMA legacy_alter_table = OFF")
    else:
        for child, column, parent, action in FOREIGN_KEYS:
            await execute(
                engine,
                f"ALTER TABLE {child} ADD CONSTRAINT {child}_{column}_fk"
                f" FOREIGN KEY ({column}) REFERENCES {parent} (id){action}",
            )
    await execute(
        engine, "CREATE INDEX image_neighbors_neighbor_idx ON image_neighbors (neighbor_id)"
    )
