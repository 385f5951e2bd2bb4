"""The trends' query parameters, checked once for the page, the CSV and the JSON API alike.

``tag`` or ``colour`` (not both) names what to follow; ``designer`` (a brand's uid or name),
``city`` and ``kind`` narrow the looks counted; ``from`` and ``to`` (season slugs, as in
``/seasons/<slug>``) are the two seasons compared for risers and fallers. A bad value is a
``BadTrend``: a 400 whose one line says what is wrong.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from litestar.params import QueryParameter
from msgspec import Struct

from rk.server.colour import named_colours
from rk.server.platform.http.errors import BadRequest
from rk.server.trends.repository import Scope, brand_named, published_city
from rk.server.trends.vocabulary import known_tag

KINDS = ("runway", "street")
MAX_TAG = 64
"""Longest tag (the ``image_tags.tag`` column)."""
MAX_TEXT = 200
"""Longest designer, city or season slug."""
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

Tag = Annotated[str | None, QueryParameter(description="A tag to follow, e.g. trench coat")]
Colour = Annotated[str | None, QueryParameter(description="A colour name to follow, e.g. oxblood")]
Designer = Annotated[str | None, QueryParameter(description="A brand's uid or name")]
City = Annotated[str | None, QueryParameter(description="A city of published shows, e.g. Paris")]
Kind = Annotated[str | None, QueryParameter(description="runway or street")]
From = Annotated[
    str | None,
    QueryParameter(name="from", description="Season slug compared from (default: the one before)"),
]
To = Annotated[
    str | None,
    QueryParameter(name="to", description="Season slug compared to (default: the latest)"),
]


class BadTrend(BadRequest):
    """A trends parameter rk cannot use (400)."""


class TrendQuery(Struct, frozen=True, kw_only=True):
    """The parameters as they arrived (None: not given); the page, the CSV and the JSON
    route read it from the query string as one dependency (``before``/``after`` are
    ``from``/``to`` there)."""

    tag: Tag = None
    colour: Colour = None
    designer: Designer = None
    city: City = None
    kind: Kind = None
    before: From = None
    after: To = None


class CheckedQuery(Struct, frozen=True, kw_only=True):
    """Checked parameters: what to follow (``by`` "" for nothing), the scope and the seasons
    to compare (slugs, "" for the default: the two latest)."""

    by: Literal["tag", "colour", ""] = ""
    name: str = ""
    scope: Scope = Scope()
    designer: str = ""
    before: str = ""
    after: str = ""


def _text(label: str, value: str | None, longest: int) -> str:
    """``value`` with its spaces squeezed; BadTrend when too long or holding control codes."""
    text = " ".join((value or "").split())
    if len(text) > longest:
        raise BadTrend(f"{label} is longer than {longest} characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        raise BadTrend(f"{label} holds control characters")
    return text


def _slug(label: str, value: str | None) -> str:
    """A season slug parameter, lower-cased ("" when not given); BadTrend when malformed."""
    text = _text(label, value, MAX_TEXT).lower()
    if text and not SLUG.match(text):
        raise BadTrend(f"{label} {text[:60]!r} is not a season slug (see /seasons)")
    return text


def _colour(value: str) -> str:
    """The colour name ``value`` stands for; BadTrend for a #hex or an unknown name."""
    name = value.lower()
    if name.startswith("#"):
        raise BadTrend("trends follow a colour name (e.g. oxblood), not a #hex")
    if name not in {swatch.name for swatch in named_colours()}:
        raise BadTrend(f"unknown colour {value[:60]!r}: use a name the colour search lists")
    return name


async def checked(raw: TrendQuery) -> CheckedQuery:
    """``raw`` checked against the archive; BadTrend names the first problem."""
    tag = _text("tag", raw.tag, MAX_TAG)
    colour = _text("colour", raw.colour, MAX_TAG)
    if tag and colour:
        raise BadTrend("follow a tag or a colour, not both")
    if tag and not await known_tag(tag):
        raise BadTrend(f"unknown tag {tag[:60]!r}")
    name = tag or (_colour(colour) if colour else "")
    kind = _text("kind", raw.kind, MAX_TEXT).lower()
    if kind and kind not in KINDS:
        raise BadTrend(f"kind must be runway or street, not {kind[:60]!r}")
    designer = _text("designer", raw.designer, MAX_TEXT)
    brand = await brand_named(designer) if designer else (0, "")
    if brand is None:
        raise BadTrend(f"no designer {designer[:60]!r} in the archive")
    city = _text("city", raw.city, MAX_TEXT)
    if city:
        spelt = await published_city(city)
        if spelt is None:
            raise BadTrend(f"no published show in {city[:60]!r}")
        city = spelt
    before, after = _slug("from", raw.before), _slug("to", raw.after)
    if before and before == after:
        raise BadTrend("from and to must be two different seasons")
    return CheckedQuery(
        by="tag" if tag else "colour" if colour else "",
        name=name,
        scope=Scope(kind=kind, brand_id=brand[0], city=city),
        designer=brand[1],
        before=before,
        after=after,
    )
