"""Builders of synthetic Vogue Runway page states, in the real shape and in the older shape.

The real shape follows /work/shared/sources.md §4 (a captured show page read key by key):
``sectionHeader.hed``/``subHed`` are HTML anchors (the season's anchor text in capitals),
JSON-LD sits in ``transformed["head.jsonld"]``, gallery items carry only ``caption``,
``url``, ``image`` and ``analyticsEvent``, renditions are 360/1024/1280/1280/2560 wide with
no height, and there is no top-level ``brand``, ``designersDek``, ``eventDate`` or
``lookNumber``. The older shape (plain-text headers, ``brand``, ``lookNumber``) is kept for
a few pages so the parser's fallbacks stay proven. Every value is invented.
"""

from __future__ import annotations

import hashlib
import html
import json
from typing import Any

WIDTHS = {"sm": 360, "md": 1024, "lg": 1280, "xl": 1280, "xxl": 2560}
OLD_WIDTHS = {"sm": 360, "md": 640, "lg": 1280, "xl": 1600, "xxl": 2560}
SCRIPT_END = "@@SCRIPT_END@@"
GALLERY_SLUGS = {
    "collection": "collection",
    "detail": "details",
    "beauty": "beauty",
    "front-row": "front-row",
}
GALLERY_TITLES = {
    "collection": "Collection",
    "detail": "Details",
    "beauty": "Beauty",
    "front-row": "Front Row",
}
MODELS = (
    "Ines Calder",
    "Marit Solberg",
    "Adaeze Okafor",
    "Lucía Ferrer",
    "Yuna Sato",
    "Freya Lund",
    "Amara Diallo",
    "Clio Bertrand",
)


def photo_id(seed: str) -> str:
    """A stable 24-hex photo id, like Vogue's Mongo-style ids."""
    return hashlib.sha1(seed.encode()).hexdigest()[:24]


def rendition(
    pid: str, width: int, filename: str, comma: str = ",", height: bool = False
) -> dict[str, Any]:
    url = f"{{{{BASE}}}}/photos/{pid}/master/w_{width}{comma}c_limit/{filename}"
    out: dict[str, Any] = {"aspectRatio": "master", "width": width, "url": url}
    if height:
        out["height"] = width * 3 // 2
    return out


def image(
    seed: str,
    filename: str,
    keys: tuple[str, ...] = tuple(WIDTHS),
    comma: str = ",",
    old: bool = False,
) -> dict[str, Any]:
    """An image object shaped like a Verso photo: id, texts and renditions sm…xxl."""
    pid = photo_id(seed)
    widths = OLD_WIDTHS if old else WIDTHS
    sources = {key: rendition(pid, widths[key], filename, comma, height=old) for key in keys}
    return {
        "id": pid,
        "contentType": "photo",
        "altText": "Image may contain Clothing Apparel Human Person Fashion",
        "credit": "Photo: Invented Runway Agency",
        "caption": "",
        "modelName": "",
        "sources": sources,
        "segmentedSources": {
            "sm": [sources[k] for k in keys[:1]],
            "lg": [sources[k] for k in keys[-1:]],
        },
    }


def file_name(designer: str, season: str, kind: str, n: int) -> str:
    middle = "" if kind == "collection" else f"-{kind}"
    return f"{n:05d}-{designer}-{season}{middle}-credit-gorunway.jpg"


def image_seed(designer: str, season: str, kind: str, n: int) -> str:
    return f"{designer}/{season}/{kind}/{n}"


def items(designer: str, season: str, count: int, kind: str = "collection") -> list[dict]:
    """``count`` gallery items in the real shape: caption, url fragment, image, analytics."""
    slideshow = f"/fashion-shows/{season}/{designer}/slideshow/{GALLERY_SLUGS[kind]}"
    caption = {"collection": "Look {n}", "detail": "Detail Look {n}"}.get(kind, "")
    out = []
    for n in range(1, count + 1):
        seed = image_seed(designer, season, kind, n)
        out.append(
            {
                "caption": caption.format(n=n),
                "url": f"{slideshow}#{n}",
                "image": image(seed, file_name(designer, season, kind, n)),
                "analyticsEvent": {"name": "slideshow-click", "position": n},
            }
        )
    return out


