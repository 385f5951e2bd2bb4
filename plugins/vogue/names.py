"""Vogue naming rules: designer slugs, season titles from slugs, cities in season titles, dates."""

from __future__ import annotations

import re
import unicodedata

_TRANSLIT = str.maketrans(
    {"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss", "ł": "l", "Ł": "L"}
    | {"đ": "d", "Đ": "D", "ı": "i"}
)

# City prefixes seen in Vogue season titles ("Copenhagen Fall 2031"), folded → display form.
KNOWN_CITIES = {
    "tokyo": "Tokyo",
    "copenhagen": "Copenhagen",
    "tbilisi": "Tbilisi",
    "kiev": "Kiev",
    "kyiv": "Kyiv",
    "berlin": "Berlin",
    "stockholm": "Stockholm",
    "seoul": "Seoul",
    "ukraine": "Ukraine",
    "russia": "Russia",
    "shanghai": "Shanghai",
    "istanbul": "Istanbul",
    "sao paulo": "São Paulo",
    "sao paolo": "São Paulo",
    "madrid": "Madrid",
    "mexico city": "Mexico City",
    "australia": "Australia",
    "spain": "Spain",
}
_NOT_CITIES = {"bridal", "menswear", "couture", "haute", "ready", "womenswear"}
_SEASON_WORD = re.compile(
    r"\b(?:pre-fall|spring|summer|fall|autumn|winter|resort)\b", re.IGNORECASE
)
_CITY_SHAPE = re.compile(r"[^\W\d_]+(?: [^\W\d_]+){0,2}")


def ascii_fold(text: str) -> str:
    """``text`` with accents and ligatures transliterated to plain ASCII letters."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_TRANSLIT))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def slugify(name: str) -> str:
    """Vogue's designer slug: lowercase, spaces/``.`` → ``-``, ``&``/``+`` dropped, ASCII."""
    slug = ascii_fold(name).lower().replace("&", "").replace("+", "")
    slug = re.sub(r"[\s.]", "-", slug)
    slug = re.sub(r"[^a-z0-9-]", "", slug)
    return re.sub(r"-{2,}", "-", slug).strip("-")


def name_key(name: str) -> str:
    """A case-, accent- and punctuation-insensitive key for matching designer names."""
    return re.sub(r"[^a-z0-9]", "", ascii_fold(name).casefold())


def season_from_slug(slug: str) -> str:
    """``fall-2031-ready-to-wear`` → ``Fall 2031 Ready-to-Wear`` (best effort, accents lost)."""
    tokens = [token for token in slug.split("-") if token]
    words: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i : i + 3] == ["ready", "to", "wear"]:
            words.append("Ready-to-Wear")
            i += 3
        elif tokens[i : i + 2] == ["pre", "fall"]:
            words.append("Pre-Fall")
            i += 2
        else:
            words.append(tokens[i].capitalize())
            i += 1
    return " ".join(words)


def city_from_season(season: str) -> str:
    """The city prefix of a season title (``Copenhagen Fall 2031`` → ``Copenhagen``), else ""."""
    match = _SEASON_WORD.search(season)
    if match is None or match.start() == 0:
        return ""
    prefix = " ".join(season[: match.start()].split())
    folded = ascii_fold(prefix).lower()
    if folded in KNOWN_CITIES:
        return KNOWN_CITIES[folded]
    if folded in _NOT_CITIES or not _CITY_SHAPE.fullmatch(prefix):
        return ""
    return prefix
