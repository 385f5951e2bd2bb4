"""The colour slice's SQL: images still to measure, palettes written, colours of published images.

Every function runs on the ``Database`` it is given, with ``{}`` placeholders compiled for
its engine, so the same text serves SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from piccolo.querystring import QueryString

from rk.server.platform.db.database import Database, Row
from rk.server.platform.db.sql_rows import LIVE, marks

CHUNK = 500
"""Ids per ``IN (…)`` list (well under both engines' parameter limits)."""
COLUMNS = (
    "image_id",
    "rank",
    "name",
    "hex",
    "lab_l",
    "lab_a",
    "lab_b",
    "share",
    "delta_e",
    "computed_at",
)
"""The columns of an ``image_colours`` row as ``palette_rows`` gives them."""
INSERT = f"INSERT INTO image_colours ({', '.join(COLUMNS)}) VALUES "
PUBLISHED_COLOURS = (
    "FROM image_colours c JOIN images i ON i.id = c.image_id"
    f" JOIN articles a ON a.id = i.article_id WHERE {LIVE}"
)
UNMEASURED = "NOT EXISTS (SELECT 1 FROM image_colours c WHERE c.image_id = i.id)"


def _compiled(db: Database, sql: str, args: Sequence[Any]) -> tuple[str, list[Any]]:
    """A ``{}``-placeholder statement in ``db``'s own placeholders, with its values."""
    engine = "sqlite" if db.engine == "sqlite" else "postgres"
    text, values = QueryString(sql, *args).compile_string(engine_type=engine)
    return text, list(values)


async def _rows(db: Database, sql: str, *args: Any) -> list[Row]:
    """The rows of one ``{}``-placeholder statement on ``db``."""
    text, values = _compiled(db, sql, args)
    return await db.rows(text, *values)


async def _execute(db: Database, sql: str, *args: Any) -> None:
    """Run one ``{}``-placeholder statement on ``db``."""
    text, values = _compiled(db, sql, args)
    await db.execute(text, *values)


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


async def unmeasured_images(db: Database, after_id: int, limit: int) -> list[Row]:
    """``id, key, thumb_key`` of up to ``limit`` images past ``after_id`` with no palette yet."""
    return await _rows(
        db,
        f"SELECT i.id, i.key, i.thumb_key FROM images i WHERE i.id > {{}} AND {UNMEASURED}"
        " ORDER BY i.id LIMIT {}",
        after_id,
        limit,
    )


async def count_unmeasured(db: Database) -> int:
    """How many images have no palette yet."""
    found = await _rows(db, f"SELECT COUNT(*) AS n FROM images i WHERE {UNMEASURED}")
    return int(found[0]["n"])


async def image_objects(db: Database, image_ids: Sequence[int]) -> list[Row]:
    """``id, key, thumb_key`` of those of ``image_ids`` that exist."""
    found: list[Row] = []
    for chunk in _chunks(list(dict.fromkeys(image_ids))):
        found += await _rows(
            db,
            f"SELECT id, key, thumb_key FROM images WHERE id IN ({marks(len(chunk))}) ORDER BY id",
            *chunk,
        )
    return found


async def replace_palettes(db: Database, rows: Sequence[tuple[Any, ...]]) -> set[int]:
    """Make ``rows`` (``COLUMNS`` order) the palettes of their images, in one transaction.

    Each image's old rows go first. Rows of an image deleted meanwhile are left out, and on
    PostgreSQL the images written to are held (``FOR KEY SHARE``) until the commit, so none
    is deleted in between; the ids of the images written.
    """
    image_ids = list(dict.fromkeys(int(row[0]) for row in rows))
    lock = "" if db.engine == "sqlite" else " FOR KEY SHARE"
    async with db.transaction():
        live: set[int] = set()
        for chunk in _chunks(image_ids):
            found = await _rows(
                db, f"SELECT id FROM images WHERE id IN ({marks(len(chunk))}){lock}", *chunk
            )
            live.update(int(row["id"]) for row in found)
        ordered = sorted(live)
        for chunk in _chunks(ordered):
            await _execute(
                db, f"DELETE FROM image_colours WHERE image_id IN ({marks(len(chunk))})", *chunk
            )
        kept = [row for row in rows if int(row[0]) in live]
        one = f"({marks(len(COLUMNS))})"
        for start in range(0, len(kept), CHUNK // 5):
            batch = kept[start : start + CHUNK // 5]
            values = [value for row in batch for value in row]
            await _execute(db, INSERT + ", ".join(one for _ in batch), *values)
    return live


async def published_colours(
    db: Database,
    names: Sequence[str],
    *,
    kind: str | None,
    among: Sequence[int] | None,
    cap: int,
) -> list[Row]:
    """Palette rows of published images whose colour has one of ``names``, largest share
    first, at most ``cap``; with the image's article, kind, role, position and keys.

    ``kind`` keeps one kind of image (runway, street); ``among`` keeps those image ids.
    """
    sql = (
        "SELECT c.image_id, c.lab_l, c.lab_a, c.lab_b, c.share, c.name, c.hex, i.article_id,"
        f" i.kind, i.role, i.position, i.key, i.thumb_key {PUBLISHED_COLOURS}"
        f" AND c.name IN ({marks(len(names))})"
    )
    args: list[Any] = list(names)
    if kind is not None:
        sql += " AND i.kind = {}"
        args.append(kind)
    if among is None:
        return await _rows(
            db, f"{sql} ORDER BY c.share DESC, c.image_id DESC LIMIT {{}}", *args, cap
        )
    found: list[Row] = []
    for chunk in _chunks(list(dict.fromkeys(among))):
        found += await _rows(
            db,
            f"{sql} AND c.image_id IN ({marks(len(chunk))})"
            " ORDER BY c.share DESC, c.image_id DESC LIMIT {}",
            *args,
            *chunk,
            cap,
        )
    return found


async def published_counts(db: Database, min_share: float, kind: str | None) -> list[Row]:
    """``name, n``: how many published images have a colour of each name with at least
    ``min_share`` of their garment."""
    sql = f"SELECT c.name, COUNT(DISTINCT c.image_id) AS n {PUBLISHED_COLOURS} AND c.share >= {{}}"
    args: list[Any] = [min_share]
    if kind is not None:
        sql += " AND i.kind = {}"
        args.append(kind)
    return await _rows(db, f"{sql} GROUP BY c.name", *args)
