"""Images as the public pages show them: URLs of the original, thumbnail and renditions,
stored size, alt.

Every ``<img>`` of the site is built from a ``Picture``: ``width``/``height`` are the stored
dimensions of the original (0 when unknown: pages then fall back to a 2:3 box),
``renditions`` the WebP rungs of its ladder a ``srcset`` offers (none until they are made),
and ``alt`` names the brand, season and look, as a screen reader user needs it.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.keys import CONTENT_KEY, rendition_key
from rk.core.api.storage import Storage
from rk.server.media import parse_widths

URL_TTL_S = 6 * 3600
"""Lifetime of presigned image URLs (S3 without a public base URL); far beyond page caching."""


class Rendition(Struct, frozen=True, kw_only=True):
    """One WebP rung of an image's rendition ladder: its width (px) and URL."""

    width: int
    url: str


class Picture(Struct, frozen=True, kw_only=True):
    """One image: original and thumbnail URLs, stored size (0 = unknown), alt text.

    ``look`` is, for a detail shot, the look it belongs to (None: not linked); a look's
    ``model_name`` is the model wearing it ("" when the source did not say).
    """

    image_id: int
    role: str
    position: int
    url: str
    thumb_url: str
    width: int
    height: int
    alt: str
    look: int | None = None
    model_name: str = ""
    renditions: list[Rendition] = []


def label(role: str, position: int) -> str:
    """``look 12`` or ``detail 3``."""
    return f"{'look' if role == 'look' else 'detail'} {position}"


def alt_text(
    brand: str, season: str, title: str, role: str, position: int, look: int | None = None
) -> str:
    """``Maison Aurele, Spring 2025 Ready-to-Wear, look 12`` (the title when no brand).

    A detail linked to its look says so: ``…, detail 3 of look 7``.
    """
    what = label(role, position) + (f" of look {look}" if look is not None else "")
    parts = [brand or title, season if brand else "", what]
    return ", ".join(part for part in parts if part)


async def renditions_of(storage: Storage, row: dict[str, Any]) -> list[Rendition]:
    """The rungs an image row's ``rendition_widths`` (its original's recorded ladder) lists,
    narrowest first."""
    match = CONTENT_KEY.match(str(row["key"]))
    if match is None:
        return []
    return [
        Rendition(
            width=width, url=await storage.url_for(rendition_key(width, match.group(2)), URL_TTL_S)
        )
        for width in parse_widths(row.get("rendition_widths"))
    ]


async def picture(
    storage: Storage, row: dict[str, Any], brand: str, season: str, title: str
) -> Picture:
    """The Picture of an image row (``repository.images.IMAGE_COLUMNS``) of an article with
    these names."""
    role, position = str(row["role"]), int(row["position"])
    linked = row.get("look_number")
    look = int(linked) if linked is not None and role != "look" else None
    thumb = str(row["thumb_key"] or "")
    return Picture(
        image_id=int(row["id"]),
        role=role,
        position=position,
        url=await storage.url_for(str(row["key"]), URL_TTL_S),
        thumb_url=await storage.url_for(thumb, URL_TTL_S) if thumb else "",
        width=int(row["width"] or 0),
        height=int(row["height"] or 0),
        alt=alt_text(brand, season, title, role, position, look),
        look=look,
        model_name=str(row.get("model_name") or "") if role == "look" else "",
        renditions=await renditions_of(storage, row),
    )


async def picture_in(storage: Storage, row: dict[str, Any], show: dict[str, Any]) -> Picture:
    """The Picture of an image row of the show whose row (``brand_name``, ``season``,
    ``title``) is ``show``."""
    names = (str(show["brand_name"]), str(show["season"]), str(show["title"]))
    return await picture(storage, row, *names)
