"""What every wire body is made of: text patterns and field types, the ``Inbound`` and
``Outbound`` bases, the answers any endpoint may give, and the checks and error words the
decoders share. Import them from ``rk.core.api.wire``.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from rk.core.web_urls import web_url_problem

LINE = r"^[^\x00-\x1f\x7f]*$(?![\s\S])"
"""One line of printable text: no NUL, no control character, no newline (ECMA and Python)."""


MULTILINE = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$(?![\s\S])"
"""Printable text that may span lines (tab, newline and carriage return allowed)."""


Url = Annotated[str, Meta(min_length=1, max_length=4096, extra_json_schema={"pattern": LINE})]
"""One line, as documented; checked by ``url_problem`` (a decoder pattern cost 2-3 µs a URL)."""


Text = Annotated[str, Meta(max_length=2000, pattern=MULTILINE)]


ShortText = Annotated[str, Meta(max_length=200, pattern=LINE)]


SourceName = Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$")]


ShowKey = Annotated[str, Meta(min_length=1, max_length=512, pattern=LINE)]


Sha1Hex = Annotated[str, Meta(pattern=r"^[0-9a-f]{40}$")]


ObjectKey = Annotated[str, Meta(min_length=1, max_length=512, pattern=LINE)]


Size = Annotated[int, Meta(ge=0, le=2**40)]


MAX_ID = 2**62
"""The largest id rk accepts anywhere: row ids are BIGINT (migration 0011), with headroom."""


Id = Annotated[int, Meta(ge=1, le=MAX_ID)]


Worker = Annotated[str, Meta(min_length=1, max_length=128, pattern=LINE)]


LookNumber = Annotated[int, Meta(ge=1, le=100_000)]


Kind = Literal["runway", "street"]


class Inbound(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Base of every body the backend decodes: immutable, keyword-only, strict.

    Untracked by the cycle collector (``gc=False``): a decoded body is a tree of strings,
    numbers and lists, never a cycle, and a 40-look show is ~80 structs, which made the
    collector run every few requests (a third of a decode's time, measured in a loop).
    """


class Outbound(Struct, frozen=True, kw_only=True):
    """Base of every body the backend answers with."""


class Pong(Outbound, kw_only=True):
    """Answer to ``GET ping``: the signature was good; the backend's clock and version."""

    time: int
    version: str


class ErrorBody(Outbound, kw_only=True):
    """Every 4xx answer: one line saying what is wrong."""

    error: str


_PLAIN_URL = re.compile(r"https?://[A-Za-z0-9._~-]+(?::[0-9]{1,4})?(?:[/?#]|\Z)")
"""A URL start ``url_problem`` always passes: http(s), a plain ASCII host, a port below 10000."""


_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f]")


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be fetched as an image (control characters, not http(s) as a
    browser reads it, no host, unparseable), or None.

    The common URL (printable ASCII, plain host) passes on two string methods and one
    regex match; only the rest are searched and split (a 40-look show spent most of its
    decode in ``urlsplit`` and per-character pattern checks).
    """
    if url.isascii() and url.isprintable() and _PLAIN_URL.match(url):
        return None
    if _LINE_BREAKING.search(url):
        return "control characters"
    return web_url_problem(url)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def printable(text: str, limit: int | None = 2000) -> str:
    """``text`` fit for a ``Text`` field: control characters as spaces, cut to ``limit``."""
    return _CONTROL.sub(" ", text)[:limit]


_PATTERN_WORDS = {
    LINE: "one line of text without control characters (NUL, newline, …)",
    MULTILINE: "text without control characters (NUL, …)",
}


def decode_error_line(err: msgspec.DecodeError | msgspec.ValidationError) -> str:
    """One operator-readable line for a msgspec decode or validation error.

    A failed text pattern is told in words, not as the regex it failed.
    """
    line = str(err).splitlines()[0]
    for pattern, words in _PATTERN_WORDS.items():
        line = line.replace(f"`str` matching regex {pattern!r}", words)
    return line
