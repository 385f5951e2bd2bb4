"""Scored looks, as similar-look and search grids show them: the picture, its show, a score.

Search answers (``services.search``) name images and scores; this adds what a tile needs
(brand, season, look number, thumbnail and size) in one query, and keeps only images of
published, live articles: an article unpublished a moment ago drops out here too.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.db.sql_rows import LIVE, marks, rows
from rk.server.site.pictures import IMAGE_COLUMNS, Picture, picture
from rk.server.site.shows import BrandName


class ScoredLook(Struct, frozen=True, kw_only=True):
    """One image of a published show with its similarity score (cosine, 1 = identical)."""

    picture: Picture
    score: float
    show_id: int
    show_title: str
    brand: BrandName | None
    season: str


async def scored_looks(storage: Storage, scored: list[tuple[int, float]]) -> list[ScoredLook]:
    """ScoredLooks for ``(image_id, score)`` pairs, best first as given; unpublished dropped."""
    if not scored:
        return []
    found = await rows(
        f"SELECT {IMAGE_COLUMNS}, a.title, a.season, COALESCE(b.uid, '') AS brand_uid,"
        " COALESCE(b.name, '') AS brand_name FROM images i"
        " JOIN articles a ON a.id = i.article_id LEFT JOIN brands b ON b.id = a.brand_id"
        f" WHERE i.id IN ({marks(len(scored))}) AND {LIVE}",
        *[image_id for image_id, _ in scored],
    )
    by_id = {int(row["id"]): row for row in found}
    looks = []
    for image_id, score in scored:
        row = by_id.get(image_id)
        if row is None:
            continue
        brand, season, title = str(row["brand_name"]), str(row["season"]), str(row["title"])
        looks.append(
            ScoredLook(
                picture=await picture(storage, row, brand, season, title),
                score=round(float(score), 4),
                show_id=int(row["article_id"]),
                show_title=title,
                brand=BrandName(uid=str(row["brand_uid"]), name=brand) if brand else None,
                season=season,
            )
        )
    return looks
