"""Gallery items → numbered image URLs: the largest rendition, the smallest that covers a
thumbnail, and each item's own number.

A look's number comes from its slideshow ``url`` fragment (``…/slideshow/collection#7``),
then its caption ("Look 7"), then the older shape's ``lookNumber``, then its position. A
detail's counter is read the same way from ``…/slideshow/details#3`` or "Detail Look 3": it
counts details and is never a look number.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from rk.core.api.wire import url_problem
from rk.plugins.vogue.state import Image, Item, Rendition, text
from rk.plugins.vogue.text import clean

RENDITIONS = ("xxl", "xl", "lg", "md", "sm")
MAX_URL = 4096
MAX_NUMBER = 100_000
_PHOTO_PATH = re.compile(r"^(.*/photos/[0-9A-Za-z]+/[^/]+/)([^/]+)(/[^/]+)$")
_PHOTO_ID = re.compile(r"/photos/([0-9a-fA-F]{24})/")
_HEX_ID = re.compile(r"[0-9a-fA-F]{24}")
_TRANSFORM = re.compile(r"pass|[a-z]{1,4}_[^/,%]+(?:(?:,|%2[Cc])[a-z]{1,4}_[^/,%]+)*")
_CAPTIONS = {
    "look": re.compile(r"look\s*(\d{1,6})", re.IGNORECASE),
    "detail": re.compile(r"detail(?:\s+look)?\s*(\d{1,6})", re.IGNORECASE),
}


def _number(raw: str) -> int | None:
    value = int(raw) if raw.isdecimal() and len(raw) < 7 else 0
    return value if 1 <= value <= MAX_NUMBER else None


def item_number(item: Item | None, role: str = "look") -> int | None:
    """The item's own number: url fragment, then caption, then ``lookNumber``; else None."""
    if item is None:
        return None
    url = text(item.url)
    fragment = url.rpartition("#")[2] if "#" in url else ""
    caption = _CAPTIONS[role].fullmatch(clean(text(item.caption)))
    for raw in (fragment, caption.group(1) if caption else "", text(item.look_number)):
        if (number := _number(raw)) is not None:
            return number
    return None


def numbers(gallery: list[Item | None], role: str = "look") -> list[int]:
    """Each item's own number, its position where it has none; positions for all on a repeat."""
    found = [item_number(item, role) for item in gallery]
    chosen = [n if n is not None else i for i, n in enumerate(found, start=1)]
    if len(set(chosen)) != len(chosen):
        return list(range(1, len(gallery) + 1))
    return chosen


def image_url(image: Image | None, page_url: str, original: bool = False) -> str:
    """The largest rendition of an image (``xxl`` → … → ``sm``), or "" when it has none.

    Renditions under other names are used, widest first, only when none of the known ones is.
    With ``original`` the CDN transform segment is rewritten to ``pass`` (the untouched upload).
    """
    sources = image.sources if image is not None else None
    if not sources:
        return ""
    found = ""
    for key in RENDITIONS:
        rendition = sources.get(key)
        if rendition is not None and (found := text(rendition.url)):
            break
    if not found:
        others = [(_width(r), text(r.url)) for r in sources.values() if r is not None]
        found = max((o for o in others if o[1]), default=(0.0, ""))[1]
    absolute = _absolute(found, page_url)
    return to_original(absolute) if original and absolute else absolute


def thumb_url(image: Image | None, page_url: str, thumb_size: int, full: str) -> str | None:
    """The smallest rendition that covers a thumbnail (``sm``, 360 wide, for 256), or None.

    A rendition covers when its width (and its height, where the page says it) is at least
    ``thumb_size``; ``c_limit`` renditions keep the photo's shape. None when no rendition
    says its width, none covers, or the one found is ``full`` itself (nothing to save).
    """
    sources = image.sources if image is not None else None
    if not sources:
        return None
    covering = [
        (_width(r), text(r.url))
        for r in sources.values()
        if r is not None
        and text(r.url)
        and _width(r) >= thumb_size
        and (_height(r) == 0 or _height(r) >= thumb_size)
    ]
    if not covering:
        return None
    url = _absolute(min(covering)[1], page_url)
    return url if url and url != full else None


def _absolute(found: str, page_url: str) -> str:
    """``found`` as an absolute URL the backend accepts, or ""."""
    absolute = found if found.startswith(("http://", "https://")) else urljoin(page_url, found)
    if len(absolute) > MAX_URL or url_problem(absolute):  # the backend would refuse the show
        return ""
    return absolute


def _number_of(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _width(rendition: Rendition) -> float:
    return _number_of(rendition.width)


def _height(rendition: Rendition) -> float:
    return _number_of(rendition.height)


def to_original(url: str) -> str:
    """``…/photos/{id}/{aspect}/w_640,c_limit/{file}`` → ``…/{aspect}/pass/{file}``."""
    parts = urlsplit(url)
    match = _PHOTO_PATH.match(parts.path)
    if match is None or not _TRANSFORM.fullmatch(match.group(2)):
        return url
    path = f"{match.group(1)}pass{match.group(3)}"
    return parts._replace(path=path).geturl()


def photo_id(url: str) -> str:
    """The 24-hex photo id in a CDN URL (``…/photos/{id}/…``), lowercased; "" when none."""
    found = _PHOTO_ID.search(url)
    return found.group(1).lower() if found else ""


def hex_id(value: object) -> str:
    """``value`` lowercased when it is a 24-hex id, else ""."""
    return value.lower() if isinstance(value, str) and _HEX_ID.fullmatch(value) else ""
