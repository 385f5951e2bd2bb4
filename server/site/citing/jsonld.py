"""schema.org JSON-LD for show and image pages, safe inside a ``<script>`` element.

A show is a ``CreativeWork`` whose creator is its designer; an image is an ``ImageObject``
that ``isPartOf`` its show. The JSON is written with ``<``, ``>``, ``&`` and the two
JavaScript line separators as ``\\u`` escapes, so no crawled string can end the script.
"""

from __future__ import annotations

from typing import Any

import msgspec
from markupsafe import Markup

from rk.server.platform.web.templating import source_name
from rk.server.site.image import ImagePage
from rk.server.site.show import Show

_SCRIPT_SAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: dict[str, Any]) -> Markup:
    """``value`` as JSON that cannot break out of ``<script type="application/ld+json">``."""
    return Markup(msgspec.json.encode(value).decode().translate(_SCRIPT_SAFE))


def _absolute(base: str, url: str) -> str:
    """A media URL as visitors fetch it, absolute on this site when it is a path."""
    return url if url.startswith(("https://", "http://")) else f"{base}{url}"


def _creator(designer: str, brand: str) -> dict[str, str] | None:
    """The designer (else the brand) as a schema.org Organization."""
    name = designer or brand
    return {"@type": "Organization", "name": name} if name else None


def _credit(kind: str, author: str, source: str) -> str:
    """The photographer (street style names one) and the source: ``Jane Doe, The Impression``."""
    return ", ".join(p for p in (author if kind == "street" else "", source_name(source)) if p)


def _drop_empty(value: dict[str, Any]) -> dict[str, Any]:
    """The properties that have a value."""
    return {name: item for name, item in value.items() if item not in ("", None, [], {})}


def show_jsonld(show: Show, base: str) -> Markup:
    """A published show as a ``CreativeWork`` with its season and looks."""
    page = f"{base}/shows/{show.id}"
    work = {
        "@context": "https://schema.org",
        "@type": "CreativeWork",
        "@id": page,
        "url": page,
        "name": show.title,
        "creator": _creator(show.designer, show.brand.name if show.brand else ""),
        "dateCreated": show.date[:10],
        "locationCreated": {"@type": "Place", "name": show.city} if show.city else None,
        "isPartOf": {"@type": "CreativeWorkSeries", "name": show.season} if show.season else None,
        "creditText": _credit(show.kind, show.author, show.source),
        "sameAs": show.url if show.url.startswith(("https://", "http://")) else "",
        "image": [_absolute(base, look.thumb_url or look.url) for look in show.looks[:10]],
    }
    return script_json(_drop_empty(work))


def image_jsonld(page: ImagePage, base: str) -> Markup:
    """A published image as an ``ImageObject`` that is part of its show."""
    show, pic = page.show, page.image
    counter = page.counter
    name = f"{counter.what.capitalize()} {counter.number}, {show.title}" if counter else show.title
    url = f"{base}/images/{pic.image_id}"
    image = {
        "@context": "https://schema.org",
        "@type": "ImageObject",
        "@id": url,
        "url": url,
        "name": name,
        "contentUrl": _absolute(base, pic.url),
        "thumbnailUrl": _absolute(base, pic.thumb_url) if pic.thumb_url else "",
        "width": pic.width or None,
        "height": pic.height or None,
        "caption": pic.alt,
        "creator": _creator(show.designer, show.brand.name if show.brand else ""),
        "creditText": _credit(show.kind, show.author, show.source),
        "dateCreated": show.date[:10],
        "isPartOf": {"@type": "CreativeWork", "@id": f"{base}/shows/{show.id}", "name": show.title},
    }
    return script_json(_drop_empty(image))
