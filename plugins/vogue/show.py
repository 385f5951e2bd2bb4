"""One Vogue Runway show page → ShowIngest: looks from Collection, details from Details.

The real page (sources.md §4) names designer and season by anchors in ``sectionHeader``
(slugs from their hrefs; the season's anchor text is in capitals and never used) and says
the rest in JSON-LD: display names from ``keywords``, reviewers from ``author``, the
publication date (with offset) from ``datePublished``. Older pages said the same in plain
``brand``/``hed``/``subHed``, ``designersDek``, ``eventDate`` and ``contributors``; those are
read only when the real shape says nothing.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rk.core.api.errors import ShowSkipped
from rk.core.api.wire import MAX_DETAILS, MAX_LOOKS, BrandRef, ImageRef, Look, ShowIngest
from rk.core.dates import normalise_date
from rk.plugins.vogue.images import MAX_URL, image_url, numbers, thumb_url
from rk.plugins.vogue.jsonld import LdArticle, article
from rk.plugins.vogue.names import city_from_season, season_from_slug, slugify
from rk.plugins.vogue.state import (
    Gallery,
    Item,
    ShowState,
    VogueParseError,
    decode_state,
    gallery_items,
    get,
    items,
    text,
)
from rk.plugins.vogue.text import anchor, clean, path_slugs


class ParsedShow(Struct, frozen=True, kw_only=True):
    """A parsed show page, plus the numbers of looks/details skipped for lack of an image."""

    show: ShowIngest
    skipped_looks: list[int] = []
    skipped_details: list[int] = []


class Header(Struct, frozen=True, kw_only=True):
    """What ``sectionHeader`` says: slugs from anchor hrefs, or the older plain texts."""

    designer_slug: str = ""
    designer_text: str = ""
    season_slug: str = ""
    season_text: str = ""


def show_key(url: str) -> str:
    """``{season-slug}/{designer-slug}`` of a show URL; "" when ``url`` is not a show URL."""
    rest = path_slugs(url)
    if len(rest) < 2 or rest[0] in ("designer", "designers"):
        return ""
    return f"{rest[0]}/{rest[1]}"[:512]


def header(content: Any) -> Header:
    """Designer and season from ``sectionHeader``: anchors give slugs, plain text gives text."""
    section = get(content, "sectionHeader")
    hed, sub = text(get(section, "hed")), text(get(section, "subHed"))
    designer = anchor(hed)
    season = anchor(sub)
    designer_path = path_slugs(designer[0]) if designer else []
    season_path = path_slugs(season[0]) if season else []
    return Header(
        designer_slug=designer_path[1] if designer_path[:1] == ["designer"] else "",
        designer_text=designer[1] if designer else clean(hed),
        season_slug=season_path[0] if len(season_path) == 1 else "",
        season_text="" if season else clean(sub),
    )


def parse_show(
    html: str,
    url: str,
    *,
    hed: str = "",
    original: bool = False,
    brand: BrandRef | None = None,
    thumb_size: int | None = None,
) -> ParsedShow:
    """One show page as a ShowIngest: looks from Collection, details from Details, never mixed.

    Args:
        html: the show page.
        url: where it was fetched from; names the show in errors and gives the show key.
        hed: the season title the designer page listed it under.
        original: rewrite image URLs to the untransformed original (``pass``).
        brand: the brand the crawl is for, copied into the ShowIngest.
        thumb_size: the thumbnail's shortest side: each image also names the smallest
            rendition that covers it (``thumb_url``); None names none.
    """
    state = decode_state(html, url, ShowState)
    top = state.transformed
    if top is None:
        raise VogueParseError(f"{url}: no transformed section in the page state")
    content = top.runway_show_content
    head = header(content)
    key = show_key(url) or show_key(text(top.canonical_url))
    if not key and head.season_slug and head.designer_slug:
        key = f"{head.season_slug}/{head.designer_slug}"
    if not key:
        raise VogueParseError(f"{url}: not a show URL (/fashion-shows/{{season}}/{{designer}})")
    if get(top.access, "contentRestricted") is True:
        raise ShowSkipped(f"{url}: content restricted (subscriber-only)")
    galleries = top.runway_show_galleries.galleries if top.runway_show_galleries else None
    if galleries is None:
        raise VogueParseError(f"{url}: no runwayShowGalleries.galleries in the page state")
    pick = Pick(page_url=url, original=original, thumb_size=thumb_size)
    found_looks, skipped_looks = _images(_gallery(galleries, "collection"), "look", pick)
    found_details, skipped_details = _images(_gallery(galleries, "detail"), "detail", pick)
    looks = [Look(number=n, image=ref) for n, ref in found_looks]
    details = [ref for _, ref in found_details]
    if not looks and not details:
        raise ShowSkipped(f"{url}: no images in the Collection or Details galleries")
    ld = article(top.jsonld)
    season_slug = head.season_slug or key.split("/")[0]
    season = _season(ld, season_slug) or clean(hed) or head.season_text
    season = season or season_from_slug(season_slug)
    brand_name = _designer(ld, season, head, content) or (brand.name if brand else "")
    show = ShowIngest(
        source="vogue",
        kind="runway",
        show_key=key,
        title=(f"{brand_name} {season}".strip() or key)[:200],
        brand=brand,
        season=season[:200],
        city=city_from_season(season)[:200],
        date=ld.published or _old_date(content),
        url=url[:MAX_URL],
        designer=clean(text(get(content, "designersDek")))[:200],
        author=(", ".join(ld.authors) or _old_authors(content))[:200],
        looks=looks[:MAX_LOOKS],
        details=details[:MAX_DETAILS],
    )
    return ParsedShow(show=show, skipped_looks=skipped_looks, skipped_details=skipped_details)


def _season(ld: LdArticle, season_slug: str) -> str:
    """The JSON-LD keyword that names this season (its slug is the season slug)."""
    return next((word for word in ld.keywords if slugify(word) == season_slug), "")


def _designer(ld: LdArticle, season: str, head: Header, content: Any) -> str:
    """The designer's display name: JSON-LD, then the hed anchor's text, then older fields."""
    first = ld.keywords[0] if ld.keywords else ""
    if first and slugify(first) != slugify(season) and first.lower() != "runway":
        return first
    suffix = f" {season} Collection"
    if ld.headline.endswith(suffix) and len(ld.headline) > len(suffix):
        return ld.headline[: -len(suffix)].strip()
    old = get(content, "brand")
    old_name = text(get(old, "name")) if isinstance(old, dict) else text(old)
    return head.designer_text or clean(old_name)


def _old_date(content: Any) -> str:
    return normalise_date(get(content, "eventDate")) or normalise_date(get(content, "pubDate"))


def _old_authors(content: Any) -> str:
    author = get(get(content, "contributors"), "author")
    names = [clean(text(get(item, "name"))) for item in items(get(author, "items"))]
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


class Pick(Struct, frozen=True, kw_only=True):
    """Which renditions a show's images point at: the largest (or the original), and the
    smallest covering a ``thumb_size`` thumbnail."""

    page_url: str
    original: bool = False
    thumb_size: int | None = None


def _images(
    gallery: list[Item | None], role: str, pick: Pick
) -> tuple[list[tuple[int, ImageRef]], list[int]]:
    """(number, image) of each item that has an image, and the numbers of those without."""
    found: list[tuple[int, ImageRef]] = []
    skipped: list[int] = []
    for number, item in zip(numbers(gallery, role), gallery, strict=True):
        image = item.image if item is not None else None
        url = image_url(image, pick.page_url, pick.original)
        if not url:
            skipped.append(number)
            continue
        thumb = None
        if pick.thumb_size is not None:
            thumb = thumb_url(image, pick.page_url, pick.thumb_size, url)
        found.append((number, ImageRef(url=url, thumb_url=thumb)))
    return found, skipped
