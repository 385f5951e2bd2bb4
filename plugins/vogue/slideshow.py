"""A show's slideshow page (``…/slideshow/collection``) → which look each detail shot belongs to.

Its slides (``contentType: "runwaymoment"``) name, per look, the detail shots of that look
(``details[]``) and the model. Where the slides sit in the state is not established, so
they are found by their ``contentType`` wherever they are. A slide is matched to a look of
the show page by its photo id, else by its own number (url fragment, caption, position); a
detail by the photo id of its image. Nothing else ties a detail to a look (sources.md §1.4).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

from rk.core.api.wire import ShowIngest
from rk.plugins.vogue.images import hex_id, item_number, photo_id
from rk.plugins.vogue.state import Item, VogueParseError, decode_state, get, items, text
from rk.plugins.vogue.text import clean

SLIDE_TYPE = "runwaymoment"
MAX_NODES = 2_000_000


class Slide(Struct, frozen=True, kw_only=True):
    """One look of the slideshow: its number, its photo, its model and its details' photos."""

    number: int
    photo: str = ""
    model_name: str = ""
    details: list[str] = []


class Linked(Struct, frozen=True, kw_only=True):
    """The show with details linked and model names set, and how many of each were found."""

    show: ShowIngest
    details_linked: int = 0
    models_named: int = 0


def parse_slideshow(html: str, url: str) -> list[Slide]:
    """Every ``runwaymoment`` slide of the page, in page order; [] when it has none."""
    state = decode_state(html, url, Any)
    slides: list[Slide] = []
    for position, node in enumerate(_moments(state, url), start=1):
        item = msgspec.convert(
            {"url": text(node.get("url")), "caption": text(node.get("caption"))}, Item
        )
        image = node.get("image")
        slides.append(
            Slide(
                number=item_number(item) or position,
                photo=_photo(image),
                model_name=_model(node, image),
                details=[p for p in (_photo(d) for d in items(node.get("details"))) if p],
            )
        )
    return slides


def link_details(show: ShowIngest, slides: list[Slide]) -> Linked:
    """``show`` with each detail's ``look`` and each look's ``model_name`` from ``slides``."""
    by_photo = {photo_id(look.image.url): look.number for look in show.looks}
    by_photo.pop("", None)
    detail_look: dict[str, int] = {}
    models: dict[int, str] = {}
    for slide in slides:
        number = by_photo.get(slide.photo, slide.number)
        if slide.model_name:
            models.setdefault(number, slide.model_name[:200])
        for detail in slide.details:
            detail_look.setdefault(detail, number)
    details = [
        msgspec.structs.replace(ref, look=detail_look.get(photo_id(ref.url), ref.look))
        for ref in show.details
    ]
    looks = [
        msgspec.structs.replace(look, model_name=models.get(look.number, look.model_name))
        for look in show.looks
    ]
    linked = msgspec.structs.replace(show, looks=looks, details=details)
    return Linked(
        show=linked,
        details_linked=sum(ref.look is not None for ref in details),
        models_named=sum(bool(look.model_name) for look in looks),
    )


def _moments(state: Any, url: str) -> list[dict[str, Any]]:
    """Every object whose ``contentType`` is ``runwaymoment``, depth first in page order."""
    found: list[dict[str, Any]] = []
    stack: list[Any] = [state]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise VogueParseError(f"{url}: slideshow state has more than {MAX_NODES} objects")
        if isinstance(node, dict):
            if node.get("contentType") == SLIDE_TYPE:
                found.append(node)
                continue
            children = node.values()
        else:
            children = node
        stack.extend(child for child in reversed(children) if isinstance(child, dict | list))
    return found


def _photo(image: Any) -> str:
    """The photo id of an image object: its ``id``, else the id in a rendition URL."""
    if not isinstance(image, dict):
        return photo_id(text(image))
    while isinstance(image.get("image"), dict) and not hex_id(image.get("id")):
        image = image["image"]  # a wrapper around the image object
    if own := hex_id(image.get("id")):
        return own
    sources = image.get("sources")
    urls = [text(get(r, "url")) for r in sources.values()] if isinstance(sources, dict) else []
    return next((found for found in map(photo_id, [*urls, text(image.get("url"))]) if found), "")


def _model(slide: dict[str, Any], image: Any) -> str:
    """The model's name on the slide or else on its image: ``modelName``, ``model`` as a
    plain string, or a ``model`` object's ``name`` (Vogue's pages use all three)."""
    for node in (slide, image):
        model = get(node, "model")
        for value in (get(node, "modelName"), model, get(model, "name")):
            if name := clean(text(value)):
                return name
    return ""
