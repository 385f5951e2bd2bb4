"""One published show as its page shows it: names, credits, looks in order, then details.

Details follow the looks in their own order. When the source linked details to their looks
(Vogue's slideshow page), ``detail_groups`` also sorts them under their look, in look
order, the unlinked ones last. Anything not published and live is a 404, whether it is
pending, rejected, deleted or was never there: a guessed id tells nothing.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.db.sql_rows import LIVE, rows
from rk.server.platform.http.errors import NotFound
from rk.server.site.pictures import IMAGE_COLUMNS, Picture, picture
from rk.server.site.shows import BrandName

SHOW_SQL = (
    "SELECT a.id, a.title, a.season, a.city, a.date, a.source, a.kind, a.url, a.designer,"
    " a.author, a.updated_at, COALESCE(b.uid, '') AS brand_uid,"
    " COALESCE(b.name, '') AS brand_name"
    " FROM articles a LEFT JOIN brands b ON b.id = a.brand_id"
)


class DetailGroup(Struct, frozen=True, kw_only=True):
    """The detail shots of one look (``look`` None: those linked to no look).

    ``look_image_id`` is the look's own image when the show has it; ``model_name`` its model.
    """

    look: int | None
    look_image_id: int | None = None
    model_name: str = ""
    details: list[Picture]


def detail_groups(looks: list[Picture], details: list[Picture]) -> list[DetailGroup]:
    """Details under their look, in look order, then the unlinked; [] when none is linked."""
    if all(detail.look is None for detail in details):
        return []
    by_look: dict[int | None, list[Picture]] = {}
    for detail in details:
        by_look.setdefault(detail.look, []).append(detail)
    own = {look.position: look for look in looks}
    numbers = sorted(n for n in by_look if n is not None)
    groups = [
        DetailGroup(
            look=n,
            look_image_id=own[n].image_id if n in own else None,
            model_name=own[n].model_name if n in own else "",
            details=by_look[n],
        )
        for n in numbers
    ]
    if None in by_look:
        groups.append(DetailGroup(look=None, details=by_look[None]))
    return groups


class Show(Struct, frozen=True, kw_only=True):
    """A published show: its facts, credits and every image (looks, then details)."""

    id: int
    title: str
    brand: BrandName | None
    season: str
    city: str
    date: str
    source: str
    kind: str
    url: str
    designer: str
    author: str
    updated_at: int
    looks: list[Picture]
    details: list[Picture]
    detail_groups: list[DetailGroup] = []


async def show_row(article_id: int) -> dict[str, Any]:
    """The article row of a published, live show; NotFound otherwise."""
    found = await rows(f"{SHOW_SQL} WHERE a.id = {{}} AND {LIVE}", article_id)
    if not found:
        raise NotFound(f"no published show {article_id}")
    return found[0]


def brand_of(row: dict[str, Any]) -> BrandName | None:
    """The brand of a ``SHOW_SQL`` row, None for street style without one."""
    name = str(row["brand_name"])
    return BrandName(uid=str(row["brand_uid"]), name=name) if name else None


async def get_show(storage: Storage, article_id: int) -> Show:
    """The show with every picture; NotFound unless it is published and live."""
    row = await show_row(article_id)
    images = await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i WHERE i.article_id = {{}}"
        " ORDER BY i.role DESC, i.position, i.id",
        article_id,
    )
    brand, season, title = str(row["brand_name"]), str(row["season"]), str(row["title"])
    pictures = [await picture(storage, image, brand, season, title) for image in images]
    looks = [p for p in pictures if p.role == "look"]
    details = [p for p in pictures if p.role != "look"]
    return Show(
        id=int(row["id"]),
        title=title,
        brand=brand_of(row),
        season=season,
        city=str(row["city"]),
        date=str(row["date"]),
        source=str(row["source"]),
        kind=str(row["kind"]),
        url=str(row["url"]),
        designer=str(row["designer"]),
        author=str(row["author"]),
        updated_at=int(row["updated_at"] or 0),
        looks=looks,
        details=details,
        detail_groups=detail_groups(looks, details),
    )
