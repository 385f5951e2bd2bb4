"""What a season's name says: its year, its collection and its URL slug.

Sources name seasons as they publish them ("Spring 2025 Ready-to-Wear", "Copenhagen Fall
2031", "Fall/Winter 2031", "Resort 2026"). A season's year is the one in its name, so a
Spring 2018 show is a 2018 show even when it was shown (and dated) in September 2017; a
name without a year has none, and its shows count by their date instead.
"""

from __future__ import annotations

import re
import unicodedata

YEAR_IN_NAME = re.compile(r"(?<!\d)(19|20|21)\d\d(?!\d)")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SLUG = 200


def season_year(name: str) -> int | None:
    """The year a season's name gives (``Spring 2018 Couture`` → 2018); None when it gives none."""
    found = YEAR_IN_NAME.search(name)
    return int(found.group(0)) if found else None


def collection_of(name: str) -> str:
    """The collection a season's name gives after its year (``Ready-to-Wear``, ``Menswear``);
    "" when it names none (``Resort 2026``)."""
    found = YEAR_IN_NAME.search(name)
    return " ".join(name[found.end() :].split()) if found else ""


def season_slug(name: str) -> str:
    """The season's URL segment: ``Fall/Winter 2031 Ready-to-Wear`` →
    ``fall-winter-2031-ready-to-wear`` (accents folded, anything else between words a
    hyphen); "" for a name of signs only."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return "-".join(re.findall(r"[a-z0-9]+", folded))[:MAX_SLUG].strip("-")


def is_slug(text: str) -> bool:
    """Whether ``text`` can be a season's slug at all (else it names no season: a 404)."""
    return len(text) <= MAX_SLUG and bool(SLUG.match(text))
