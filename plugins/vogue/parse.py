"""Pure parsers for Vogue Runway pages: page text in, rk Structs out (no I/O, no logging).

Every parser raises only ``VogueParseError`` on a page it cannot read, and ``parse_show``
additionally ``ShowSkipped`` for subscriber-only shows and shows without images.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from msgspec import Struct

from rk.core.dates import normalise_date
from rk.core.errors import ShowSkipped
from rk.core.wire import MAX_DETAILS, MAX_LOOKS, BrandRef, ImageRef, Look, ShowIngest
from rk.plugins.vogue.names import city_from_season, season_from_slug
from rk.plugins.vogue.state import (
    AzState,
    DesignerState,
    Gallery,
    Image,
    Item,
    Rendition,
    ShowState,
    VogueParseError,
    decode_state,
    gallery_items,
    get,
    items,
    text,
)

__all__ = [
    "DesignerLink",
    "ParsedShow",
    "ShowLink",
    "VogueParseError",
    "parse_designer_shows",
    "parse_designers",
    "parse_show",
    "show_key",
]

RENDITIONS = ("xxl", "xl", "lg", "md", "sm")
_TAGS = re.compile(r"<[^>]*>")
_PHOTO_PATH = re.compile(r"^(.*/photos/[0-9A-Za-z]+/[^/]+/)([^/]+)(/[^/]+)$")
_TRANSFORM = re.compile(r"pass|[a-z]{1,4}_[^/,%]+(?:(?:,|%2[Cc])[a-z]{1,4}_[^/,%]+)*")
_MAX_URL = 4096


class DesignerLink(Struct, frozen=True, kw_only=True):
    """One designer of the A–Z page: display name (UPPERCASE there) and page URL if given."""

    name: str
    url: str = ""


class ShowLink(Struct, frozen=True, kw_only=True):
    """One show of a designer page: season title, absolute URL, and rk's show key."""

    title: str
    url: str
    key: str


class ParsedShow(Struct, frozen=True, kw_only=True):
    """A parsed show page, plus the numbers of looks/details skipped for lack of an image."""

    show: ShowIngest
    skipped_looks: list[int] = []
    skipped_details: list[int] = []


def show_key(url: str) -> str:
    """``{season-slug}/{designer-slug}`` of a show URL; "" when ``url`` is not a show URL."""
    parts = [part for part in urlsplit(url).path.split("/") if part]
    if "fashion-shows" not in parts:
        return ""
    rest = parts[parts.index("fashion-shows") + 1 :]
    if len(rest) < 2 or rest[0] in ("designer", "designers"):
        return ""
    return f"{rest[0]}/{rest[1]}"[:512]


def parse_designers(html: str, url: str) -> list[DesignerLink]:
    """Every designer of the A–Z page, in page order."""
    state = decode_state(html, url, AzState)
    index = state.transformed.all_runway_designers if state.transformed else None
    groups = index if isinstance(index, list) else get(index, "groupedLinks")
    if not isinstance(groups, list):
        raise VogueParseError(f"{url}: no allRunwayDesigners.groupedLinks in the page state")
    designers: list[DesignerLink] = []
    for group in groups:
        for link in items(get(group, "links")):
            name = text(get(link, "text"))
            if name:
                designers.append(DesignerLink(name=name, url=text(get(link, "url"))))
    return designers


def parse_designer_shows(html: str, url: str) -> list[ShowLink]:
    """A designer's shows, newest first as the page lists them; [] when it has none."""
    state = decode_state(html, url, DesignerState)
    content = state.transformed.runway_designer_content if state.transformed else None
    if not isinstance(content, dict):
        raise VogueParseError(f"{url}: no runwayDesignerContent in the page state")
    shows: list[ShowLink] = []
    for collection in items(content.get("designerCollections")):
        link = text(get(collection, "url"))
        absolute = urljoin(url, link) if link else ""
        key = show_key(absolute)
        if key:
            shows.append(ShowLink(title=text(get(collection, "hed")), url=absolute, key=key))
    return shows


