"""One published image as its page shows it: the picture, its show, previous and next, and
its similar looks (stored neighbours, published ones only, with scores).

The neighbours are those of the backend's model; without a model, or before the image's
vector is placed, the page says so instead of showing an empty grid without a reason.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.db.sql_rows import LIVE, rows
from rk.server.platform.http.errors import NotFound
from rk.server.similarity import similar
from rk.server.site.looks import ScoredLook, scored_looks
from rk.server.site.pictures import IMAGE_COLUMNS, Picture, picture
from rk.server.site.show import brand_of, show_row
from rk.server.site.shows import BrandName

SIMILAR_K = 20


class ShowRef(Struct, frozen=True, kw_only=True):
    """The show an image belongs to, as the image page names it."""

    id: int
    title: str
    brand: BrandName | None
    season: str
    city: str
    date: str
    source: str
    url: str


class ImagePage(Struct, frozen=True, kw_only=True):
    """An image, where it sits in its show, and the looks most like it.

    ``similar_note`` says why ``similar`` is empty (no model, not embedded yet); "" else.
    ``look_id`` is, for a detail linked to a look, that look's own image (None otherwise).
    """

    image: Picture
    show: ShowRef
    index: int
    count: int
    prev_id: int | None
    next_id: int | None
    model: str
    similar: list[ScoredLook]
    similar_note: str = ""
    look_id: int | None = None


async def _image_row(image_id: int) -> dict[str, object]:
    found = await rows(
        f"SELECT {IMAGE_COLUMNS} FROM images i JOIN articles a ON a.id = i.article_id"
        f" WHERE i.id = {{}} AND {LIVE}",
        image_id,
    )
    if not found:
        raise NotFound(f"no published image {image_id}")
    return found[0]


async def get_image(storage: Storage, image_id: int, model: str | None) -> ImagePage:
    """The image page of a published image; NotFound otherwise.

    ``model`` is the backend's embedding model id, None when it has none.
    """
    row = await _image_row(image_id)
    show = await show_row(int(str(row["article_id"])))
    order = [
        int(r["id"])
        for r in await rows(
            "SELECT id FROM images WHERE article_id = {} ORDER BY role DESC, position, id",
            show["id"],
        )
    ]
    at = order.index(image_id)
    brand, season, title = str(show["brand_name"]), str(show["season"]), str(show["title"])
    similar_looks: list[ScoredLook] = []
    note = ""
    if model is None:
        note = "Similar looks are off: this backend has no embedding model (vision.model)."
    else:
        hits = await similar(image_id, model, SIMILAR_K, storage)
        similar_looks = await scored_looks(storage, [(h.image_id, h.score) for h in hits])
        if not similar_looks:
            note = "No similar looks yet: this image's neighbours have not been computed."
    image = await picture(storage, row, brand, season, title)
    look_id = None
    if image.look is not None:
        own = await rows(
            "SELECT id FROM images WHERE article_id = {} AND role = 'look' AND position = {}",
            show["id"],
            image.look,
        )
        look_id = int(own[0]["id"]) if own else None
    return ImagePage(
        image=image,
        show=ShowRef(
            id=int(show["id"]),
            title=title,
            brand=brand_of(show),
            season=season,
            city=str(show["city"]),
            date=str(show["date"]),
            source=str(show["source"]),
            url=str(show["url"]),
        ),
        index=at + 1,
        count=len(order),
        prev_id=order[at - 1] if at > 0 else None,
        next_id=order[at + 1] if at + 1 < len(order) else None,
        model=model or "",
        similar=similar_looks,
        similar_note=note,
        look_id=look_id,
    )
