"""Query and path parameters of the public pages and API, declared once with descriptions.

Values arrive as text and are checked by the services (``show_filters``), so a bad one
gets a sentence saying what is wrong rather than a framework validation dump. Ids that
are not ids are simply unknown: a 404, never a 500 from an out-of-range integer. The five
filters of a show list (and ``all``, the filter whose every value the sidebar lists) arrive
together as one ``FilterQuery``, with its cursor as one
``ShowsQuery``.
"""

from __future__ import annotations

import re
from typing import Annotated

from litestar.di import Provide
from litestar.params import PathParameter, QueryParameter
from msgspec import Struct

from rk.core.api.wire import MAX_ID
from rk.server.platform.http.errors import NotFound

ID = re.compile(r"^[1-9]\d{0,17}$")

Brand = Annotated[str | None, QueryParameter(description="A brand's uid (see /api/brands)")]
Season = Annotated[
    str | None, QueryParameter(description="Exact season, e.g. Spring 2025 Ready-to-Wear")
]
Year = Annotated[
    str | None,
    QueryParameter(
        description="The season's year, e.g. 2025 (Spring 2025 shows shown in 2024 included);"
        " the show date's year for a season that names none"
    ),
]
City = Annotated[str | None, QueryParameter(description="Exact city, e.g. Paris")]
Kind = Annotated[str | None, QueryParameter(description="runway or street")]
Tag = Annotated[
    str | None,
    QueryParameter(description="Shows with a look tagged so (a name of the tag vocabulary)"),
]
All = Annotated[
    str | None,
    QueryParameter(description="List every value of this filter: season, year, city or brand"),
]
Before = Annotated[
    str | None,
    QueryParameter(description="Cursor: shows older than this show id"),
]
After = Annotated[
    str | None,
    QueryParameter(description="Cursor: the shows listed after this show id"),
]
SeasonSlug = Annotated[
    str, PathParameter(description="A season's slug, e.g. spring-2025-ready-to-wear")
]
Query = Annotated[str | None, QueryParameter(description="What to look for, in words")]
Colour = Annotated[
    str | None,
    QueryParameter(description="A colour name (e.g. oxblood, sky blue) or #rrggbb / #rgb"),
]
Like = Annotated[str | None, QueryParameter(description="Looks like this published image (id)")]
ShowId = Annotated[str, PathParameter(description="A published show's id")]
ImageId = Annotated[str, PathParameter(description="A published image's id")]
BrandUid = Annotated[str, PathParameter(description="A brand's uid")]


class FilterQuery(Struct, frozen=True, kw_only=True):
    """The filters of a show list as the URL gave them (``show_filters`` checks them)."""

    brand: Brand = None
    season: Season = None
    year: Year = None
    city: City = None
    kind: Kind = None
    tag: Tag = None
    all: All = None


class ShowsQuery(FilterQuery, frozen=True, kw_only=True):
    """A show list's filters and its keyset cursor as the URL gave them."""

    before: Before = None


QUERIES = {
    "filter_query": Provide(FilterQuery, sync_to_thread=False),
    "shows_query": Provide(ShowsQuery, sync_to_thread=False),
}
"""The dependencies that read a handler's ``filter_query`` or ``shows_query`` from the query
string: a page and its JSON twin declare these parameters once."""


def parse_id(text: str, what: str) -> int:
    """The id in a path segment; NotFound when it is not a positive integer id."""
    if not ID.match(text) or int(text) > MAX_ID:
        raise NotFound(f"no published {what} {text[:40]!r}")
    return int(text)
