"""Scored looks, as similar-look and search grids show them: the picture, its show, a score.

Search answers (``services.search``) name images and scores; this adds what a tile needs
(brand, season, look number, thumbnail and size) in one query, and keeps only images of
published, live articles: an article unpublished a moment ago drops out here too.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.db.sql_rows import scored_rows
from rk.server.site.pictures import Picture, picture_in
from rk.server.site.repository.images import live_tile_rows
from rk.server.site.shows import BrandName, brand_of


class ScoredLook(Struct, frozen=True, kw_only=True):
    """One image of a published show with its similarity score (cosine, 1 = identical)."""

    picture: Picture
    score: float
    show_id: int
    show_title: str
    brand: BrandName | None
    season: str
    kind: str = "runway"


async def scored_looks(storage: Storage, scored: list[tuple[int, float]]) -> list[ScoredLook]:
    """ScoredLooks for ``(image_id, score)`` pairs, best first as given; unpublished dropped."""
    by_id = await live_tile_rows([image_id for image_id, _ in scored])
    return [
        ScoredLook(
            picture=await picture_in(storage, row, row),
            score=round(float(score), 4),
            show_id=int(row["article_id"]),
            show_title=str(row["title"]),
            brand=brand_of(row),
            season=str(row["season"]),
            kind=str(row["kind"]),
        )
        for row, score in scored_rows(scored, by_id)
    ]
