"""One published image as its page shows it: the picture, its show, previous and next, and
its similar looks (stored neighbours, published ones only, with scores).

The neighbours are those of the backend's model; without a model, or before the image's
vector is placed, the page says so instead of showing an empty grid without a reason.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.http.errors import NotFound
from rk.server.similarity import similar
from rk.server.site.looks import ScoredLook, scored_looks
from rk.server.site.pictures import Picture, picture_in
from rk.server.site.repository.images import live_image_row, look_image_id, show_image_ids
from rk.server.site.show import show_row
from rk.server.site.shows import ShowFacts, facts_of

SIMILAR_K = 20


class ShowRef(ShowFacts, frozen=True, kw_only=True):
    """The show an image belongs to, as the image page names it."""

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


async def similar_looks(
    storage: Storage, image_id: int, model: str | None
) -> tuple[list[ScoredLook], str]:
    """The published looks most like the image under ``model``, and why there are none ("" if
    there are)."""
    if model is None:
        return [], "Similar looks are off: this backend has no embedding model (vision.model)."
    hits = await similar(image_id, model, SIMILAR_K, storage)
    looks = await scored_looks(storage, [(h.image_id, h.score) for h in hits])
    if not looks:
        return [], "No similar looks yet: this image's neighbours have not been computed."
    return looks, ""


async def get_image(storage: Storage, image_id: int, model: str | None) -> ImagePage:
    """The image page of a published image; NotFound otherwise.

    ``model`` is the backend's embedding model id, None when it has none.
    """
    row = await live_image_row(image_id)
    if row is None:
        raise NotFound(f"no published image {image_id}")
    show = await show_row(int(str(row["article_id"])))
    order = await show_image_ids(int(show["id"]))
    at = order.index(image_id)
    looks, note = await similar_looks(storage, image_id, model)
    image = await picture_in(storage, row, show)
    look_id = None if image.look is None else await look_image_id(int(show["id"]), image.look)
    return ImagePage(
        image=image,
        show=ShowRef(**facts_of(show), url=str(show["url"])),
        index=at + 1,
        count=len(order),
        prev_id=order[at - 1] if at > 0 else None,
        next_id=order[at + 1] if at + 1 < len(order) else None,
        model=model or "",
        similar=looks,
        similar_note=note,
        look_id=look_id,
    )
