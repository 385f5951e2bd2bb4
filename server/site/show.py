"""One published show as its page shows it: names, credits, looks in order, then details.

Details follow the looks in their own order. When the source linked details to their looks
(Vogue's slideshow page), ``detail_groups`` also sorts them under their look, in look
order, the unlinked ones last. Anything not published and live is a 404, whether it is
pending, rejected, deleted or was never there: a guessed id tells nothing.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from rk.core.api.storage import Storage
from rk.server.platform.http.errors import NotFound
from rk.server.site.pictures import Picture, picture_in
from rk.server.site.repository.images import show_image_rows
from rk.server.site.repository.shows import live_show_row
from rk.server.site.shows import ShowFacts, facts_of


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


class Show(ShowFacts, frozen=True, kw_only=True):
    """A published show: its facts, credits and every image (looks, then details)."""

    kind: str
    url: str
    designer: str
    author: str
    updated_at: int
    looks: list[Picture]
    details: list[Picture]
    detail_groups: list[DetailGroup] = field(default_factory=list)


async def show_row(article_id: int) -> dict[str, Any]:
    """The article row of a published, live show; NotFound otherwise."""
    found = await live_show_row(article_id)
    if found is None:
        raise NotFound(f"no published show {article_id}")
    return found


async def get_show(storage: Storage, article_id: int) -> Show:
    """The show with every picture; NotFound unless it is published and live."""
    row = await show_row(article_id)
    images = await show_image_rows(article_id)
    pictures = [await picture_in(storage, image, row) for image in images]
    looks = [p for p in pictures if p.role == "look"]
    details = [p for p in pictures if p.role != "look"]
    return Show(
        **facts_of(row),
        kind=str(row["kind"]),
        url=str(row["url"]),
        designer=str(row["designer"]),
        author=str(row["author"]),
        updated_at=int(row["updated_at"] or 0),
        looks=looks,
        details=details,
        detail_groups=detail_groups(looks, details),
    )
