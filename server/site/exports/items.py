"""What an export holds of each published image: its file at the chosen size, its credits."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.keys import CONTENT_KEY, RENDITION_WIDTHS, rendition_key
from rk.core.api.storage import Storage
from rk.server.media import parse_widths
from rk.server.platform.web.templating import source_name
from rk.server.site.pictures import URL_TTL_S, alt_text
from rk.server.site.repository.exports import export_rows

RENDITIONS = (*(str(width) for width in RENDITION_WIDTHS), "original")
"""The sizes an export offers: a rendition's width in pixels, or the stored original."""
MAX_ITEMS = 200
"""Images in one export at most: an anonymous request gets bounded work."""


class ExportItem(Struct, frozen=True, kw_only=True):
    """One image of an export: the file written (``key``, ``filename``) and its credits."""

    image_id: int
    show_id: int
    caption: str
    brand: str
    season: str
    look: str
    city: str
    date: str
    designer: str
    photographer: str
    model: str
    source: str
    source_page: str
    archive_url: str
    width: int
    height: int
    key: str
    filename: str
    thumb_url: str


def chosen_key(row: dict[str, Any], rendition: str) -> tuple[str, str]:
    """The stored object for ``rendition`` (the widest rung not wider than asked, else the
    original) and its file extension."""
    match = CONTENT_KEY.match(str(row["key"]))
    original = str(row["key"])
    extension = original.rsplit(".", 1)[-1] if "." in original else "jpg"
    if rendition == "original" or match is None:
        return original, extension
    fitting = [w for w in parse_widths(row.get("rendition_widths")) if w <= int(rendition)]
    if not fitting:
        return original, extension
    return rendition_key(max(fitting), match.group(2)), "webp"


def _look(row: dict[str, Any]) -> str:
    """``Look 12``, ``Photo 3`` (street style) or ``Detail 2``."""
    if row["role"] != "look":
        return f"Detail {row['position']}"
    return f"{'Photo' if row['kind'] == 'street' else 'Look'} {row['position']}"


async def export_items(
    storage: Storage, image_ids: list[int], rendition: str, base: str
) -> list[ExportItem]:
    """The published ones of ``image_ids`` (at most ``MAX_ITEMS``), in the given order."""
    found = await export_rows(image_ids[:MAX_ITEMS])
    items = []
    for n, image_id in enumerate(image_ids[:MAX_ITEMS], start=1):
        row = found.get(image_id)
        if row is None:
            continue
        key, extension = chosen_key(row, rendition)
        brand, season, title = str(row["brand_name"]), str(row["season"]), str(row["title"])
        thumb = str(row["thumb_key"] or "") or str(row["key"])
        items.append(
            ExportItem(
                image_id=image_id,
                show_id=int(row["article_id"]),
                caption=alt_text(brand, season, title, str(row["role"]), int(row["position"])),
                brand=brand,
                season=season,
                look=_look(row),
                city=str(row["city"]),
                date=str(row["date"])[:10],
                designer=str(row["designer"]),
                photographer=str(row["author"]) if row["kind"] == "street" else "",
                model=str(row["model_name"] or ""),
                source=source_name(str(row["source"])),
                source_page=str(row["url"]),
                archive_url=f"{base}/images/{image_id}",
                width=int(row["width"] or 0),
                height=int(row["height"] or 0),
                key=key,
                filename=f"{n:03d}-{image_id}.{extension}",
                thumb_url=await storage.url_for(thumb, URL_TTL_S),
            )
        )
    return items