def old_items(designer: str, season: str, count: int, kind: str = "collection") -> list[dict]:
    """``count`` gallery items in the older shape: string ``lookNumber`` and an image."""
    return [
        {
            "caption": "",
            "lookNumber": str(n),
            "image": image(
                image_seed(designer, season, kind, n),
                file_name(designer, season, kind, n),
                old=True,
            ),
        }
        for n in range(1, count + 1)
    ]


def gallery(kind: str, gallery_items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": f"gallery-{kind}", "title": GALLERY_TITLES[kind], "items": gallery_items}


def noise(count: int) -> dict[str, Any]:
    """Unrelated state a real page carries (navigation, tracking), for a realistic size."""
    links = [{"text": f"Story {n}", "url": f"/article/story-{n}", "rank": n} for n in range(count)]
    return {
        "coreDataLayer": {"content": {"contentType": "runway", "functionalTags": ["runway"] * 4}},
        "navigation": {"links": links, "footer": [{"text": "Privacy; Terms", "url": "/privacy"}]},
        "ads": {"slots": [{"id": f"ad-{n}", "sizes": [[300, 250], [728, 90]]} for n in range(40)]},
    }


def page(title: str, state: dict[str, Any], tail: str = "") -> str:
    """A server-rendered page: a few scripts, then the state assignment, then more scripts."""
    blob = json.dumps(state, ensure_ascii=False, separators=(",", ":")).replace("/", "\\u002F")
    blob = blob.replace(SCRIPT_END, "</script>")
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} | Vogue</title>\n"
        '<script type="text/javascript">window.dataLayer = window.dataLayer || [];</script>\n'
        '<script type="text/javascript">if (window.__PRELOADED_STATE__) { window.hydrate = 1; }'
        "</script>\n"
        f'<script type="text/javascript">window.__PRELOADED_STATE__ = {blob};{tail}</script>\n'
        '<script type="text/javascript">window.__TRACKING__ = {"page": "runway"};</script>\n'
        f'</head><body><div id="app"><h1>{html.escape(title)}</h1></div></body></html>\n'
    )


def anchor(href: str, text: str) -> str:
    """An HTML anchor as the real ``sectionHeader`` holds it (text HTML-escaped)."""
    return f'<a href="{href}">{html.escape(text, quote=False)}</a>'


def jsonld(
    designer: str, season_title: str, published: str, reviewers: list[str]
) -> list[dict[str, Any]]:
    """``head.jsonld``: an Article first (headline, dates, authors, keywords), then more."""
    return [
        {
            "@context": "http://schema.org",
            "@type": "Article",
            "headline": f"{designer} {season_title} Collection",
            "datePublished": published,
            "dateModified": published,
            "author": [
                {"@type": "Person", "name": name, "sameAs": "{{BASE}}/contributor/x"}
                for name in reviewers
            ],
            "keywords": [designer, season_title, "runway", "fashion shows"],
            "image": "{{BASE}}/photos/0000000000000000000000aa/16:9/w_1280,c_limit/cover.jpg",
            "publisher": {"@type": "Organization", "name": "Vogue"},
        },
        {"@context": "http://schema.org", "@type": "BreadcrumbList", "itemListElement": []},
    ]


def show_state(
    *,
    slug: str,
    season: str,
    designer: str,
    season_title: str,
    galleries: list[dict[str, Any]],
    published: str = "",
    reviewers: tuple[str, ...] = (),
    pub_date: str = "",
    restricted: bool = False,
) -> dict[str, Any]:
    """A show page in the real shape; ``published`` "" leaves the JSON-LD out."""
    content: dict[str, Any] = {
        "sectionHeader": {
            "hed": anchor(f"/fashion-shows/designer/{slug}", designer),
            "subHed": anchor(f"/fashion-shows/{season}", season_title.upper()),
        },
        "review": ["div", ["p", "A season of quiet tailoring; nothing shouted."]],
    }
    if pub_date:
        content["pubDate"] = pub_date
    transformed: dict[str, Any] = {
        "access": {"contentRestricted": restricted},
        "head.canonicalUrl": f"{{{{BASE}}}}/fashion-shows/{season}/{slug}",
        "runwayShowContent": content,
        "runwayShowGalleries": {"galleries": galleries},
    }
    if published:
        transformed["head.jsonld"] = jsonld(designer, season_title, published, list(reviewers))
    return {**noise(120), "transformed": transformed}


