"""One published image as its page shows it: the picture, its show and credits, previous and
next, its place among the show's looks (or details: counted apart), a filmstrip of the
looks around it, and its similar looks (stored neighbours, published ones only, with
scores) and its tags.

The neighbours are those of the backend's model; without a model, or before the image's
vector is placed, the page says so instead of showing an empty grid without a reason.
``?scope=`` narrows them to this season, the designer's other seasons or the other kind
(``similarity.scoped``); every scope is a tab, a plain link, so it works without script.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.platform.http.errors import NotFound
from rk.server.similarity import (
    SCOPES,
    EmptyScope,
    ModelIndex,
    available_scopes,
    check_scope,
    similar,
    similar_within,
)
from rk.server.site.looks import ScoredLook, scored_looks
from rk.server.site.pictures import Picture, picture_in
from rk.server.site.repository.images import live_image_row, look_image_id, show_image_rows
from rk.server.site.show import show_row
from rk.server.site.shows import ShowFacts, facts_of
from rk.server.tags import ImageTag, published_tags

SIMILAR_K = 20
STRIP_SIDE = 6
"""Filmstrip frames on each side of the current one (the show page has them all)."""


class ShowRef(ShowFacts, frozen=True, kw_only=True):
    """The show an image belongs to, as the image page names and credits it."""

    url: str
    kind: str = "runway"
    designer: str = ""
    author: str = ""


class Similar(Struct, frozen=True, kw_only=True):
    """How an image's similar looks are asked for: under the backend's embedding ``model``
    (None: it has none), within ``scope``, through its vector ``index`` (for a ``scope``
    other than ``all``)."""

    model: str | None = None
    scope: str = "all"
    index: ModelIndex | None = None


class ScopeTab(Struct, frozen=True, kw_only=True):
    """One scope of similar looks as the page offers it: ``available`` when it holds a
    published show besides the image's own."""

    name: str
    label: str
    available: bool


class Counter(Struct, frozen=True, kw_only=True):
    """An image's place among its show's pictures of its role: ``Look 3 of 12``, ``Detail 2
    of 4`` (``what``: look, detail, or photo for street style)."""

    what: str
    number: int
    total: int


class Filmstrip(Struct, frozen=True, kw_only=True):
    """The frames around the current image (same role, show order): ``before`` and ``after``
    say how many more the show has beyond each end."""

    frames: list[Picture]
    before: int
    after: int


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
    scope: str = "all"
    scopes: list[ScopeTab] = []
    look_id: int | None = None
    counter: Counter | None = None
    filmstrip: Filmstrip | None = None
    tags: list[ImageTag] = []
    """Its zero-shot tags (the model's and the moderators' confirmed ones), best first."""


def scope_label(name: str, kind: str) -> str:
    """What the page calls scope ``name`` for an image of ``kind``."""
    if name == "street":
        return "On the runway" if kind == "street" else "On the street"
    return {
        "season": "From this season",
        "designer": "From this designer's other seasons",
        "all": "Across the archive",
    }[name]


async def scope_tabs(image_id: int, kind: str) -> list[ScopeTab]:
    """Every scope of the image's similar looks, in page order."""
    available = await available_scopes(image_id)
    return [
        ScopeTab(name=name, label=scope_label(name, kind), available=name in available)
        for name in SCOPES
    ]


async def similar_looks(
    storage: Storage, image_id: int, asked: Similar
) -> tuple[list[ScoredLook], str]:
    """The published looks most like the image as ``asked``, and why there are none ("" if
    there are)."""
    model, scope, index = asked.model, asked.scope, asked.index
    if model is None or (scope != "all" and index is None):
        return [], "Similar looks are off: this backend has no embedding model (vision.model)."
    if scope == "all" or index is None:
        hits = await similar(image_id, model, SIMILAR_K, storage)
    else:
        try:
            hits = await similar_within(image_id, scope, SIMILAR_K, storage, index)
        except EmptyScope as exc:
            return [], str(exc).split(": ", 1)[-1].capitalize() + "."
    looks = await scored_looks(storage, [(h.image_id, h.score) for h in hits])
    if not looks:
        return [], "No similar looks yet: this image's neighbours have not been computed."
    return looks, ""


async def get_image(storage: Storage, image_id: int, asked: Similar) -> ImagePage:
    """The image page of a published image, its similar looks as ``asked``; NotFound
    otherwise (BadScope for a bad scope)."""
    check_scope(asked.scope)
    row = await live_image_row(image_id)
    if row is None:
        raise NotFound(f"no published image {image_id}")
    show = await show_row(int(str(row["article_id"])))
    pictures = await show_image_rows(int(show["id"]))
    order = [int(p["id"]) for p in pictures]
    at = order.index(image_id)
    looks, note = await similar_looks(storage, image_id, asked)
    image = await picture_in(storage, row, show)
    look_id = None if image.look is None else await look_image_id(int(show["id"]), image.look)
    same = [p for p in pictures if p["role"] == row["role"]]
    number = next(n for n, p in enumerate(same, 1) if int(p["id"]) == image_id)
    kind = str(show["kind"])
    what = "photo" if kind == "street" else ("look" if image.role == "look" else "detail")
    return ImagePage(
        image=image,
        show=ShowRef(
            **facts_of(show),
            url=str(show["url"]),
            kind=kind,
            designer=str(show["designer"]),
            author=str(show["author"]),
        ),
        index=at + 1,
        count=len(order),
        prev_id=order[at - 1] if at > 0 else None,
        next_id=order[at + 1] if at + 1 < len(order) else None,
        model=asked.model or "",
        similar=looks,
        similar_note=note,
        scope=asked.scope,
        scopes=await scope_tabs(image_id, kind) if asked.model else [],
        look_id=look_id,
        counter=Counter(what=what, number=number, total=len(same)),
        filmstrip=await filmstrip(storage, show, same, number - 1),
        tags=await published_tags(image_id),
    )


async def filmstrip(
    storage: Storage, show: dict[str, Any], same: list[dict[str, Any]], at: int
) -> Filmstrip:
    """Up to ``STRIP_SIDE`` frames each side of ``same[at]`` (more on one side near an end)."""
    start = max(0, min(at - STRIP_SIDE, len(same) - 2 * STRIP_SIDE - 1))
    end = min(len(same), start + 2 * STRIP_SIDE + 1)
    frames = [await picture_in(storage, p, show) for p in same[start:end]]
    return Filmstrip(frames=frames, before=start, after=len(same) - end)
