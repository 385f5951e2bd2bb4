"""What a street-style post is about: street style or not, city, season, photographer, date."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Fashion-week cities, folded (lowercase ASCII) → display form.
CITIES = {
    "new york": "New York",
    "london": "London",
    "milan": "Milan",
    "paris": "Paris",
    "copenhagen": "Copenhagen",
    "stockholm": "Stockholm",
    "oslo": "Oslo",
    "berlin": "Berlin",
    "florence": "Florence",
    "madrid": "Madrid",
    "tokyo": "Tokyo",
    "seoul": "Seoul",
    "shanghai": "Shanghai",
    "sydney": "Sydney",
    "los angeles": "Los Angeles",
    "sao paulo": "São Paulo",
    "mexico city": "Mexico City",
    "kyiv": "Kyiv",
    "tbilisi": "Tbilisi",
    "lagos": "Lagos",
    "istanbul": "Istanbul",
    "amsterdam": "Amsterdam",
    "helsinki": "Helsinki",
}
_CITY_WORDS = re.compile(r"\b(" + "|".join(sorted(CITIES, key=len, reverse=True)) + r")\b")
_FASHION_WEEK = re.compile(r"(.+?)\s+(?:men'?s\s+|women'?s\s+)?fashion\s+week", re.IGNORECASE)
_SEASON = re.compile(
    r"\b(pre[\s-]fall|spring|summer|fall|autumn|winter|resort|cruise)"
    r"(?:\s*/\s*(summer|winter))?\s+(\d{4})\b",
    re.IGNORECASE,
)
_CREDIT = re.compile(
    r"^\s*photo(?:grapher|graphy|s)?\s*(?:/[^|:]*)?[|:]\s*(.*?)\s*$", re.IGNORECASE
)
_CREDIT_BY = re.compile(r"^\s*(?:photos?|photography|photographed)\s+by\s+(.+?)\s*$", re.IGNORECASE)


def fold(text: str) -> str:
    """Lowercase ASCII with ``-``/``_`` as spaces, for matching words in titles and slugs."""
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[-_]", " ", ascii_text).lower().split())


def is_street_style(texts: Iterable[str]) -> bool:
    """Whether any category, slug, URL or title says "street style"."""
    return any("street style" in f or "streetstyle" in f for f in map(fold, texts))


def city_of(categories: Iterable[str], others: Iterable[str]) -> str:
    """A "<City> Fashion Week" category, else a known city named in categories, title or slug."""
    categories = list(categories)
    for category in categories:
        match = _FASHION_WEEK.fullmatch(" ".join(category.split()))
        if match and not is_street_style([match.group(1)]):
            name = match.group(1).strip()
            return CITIES.get(fold(name), name)
    for text in [*categories, *others]:
        found = _CITY_WORDS.search(fold(text))
        if found:
            return CITIES[found.group(1)]
    return ""


def season_of(texts: Iterable[str]) -> str:
    """The first "Spring 2031" / "Fall/Winter 2031" named in the texts (slugs included), or ""."""
    for text in texts:
        found = _SEASON.search(" ".join(re.sub(r"[-_]", " ", text).split()))
        if found:
            first, second, year = found.groups()
            first = "Pre-Fall" if first.lower().startswith("pre") else first
            words = "/".join(w.title() for w in (first, second) if w)
            return f"{words} {year}"
    return ""


def photographer_of(lines: list[str]) -> str:
    """The name on a "Photographer | Name" (or "Photos by Name") credit line, or ""."""
    for index, line in enumerate(lines):
        match = _CREDIT.match(line) or _CREDIT_BY.match(line)
        if match is None:
            continue
        name = match.group(1) or next((n.strip() for n in lines[index + 1 :] if n.strip()), "")
        name = " ".join(name.split())
        if name and not name.startswith("|"):
            return name[:200]
    return ""
