"""Parsing what the console's URLs and forms carry: ids, cursors, counts.

A malformed id in a URL is a 404 (there is no such page); a malformed cursor or count
is bad input (400), said in one line.
"""

from __future__ import annotations

import re
from typing import Annotated

from litestar.params import PathParameter, QueryParameter

from rk.server.platform.http.errors import BadRequest, NotFound

ID = re.compile(r"^[1-9]\d{0,17}$")


class BadInput(BadRequest):
    """A query parameter or form value the console cannot use."""


def path_id(text: str, what: str) -> int:
    """The id in a path segment; NotFound when it is not a positive integer."""
    if not ID.match(text):
        raise NotFound(f"no {what} {text[:40]!r}")
    return int(text)


def cursor(text: str | None) -> int | None:
    """A ``before=`` keyset cursor: None when absent, BadInput when not an id."""
    if not text:
        return None
    if not ID.match(text):
        raise BadInput(f"before must be a positive id, not {text[:40]!r}")
    return int(text)


def ids(values: list[str], what: str = "article") -> list[int]:
    """Ids ticked in a form; BadInput on anything that is not one."""
    found: list[int] = []
    for value in values:
        if not ID.match(value.strip()):
            raise BadInput(f"{value[:40]!r} is not an {what} id")
        found.append(int(value))
    return found


def count(text: str, name: str, low: int, high: int) -> int:
    """A whole number in [low, high]; BadInput naming the field otherwise."""
    try:
        value = int(text.strip())
    except ValueError:
        raise BadInput(f"{name} must be a whole number") from None
    if not low <= value <= high:
        raise BadInput(f"{name} must be between {low} and {high}, not {value}")
    return value


Text = Annotated[str | None, QueryParameter()]
"""An optional query parameter of the console's pages (checked by the handler)."""
Segment = Annotated[str, PathParameter()]
"""A path segment (an id, an action), checked by the handler."""
