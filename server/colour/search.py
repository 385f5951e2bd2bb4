"""Search by colour and the colour facet, over published images' stored palettes.

``images_by_colour`` is the service behind ``/search?colour=`` and ``/api/search?colour=``
(wired by the site): a name or ``#hex`` → published images ranked by how much of their
garment is near that colour. Ranking, exact and in Python, after a pre-filter in SQL:

1. the pre-filter keeps palette rows whose stored nearest name is one of the swatches within
   ``max_delta_e + NAME_SLACK`` (ΔE00) of the query, largest share first, at most
   ``CANDIDATES`` rows (an index on ``(name, share)`` serves it);
2. each candidate colour within ``max_delta_e`` of the query scores
   ``share × (1 − ΔE00 / max_delta_e)``; an image's score is the sum over its colours, so a
   garment mostly of the colour beats one with a trim of it, and a near match beats a far one;
3. images are ordered by score, then by their best ΔE00, then newest id first.

``colour_facet`` counts published images per colour name, for a facet beside the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from msgspec import Struct

from rk.core.api.storage import Storage
from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.names import by_name, named_colours, names_within
from rk.server.colour.query import BadColour, parse_colour
from rk.server.colour.repository import published_colours, published_counts
from rk.server.platform.db.database import Database, Row
from rk.server.similarity import ImageHit, hit_url

MATCH_DE = 12.0
"""The farthest (ΔE00) a garment colour may be from the query and still count."""
MAX_MATCH_DE = 50.0
NAME_SLACK = 22.0
"""How far past ``max_delta_e`` a swatch may lie from the query and still have its colours
considered: the farthest any sRGB colour lies from its nearest swatch (21.8, a violet), so
a colour near the query is never left out because its own name is farther."""
CANDIDATES = 5000
MAX_LIMIT = 500
MAX_AMONG = 5000
FACET_MIN_SHARE = 0.2
"""A colour counts in the facet when it is at least this share of an image's garment."""


class ColourHit(ImageHit, frozen=True, kw_only=True):
    """A published image matching a colour: a search hit like any other, and how it matched.

    ``score`` ranks (share near the colour, weighted by closeness); ``delta_e`` is its
    nearest colour's ΔE00 to the query, ``share`` that colour's share, ``name`` and ``hex``
    that colour's; ``url`` is its thumbnail's (else its original's), "" without a storage.
    """

    delta_e: float
    share: float
    name: str
    hex: str


class ColourCount(Struct, frozen=True, kw_only=True):
    """How many published images have a colour of this name (a facet entry)."""

    name: str
    hex: str
    count: int


@dataclass
class _Ranked:
    """One image's running score while candidates are ranked, and its nearest colour."""

    best_row: Row
    best: float
    score: float = 0.0


def _rank(rows: list[Row], lab: Sequence[float], reach: float) -> list[_Ranked]:
    """Candidates scored per image, best first (see the module's docstring)."""
    if not rows:
        return []
    labs = np.array([[row["lab_l"], row["lab_a"], row["lab_b"]] for row in rows], dtype=float)
    distances = delta_e_2000(labs, np.asarray(lab, dtype=float))
    images: dict[int, _Ranked] = {}
    for row, distance in zip(rows, distances.tolist(), strict=True):
        if distance > reach:
            continue
        ranked = images.setdefault(int(row["image_id"]), _Ranked(best_row=row, best=distance))
        ranked.score += float(row["share"]) * (1 - distance / reach)
        if distance < ranked.best:
            ranked.best, ranked.best_row = distance, row
    return sorted(images.values(), key=lambda r: (-r.score, r.best, -int(r.best_row["image_id"])))


async def images_by_colour(
    db: Database,
    colour: str,
    limit: int = 24,
    *,
    kind: str | None = None,
    among: Sequence[int] | None = None,
    max_delta_e: float = MATCH_DE,
    storage: Storage | None = None,
) -> list[ColourHit]:
    """The ``limit`` published images whose garment is most of ``colour``, best first.

    ``colour`` is a fashion colour name (``oxblood``, ``sky blue``) or ``#rrggbb``/``#rgb``.
    ``kind`` keeps runway or street images; ``among`` ranks only those image ids: to combine
    colour with words, a photo or filters, run that search for more results than wanted and
    pass its ids here (the colour's order wins, the other search decides membership).
    With ``storage`` each hit carries a URL of its thumbnail.

    Raises:
        BadColour: an unknown name, a malformed hex, a limit outside 1…500, too many ids
            in ``among`` or a ``max_delta_e`` outside (0, 50] (HTTP 400, one line).
    """
    query = parse_colour(colour)
    if not 1 <= limit <= MAX_LIMIT:
        raise BadColour(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
    if among is not None and len(among) > MAX_AMONG:
        raise BadColour(f"at most {MAX_AMONG} image ids to rank by colour, not {len(among)}")
    if not 0 < max_delta_e <= MAX_MATCH_DE:
        raise BadColour(f"max ΔE must be above 0 and at most {MAX_MATCH_DE:g}, not {max_delta_e}")
    names = names_within(np.asarray(query.lab), max_delta_e + NAME_SLACK)
    rows = await published_colours(db, names, kind=kind, among=among, cap=CANDIDATES)
    hits = []
    for ranked in _rank(rows, query.lab, max_delta_e)[:limit]:
        best = ranked.best_row
        url = ""
        if storage is not None:
            url = await hit_url(storage, best)
        hits.append(
            ColourHit(
                image_id=int(best["image_id"]),
                article_id=int(best["article_id"]),
                kind=str(best["kind"]),
                role=str(best["role"]),
                position=int(best["position"]),
                score=round(ranked.score, 6),
                delta_e=round(ranked.best, 3),
                share=round(float(best["share"]), 4),
                name=str(best["name"]),
                hex=str(best["hex"]),
                url=url,
            )
        )
    return hits


async def colour_facet(
    db: Database, *, kind: str | None = None, min_share: float = FACET_MIN_SHARE
) -> list[ColourCount]:
    """Published images per colour name (a colour counts from ``min_share`` of the garment),
    most first, then in the palette's order; names no published image has are left out."""
    counts = {
        str(row["name"]): int(row["n"]) for row in await published_counts(db, min_share, kind)
    }
    order = {colour.name: n for n, colour in enumerate(named_colours())}
    swatches = by_name()
    return [
        ColourCount(name=name, hex=swatches[name].hex if name in swatches else "", count=n)
        for name, n in sorted(counts.items(), key=lambda item: (-item[1], order.get(item[0], 0)))
    ]