def old_show_state(
    brand: str, season_title: str, galleries: list[dict[str, Any]], **content: Any
) -> dict[str, Any]:
    """A show page in the older shape: plain-text headers, ``brand``, ``designersDek``."""
    show = {
        "brand": brand,
        "sectionHeader": {"hed": brand, "subHed": season_title},
        "designersDek": "",
        "contributors": {"author": {"items": [{"name": "Harriet Vale"}]}},
        "review": ["div", ["p", "A season of quiet tailoring; nothing shouted."]],
    } | content
    return {
        **noise(120),
        "transformed": {
            "access": {"contentRestricted": False},
            "runwayShowContent": show,
            "runwayShowGalleries": {"galleries": galleries},
        },
    }


def runway_moment(
    designer: str, season: str, look: int, details: list[int], model: str, model_on_image: bool
) -> dict[str, Any]:
    """One slide of a slideshow page: the look's photo, its detail shots and the model."""
    seed = image_seed(designer, season, "collection", look)
    slide_image = image(seed, file_name(designer, season, "collection", look))
    slide: dict[str, Any] = {
        "contentType": "runwaymoment",
        "id": photo_id(f"moment/{seed}"),
        "caption": f"Look {look}",
        "image": slide_image,
        "details": [
            image(
                image_seed(designer, season, "detail", n),
                file_name(designer, season, "detail", n),
            )
            for n in details
        ],
    }
    if model_on_image:
        slide_image["modelName"] = model
    else:
        slide["modelName"] = model
    return slide


def slideshow_state(slides: list[dict[str, Any]], where: str) -> dict[str, Any]:
    """A slideshow page; ``where`` picks one of two places for the slides (not established)."""
    if where == "nested":
        body: dict[str, Any] = {
            "runwayGalleryContent": {"slideshow": {"title": "Collection", "slides": slides}}
        }
    else:
        body = {"gallery": {"layout": "vertical", "items": [{"slide": s} for s in slides]}}
    return {**noise(60), "transformed": {"access": {"contentRestricted": False}, **body}}


def designer_state(name: str, shows: list[tuple[str, str]]) -> dict[str, Any]:
    """The state of a designer page: shows newest first as ``(hed, url)``."""
    collections = [
        {
            "hed": hed,
            "url": url,
            "image": {"sources": {"md": {"url": f"{{{{BASE}}}}/photos/cover{n}.jpg"}}},
        }
        for n, (hed, url) in enumerate(shows)
    ]
    content = {
        "name": name,
        "body": ["p", f"{name} is an invented label."],
        "designerCollections": collections,
    }
    return {**noise(20), "transformed": {"runwayDesignerContent": content}}


def season_state(name: str, season: str, designers: list[tuple[str, str]]) -> dict[str, Any]:
    """A season page: every show grouped by first letter, ``(display name, slug)`` each."""
    groups: dict[str, list[dict[str, str]]] = {}
    for display, slug in sorted(designers, key=lambda d: d[0].lower()):
        link = {"text": display, "url": f"/fashion-shows/{season}/{slug}"}
        groups.setdefault(display[0].upper(), []).append(link)
    shows = [{"groupName": letter, "links": links} for letter, links in groups.items()]
    content = {"name": name, "allShows": shows, "curatedShows": []}
    return {**noise(30), "transformed": {"runwaySeasonContent": content}}


def az_state() -> dict[str, Any]:
    """The A–Z page: groups of UPPERCASE names; KESTREL & VINE has no url (slugified)."""
    groups = {
        "H": [{"text": "HALDEN & CO.", "url": "/fashion-shows/designer/halden-company"}],
        "K": [{"text": "KESTREL & VINE"}],
        "M": [{"text": "MAISON AURÈLE", "url": "/fashion-shows/designer/maison-aurele"}],
        "O": [{"text": "ODALYS NORTH", "url": "/fashion-shows/designer/odalys-north"}],
        "P": [{"text": "PALOMA QUINTERO", "url": "/fashion-shows/designer/paloma-quintero"}],
        "Z": [{"text": "ZÉPHYRINE LOOM", "url": "/fashion-shows/designer/zephyrine-loom"}],
    }
    grouped = [{"title": letter, "links": links} for letter, links in groups.items()]
    return {**noise(60), "transformed": {"allRunwayDesigners": {"groupedLinks": grouped}}}
