"""The show page's JSON-LD (``transformed["head.jsonld"]``): headline, dates, authors, keywords.

A list whose first item is an ``Article`` on the captured page; a single object or other
item types are accepted too. Every value is checked where it is read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from msgspec import Struct

from rk.plugins.vogue.state import get, items, text
from rk.plugins.vogue.text import clean

ARTICLE_TYPES = {"Article", "NewsArticle", "ReportageNewsArticle"}


class LdArticle(Struct, frozen=True, kw_only=True):
    """What rk reads of the show's JSON-LD Article; all empty when there is none."""

    headline: str = ""
    published: str = ""
    authors: list[str] = []
    keywords: list[str] = []


def article(jsonld: Any) -> LdArticle:
    """The first Article of ``head.jsonld`` (a list or one object); empty when none."""
    candidates = [node for node in items(jsonld) if isinstance(node, dict)]
    if isinstance(jsonld, dict):
        candidates = [jsonld]
    node = next((c for c in candidates if _type(c) & ARTICLE_TYPES), None)
    if node is None:
        return LdArticle()
    keywords = node.get("keywords")
    words = text(keywords).split(",") if isinstance(keywords, str) else items(keywords)
    return LdArticle(
        headline=clean(text(node.get("headline"))),
        published=published(text(node.get("datePublished"))),
        authors=_names(node.get("author")),
        keywords=[word for word in (clean(text(w)) for w in words) if word],
    )


def published(value: str) -> str:
    """An ISO 8601 date-time kept with its offset (``2031-03-04T16:12:00-05:00``), or ""."""
    if not value or len(value) > 64:
        return ""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return ""
    if "T" not in value and " " not in value.strip():
        return moment.date().isoformat()
    return moment.isoformat(timespec="seconds")


def _type(node: dict[str, Any]) -> set[str]:
    kind = node.get("@type")
    return {text(k) for k in items(kind)} if isinstance(kind, list) else {text(kind)}


def _names(author: Any) -> list[str]:
    """Author names from a list of Person objects, one object, or plain strings."""
    people = author if isinstance(author, list) else [author]
    raw = [get(p, "name") if isinstance(p, dict) else p for p in people]
    names = [clean(name) for name in raw if isinstance(name, str)]
    return list(dict.fromkeys(name for name in names if name))
