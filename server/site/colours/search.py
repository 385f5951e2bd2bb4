"""Search by colour for ``/search?colour=`` and ``/api/search?colour=``: alone, or with words,
a kept search photo, or the show filters.

The colour (a fashion colour name or ``#hex``) is checked first, so a bad one is a 400
before a model runs. Results are ranked by the colour slice (``images_by_colour``): how much
of each garment is near the colour, weighted by closeness (ΔE2000 and share). The other
parts only decide which images may be ranked:

- words (``q``) or a photo (``photo=<sha1>``): the ``COMBINED`` published looks nearest
  them, so a colour with words is "the looks among the words' best that have this colour,
  most of it first";
- show filters (brand, season, year, city): the images of the shows they list, the newest
  ``FILTERED`` of them; ``kind`` is applied by the colour search itself.

An image counts only while a colour of its palette lies within ΔE2000 12 of the one asked
for (the slice's ``MATCH_DE``); only published images of live shows are answered.
"""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.embedders import Embedder
from rk.core.api.storage import Storage
from rk.server.colour import (
    ColourCount,
    ColourHit,
    ColourQuery,
    colour_facet,
    images_by_colour,
    parse_colour,
)
from rk.server.platform.db.sql_rows import database
from rk.server.similarity import ModelIndex, by_vector
from rk.server.site.params import FilterQuery
from rk.server.site.photo_search import KeptPhoto, kept_vector
from rk.server.site.repository.images import filtered_image_ids
from rk.server.site.search import clean_query, words_vector
from rk.server.site.show_filters import ShowFilters, parse_filters

COMBINED = 200
"""How many of the words' or the photo's nearest looks the colour ranks."""
FILTERED = 5000
"""How many images of the filtered shows (newest first) the colour ranks."""


class ColourSearch(Struct, frozen=True, kw_only=True):
    """A colour search's answer: the colour, what it was combined with, the hits best first.

    ``model`` is the model that chose the candidates ("" when only the colour and filters
    did); ``query`` the cleaned words, ``photo`` the kept search photo, if any.
    """

    colour: ColourQuery
    model: str
    query: str
    photo: KeptPhoto | None
    filters: ShowFilters
    hits: list[ColourHit]


async def _nearest_ids(
    storage: Storage, vector: list[float], index: ModelIndex, kind: str
) -> list[int]:
    """The published looks nearest ``vector`` (of ``kind`` when given), best first."""
    hits = await by_vector(vector, COMBINED, storage, index, kind or None)
    return [hit.image_id for hit in hits]


async def colour_search(
    storage: Storage,
    embedder: Embedder | None,
    index: ModelIndex | None,
    colour: str,
    *,
    q: str | None = None,
    photo: str | None = None,
    filters: FilterQuery | None = None,
    k: int = 48,
) -> ColourSearch:
    """The ``k`` published images most of ``colour`` among what ``q``, ``photo`` and
    ``filters`` allow (see the module's docstring).

    Raises:
        BadColour: an unknown name or a malformed hex. BadSearch / BadFilter / NotFound: bad
            words or filters. SearchOff: words or a photo on a backend whose model cannot.
            PhotoGone: the photo is not kept.
    """
    wanted = parse_colour(colour)
    query = clean_query(q)
    checked = await parse_filters(filters or FilterQuery())
    among: list[int] | None = None
    model = ""
    kept: KeptPhoto | None = None
    if photo:
        kept, vector, found_in = await kept_vector(embedder, index, photo.strip())
        among = await _nearest_ids(storage, vector, found_in, checked.kind)
    elif query:
        vector, found_in = await words_vector(embedder, index, query)
        among = await _nearest_ids(storage, vector, found_in, checked.kind)
    if among is not None and embedder is not None:
        model = embedder.model_id
    if checked.brand_id or checked.season or checked.year or checked.city:
        shows = await filtered_image_ids(checked, FILTERED)
        listed = set(shows)
        among = shows if among is None else [i for i in among if i in listed]
    hits: list[ColourHit] = []
    if among is None or among:
        hits = await images_by_colour(
            database(), colour, k, kind=checked.kind or None, among=among, storage=storage
        )
    return ColourSearch(
        colour=wanted, model=model, query=query, photo=kept, filters=checked, hits=hits
    )


async def colour_counts() -> list[ColourCount]:
    """Published images per colour name, most first: the colour facet's swatches."""
    return await colour_facet(database())
