"""SQL of scoped similar looks: the facts of a published image that define its scopes, the
published articles of each scope, an image's stored vector, and images' articles."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import LIVE, marks, rows

SCOPE_WHERE = {
    "season": "a.kind = {} AND a.season <> '' AND a.season = {} AND a.id <> {}",
    "designer": "a.kind = {} AND a.brand_id <> 0 AND a.brand_id = {} AND a.season <> {}",
    "street": "a.kind = {}",
}
"""Each scope's articles besides ``LIVE``; its arguments come from ``scope_arguments``."""


def scope_arguments(name: str, facts: dict[str, Any]) -> list[object]:
    """The values ``SCOPE_WHERE[name]`` takes for the image whose ``facts`` these are; the
    first is always the kind of the scope's articles."""
    kind = str(facts["kind"])
    if name == "season":
        return [kind, str(facts["season"]), int(facts["article_id"])]
    if name == "designer":
        return [kind, int(facts["brand_id"]), str(facts["season"])]
    return ["runway" if kind == "street" else "street"]


async def published_image_facts(image_id: int) -> dict[str, Any] | None:
    """The article, kind, season and brand of a published image; None when there is none."""
    found = await rows(
        "SELECT i.article_id, a.kind, a.season, a.brand_id FROM images i"
        f" JOIN articles a ON a.id = i.article_id WHERE i.id = {{}} AND {LIVE}",
        image_id,
    )
    return found[0] if found else None


async def scope_article_ids(name: str, facts: dict[str, Any]) -> list[int]:
    """The published, live articles of scope ``name`` of the image, ascending."""
    found = await rows(
        f"SELECT a.id FROM articles a WHERE {LIVE} AND {SCOPE_WHERE[name]} ORDER BY a.id",
        *scope_arguments(name, facts),
    )
    return [int(row["id"]) for row in found]


async def scope_has_articles(name: str, facts: dict[str, Any]) -> bool:
    """Whether scope ``name`` of the image holds any published, live article."""
    found = await rows(
        f"SELECT a.id FROM articles a WHERE {LIVE} AND {SCOPE_WHERE[name]} LIMIT 1",
        *scope_arguments(name, facts),
    )
    return bool(found)


async def stored_vector(image_id: int, model: str) -> bytes | None:
    """The image's stored vector of ``model`` (little-endian float32); None if none."""
    found = await rows(
        "SELECT vector FROM image_embeddings WHERE image_id = {} AND model = {}",
        image_id,
        model,
    )
    return bytes(found[0]["vector"]) if found else None


async def articles_of_images(image_ids: list[int]) -> dict[int, int]:
    """Each of these images' article id (images that are gone are absent)."""
    if not image_ids:
        return {}
    found = await rows(
        f"SELECT id, article_id FROM images WHERE id IN ({marks(len(image_ids))})", *image_ids
    )
    return {int(row["id"]): int(row["article_id"]) for row in found}