def parse_show(
    html: str, url: str, *, hed: str = "", original: bool = False, brand: BrandRef | None = None
) -> ParsedShow:
    """One show page as a ShowIngest: looks from Collection, details from Details, never mixed.

    Args:
        html: the show page.
        url: where it was fetched from; names the show in errors and gives the show key.
        hed: the season title the designer page listed it under (wins over the page's own).
        original: rewrite image URLs to the untransformed original (``pass``).
        brand: the brand the crawl is for, copied into the ShowIngest.
    """
    key = show_key(url)
    if not key:
        raise VogueParseError(f"{url}: not a show URL (/fashion-shows/{{season}}/{{designer}})")
    state = decode_state(html, url, ShowState)
    top = state.transformed
    if top is None:
        raise VogueParseError(f"{url}: no transformed section in the page state")
    if get(top.access, "contentRestricted") is True:
        raise ShowSkipped(f"{url}: content restricted (subscriber-only)")
    galleries = top.runway_show_galleries.galleries if top.runway_show_galleries else None
    if galleries is None:
        raise VogueParseError(f"{url}: no runwayShowGalleries.galleries in the page state")
    content = top.runway_show_content
    found_looks, skipped_looks = _images(_gallery(galleries, "collection"), url, original)
    found_details, skipped_details = _images(_gallery(galleries, "detail"), url, original)
    looks = [Look(number=n, image=ImageRef(url=u)) for n, u in found_looks]
    details = [ImageRef(url=u) for _, u in found_details]
    if not looks and not details:
        raise ShowSkipped(f"{url}: no images in the Collection or Details galleries")
    header = get(content, "sectionHeader")
    season = _clean(hed) or _clean(text(get(header, "subHed")))
    season = season or season_from_slug(key.split("/")[0])
    brand_name = _brand_name(content) or (brand.name if brand else "")
    show = ShowIngest(
        source="vogue",
        show_key=key,
        title=(f"{brand_name} {season}".strip() or key)[:200],
        brand=brand,
        season=season[:200],
        city=city_from_season(season)[:200],
        date=normalise_date(get(content, "eventDate")) or normalise_date(get(content, "pubDate")),
        url=url[:_MAX_URL],
        designer=_clean(text(get(content, "designersDek")))[:200],
        author=_authors(content)[:200],
        looks=looks[:MAX_LOOKS],
        details=details[:MAX_DETAILS],
    )
    return ParsedShow(show=show, skipped_looks=skipped_looks, skipped_details=skipped_details)


def _clean(value: str) -> str:
    """Text with HTML tags removed and whitespace collapsed."""
    return " ".join(_TAGS.sub(" ", value).split())


def _brand_name(content: Any) -> str:
    brand = get(content, "brand")
    name = text(get(brand, "name")) if isinstance(brand, dict) else text(brand)
    return _clean(name or text(get(get(content, "sectionHeader"), "hed")))


def _authors(content: Any) -> str:
    author = get(get(content, "contributors"), "author")
    names = [text(get(item, "name")) for item in items(get(author, "items"))]
    return ", ".join(name for name in names if name)


def _gallery(galleries: list[Gallery | None], kind: str) -> list[Item | None]:
    """Items of the first gallery whose id (``gallery-collection``) or title names ``kind``."""
    wanted_ids = {f"gallery-{kind}", f"gallery-{kind}s"}
    wanted_titles = {kind, f"{kind}s"}
    for gallery in galleries:
        if gallery is None:
            continue
        if text(gallery.id).lower() in wanted_ids or text(gallery.title).lower() in wanted_titles:
            return gallery_items(gallery.items)
    return []


def _numbers(gallery: list[Item | None]) -> list[int]:
    """Each item's own ``lookNumber``; positions when any is missing, invalid or repeated."""
    numbers: list[int] = []
    for item in gallery:
        raw = text(item.look_number) if item is not None else ""
        number = int(raw) if raw.isdecimal() and len(raw) < 7 else 0
        if not 1 <= number <= 100_000:
            return list(range(1, len(gallery) + 1))
        numbers.append(number)
    if len(set(numbers)) != len(numbers):
        return list(range(1, len(gallery) + 1))
    return numbers


def _images(
    gallery: list[Item | None], url: str, original: bool
) -> tuple[list[tuple[int, str]], list[int]]:
    """(number, image URL) of each item that has an image, and the numbers of those without."""
    found: list[tuple[int, str]] = []
    skipped: list[int] = []
    for number, item in zip(_numbers(gallery), gallery, strict=True):
        image = image_url(item.image if item is not None else None, url, original)
        if image:
            found.append((number, image))
        else:
            skipped.append(number)
    return found, skipped


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
    absolute = found if found.startswith(("http://", "https://")) else urljoin(page_url, found)
    if not absolute.startswith(("http://", "https://")) or len(absolute) > _MAX_URL:
        return ""
    return to_original(absolute) if original else absolute


def _width(rendition: Rendition) -> float:
    width = rendition.width
    return float(width) if isinstance(width, int | float) and not isinstance(width, bool) else 0.0


def to_original(url: str) -> str:
    """``…/photos/{id}/{aspect}/w_640,c_limit/{file}`` → ``…/{aspect}/pass/{file}``."""
    parts = urlsplit(url)
    match = _PHOTO_PATH.match(parts.path)
    if match is None or not _TRANSFORM.fullmatch(match.group(2)):
        return url
    path = f"{match.group(1)}pass{match.group(3)}"
    return parts._replace(path=path).geturl()
