"""Pure parsers for Vogue Runway pages: page text in, rk Structs out (no I/O, no logging).

Listings live here (the designer A–Z, a designer's shows, a season's shows); the show page
is ``rk.plugins.vogue.show`` and the slideshow page ``rk.plugins.vogue.slideshow``. Every
parser raises only ``VogueParseError`` on a page it cannot read, and ``parse_show``
additionally ``ShowSkipped`` for subscriber-only shows and shows without images.
"""

from __future__ import annotations

from urllib.parse import urljoin

from msgspec import Struct

from rk.plugins.vogue.images import image_url, to_original
from rk.plugins.vogue.show import ParsedShow, parse_show, show_key
from rk.plugins.vogue.state import (
    AzState,
    DesignerState,
    SeasonState,
    VogueParseError,
    decode_state,
    get,
    items,
    text,
)
from rk.plugins.vogue.text import clean

__all__ = [
    "DesignerLink",
    "ParsedShow",
    "SeasonShow",
    "ShowLink",
    "VogueParseError",
    "image_url",
    "parse_designer_shows",
    "parse_designers",
    "parse_season",
    "parse_show",
    "show_key",
    "to_original",
]


class DesignerLink(Struct, frozen=True, kw_only=True):
    """One designer of the A–Z page: display name (UPPERCASE there) and page URL if given."""

    name: str
    url: str = ""


class ShowLink(Struct, frozen=True, kw_only=True):
    """One show of a designer page: season title, absolute URL, and rk's show key."""

    title: str
    url: str
    key: str


class SeasonShow(Struct, frozen=True, kw_only=True):
    """One show of a season page: the designer's display name and slug, URL and show key."""

    designer: str
    slug: str
    url: str
    key: str


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
            name = clean(text(get(link, "text")))
            if name:
                designers.append(DesignerLink(name=name, url=text(get(link, "url"))))
    return designers


def parse_designer_shows(html: str, url: str) -> list[ShowLink]:
    """A designer's shows, newest first as the page lists them; [] when it has none.

    A subscriber-only page that lists no show is a VogueParseError: its shows are hidden,
    not absent, and a crawl that reported "0 shows" would say the wrong thing.
    """
    state = decode_state(html, url, DesignerState)
    content = state.transformed.runway_designer_content if state.transformed else None
    restricted = state.transformed is not None and (
        get(state.transformed.access, "contentRestricted") is True
    )
    if restricted and not items(get(content, "designerCollections")):
        raise VogueParseError(f"{url}: designer page is subscriber-only and lists no shows")
    if not isinstance(content, dict):
        raise VogueParseError(f"{url}: no runwayDesignerContent in the page state")
    shows: list[ShowLink] = []
    for collection in items(content.get("designerCollections")):
        link = text(get(collection, "url"))
        absolute = urljoin(url, link) if link else ""
        key = show_key(absolute)
        if key:
            title = clean(text(get(collection, "hed")))
            shows.append(ShowLink(title=title, url=absolute, key=key))
    return shows


def parse_season(html: str, url: str) -> list[SeasonShow]:
    """Every show of a season page (``runwaySeasonContent.allShows[].links[]``), page order.

    Links that are not show URLs are left out, and a show listed twice counts once.
    """
    state = decode_state(html, url, SeasonState)
    content = state.transformed.runway_season_content if state.transformed else None
    groups = get(content, "allShows")
    if not isinstance(groups, list):
        raise VogueParseError(f"{url}: no runwaySeasonContent.allShows in the page state")
    shows: dict[str, SeasonShow] = {}
    for group in groups:
        for link in items(get(group, "links")):
            href = text(get(link, "url"))
            absolute = urljoin(url, href) if href else ""
            key = show_key(absolute)
            if not key or key in shows:
                continue
            slug = key.split("/")[1]
            designer = clean(text(get(link, "text")))[:200] or slug
            shows[key] = SeasonShow(designer=designer, slug=slug, url=absolute, key=key)
    return list(shows.values())
