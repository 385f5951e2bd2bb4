"""The tag slice's SQL: vectors still to tag, ``auto`` tags replaced, moderators' decisions.

``auto`` rows are the model's and are replaced whenever an image is tagged again;
``confirmed`` and ``removed`` rows are the moderators' and no recomputation touches them
(an insert meeting one does nothing). ``image_tag_runs`` says which model and vocabulary
last tagged each image, so a run finds what is left to do by one indexed comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows

CHUNK = 100
"""Rows per multi-row ``INSERT`` and ids per ``IN (…)`` (well under both engines' limits)."""
SHOWN = "('auto', 'confirmed')"
"""The states that count: a tag shown, filtered and faceted (``removed`` counts nowhere)."""
TO_TAG = (
    "FROM image_embeddings e JOIN images i ON i.id = e.image_id"
    " LEFT JOIN image_tag_runs r ON r.image_id = e.image_id"
    " WHERE e.model = {} AND (r.image_id IS NULL OR r.model <> {} OR r.vocabulary <> {})"
)


def _chunks(values: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


async def _rows_in(select: str, column: str, ids: Sequence[int]) -> list[dict[str, Any]]:
    """The rows of ``select`` whose ``column`` is one of ``ids``, asked a chunk at a time."""
    found: list[dict[str, Any]] = []
    for chunk in _chunks(list(ids)):
        found += await rows(f"{select} WHERE {column} IN ({marks(len(chunk))})", *chunk)
    return found


async def vectors_to_tag(model: str, digest: str, after: int, limit: int) -> list[dict[str, Any]]:
    """``image_id, vector`` of up to ``limit`` images past ``after`` whose vector under
    ``model`` is not yet tagged with vocabulary ``digest`` (by that model), in id order."""
    return await rows(
        f"SELECT e.image_id, e.vector {TO_TAG} AND e.image_id > {{}}"
        " ORDER BY e.image_id LIMIT {}",
        model,
        model,
        digest,
        after,
        limit,
    )


async def count_to_tag(model: str, digest: str) -> int:
    """How many images' vectors under ``model`` are still to tag with ``digest``."""
    found = await rows(f"SELECT COUNT(*) AS n {TO_TAG}", model, model, digest)
    return int(found[0]["n"])


async def existing_images(image_ids: Sequence[int]) -> set[int]:
    """Those of ``image_ids`` that still exist."""
    return {int(row["id"]) for row in await _rows_in("SELECT id FROM images", "id", image_ids)}


async def delete_auto(image_ids: Sequence[int]) -> None:
    """Drop the ``auto`` tags of these images (the moderators' rows stay)."""
    for chunk in _chunks(list(image_ids)):
        await rows(
            f"DELETE FROM image_tags WHERE state = 'auto' AND image_id IN ({marks(len(chunk))})",
            *chunk,
        )


async def insert_auto(values: Sequence[tuple[int, str, float, str, str, int]]) -> None:
    """Insert ``(image_id, tag, score, model, vocabulary, at)`` as ``auto`` rows; a row a
    moderator decided on for that image and tag stays as it is."""
    for chunk in _chunks(list(values)):
        args = [value for row in chunk for value in (*row[:3], "auto", *row[3:])]
        await rows(
            "INSERT INTO image_tags (image_id, tag, score, state, model, vocabulary, computed_at)"
            f" VALUES {', '.join(f'({marks(7)})' for _ in chunk)}"
            " ON CONFLICT (image_id, tag) DO NOTHING",
            *args,
        )


async def mark_tagged(image_ids: Sequence[int], model: str, digest: str, at: int) -> None:
    """Record that ``model`` tagged these images with vocabulary ``digest``."""
    for chunk in _chunks(list(image_ids)):
        args = [value for image_id in chunk for value in (image_id, model, digest, at)]
        await rows(
            "INSERT INTO image_tag_runs (image_id, model, vocabulary, computed_at)"
            f" VALUES {', '.join(f'({marks(4)})' for _ in chunk)}"
            " ON CONFLICT (image_id) DO UPDATE SET model = excluded.model,"
            " vocabulary = excluded.vocabulary, computed_at = excluded.computed_at",
            *args,
        )


async def tag_rows(image_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Every tag row (any state) of these images, by image, best score first."""
    found = await _rows_in(
        "SELECT image_id, tag, score, state FROM image_tags", "image_id", image_ids
    )
    return sorted(found, key=lambda r: (int(r["image_id"]), -(r["score"] or 2.0), r["tag"]))


async def published_tag_rows(image_id: int) -> list[dict[str, Any]]:
    """The shown tags of image ``image_id`` while its article is published, best first
    (a tag a moderator added, with no score, first)."""
    return await rows(
        "SELECT t.tag, t.score, t.state FROM image_tags t JOIN images i ON i.id = t.image_id"
        f" JOIN articles a ON a.id = i.article_id WHERE t.image_id = {{}} AND {LIVE}"
        f" AND t.state IN {SHOWN} ORDER BY t.score IS NOT NULL, t.score DESC, t.tag",
        image_id,
    )


async def tag_row(image_id: int, tag: str) -> dict[str, Any] | None:
    """The row of ``tag`` on image ``image_id`` (any state), or None."""
    found = await rows(
        "SELECT state, score FROM image_tags WHERE image_id = {} AND tag = {}", image_id, tag
    )
    return found[0] if found else None


async def image_article(image_id: int) -> int | None:
    """The article image ``image_id`` belongs to, or None when there is no such image."""
    found = await rows("SELECT article_id FROM images WHERE id = {}", image_id)
    return int(found[0]["article_id"]) if found else None


async def set_state(image_id: int, tag: str, state: str) -> None:
    """Put the row of ``tag`` on image ``image_id`` in ``state``."""
    await rows(
        "UPDATE image_tags SET state = {} WHERE image_id = {} AND tag = {}", state, image_id, tag
    )


async def add_tag(image_id: int, tag: str, state: str, at: int) -> None:
    """A moderator's own tag (no score, no model)."""
    await rows(
        "INSERT INTO image_tags (image_id, tag, score, state, model, vocabulary, computed_at)"
        " VALUES ({}, {}, NULL, {}, '', '', {})",
        image_id,
        tag,
        state,
        at,
    )


async def record_decision(values: tuple[int, str, str, str, int, str, str, int]) -> None:
    """The audit row ``(image_id, tag, old_state, new_state, user_id, actor, via, at)``."""
    await rows(
        "INSERT INTO image_tag_audit"
        " (image_id, tag, old_state, new_state, user_id, actor, via, at)"
        f" VALUES ({marks(8)})",
        *values,
    )


async def decision_rows(image_ids: Sequence[int]) -> list[dict[str, Any]]:
    """The tag decisions on these images, newest first."""
    select = "SELECT id, image_id, tag, old_state, new_state, actor, via, at FROM image_tag_audit"
    found = await _rows_in(select, "image_id", image_ids)
    return sorted(found, key=lambda r: -int(r["id"]))
