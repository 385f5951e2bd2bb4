"""Find and decode ``window.__PRELOADED_STATE__``, the JSON every Vogue Runway page carries.

The state is located by its marker, never by script index (the index moved twice in 2023–25).
Only the paths rk reads are typed, so msgspec skips the large unrelated parts of the state
without building objects. Leaves of uncertain type stay ``Any`` and are checked where used;
gallery items stay raw until their gallery is wanted, and an item of an unexpected shape
becomes None on its own, so one odd look never sinks the whole show.
"""

from __future__ import annotations

import json
import re
from typing import Any, Generic, TypeVar

import msgspec
from msgspec import Struct

from rk.core.api.errors import SourceError

MARKER = "window.__PRELOADED_STATE__"
_ASSIGN = re.compile(r"\s*=\s*")
_DECODER = json.JSONDecoder()

S = TypeVar("S")
T = TypeVar("T")


class VogueParseError(SourceError):
    """A Vogue page had no usable ``__PRELOADED_STATE__`` or not the shape rk reads."""


class _Camel(Struct, rename="camel", kw_only=True):
    """Base of the state Structs: JSON keys are camelCase, unknown keys are skipped."""


class PageState(_Camel, Generic[T]):
    """A page's state: only its ``transformed`` part, of a shape per page kind, is read."""

    transformed: T | None = None


class AzTransformed(_Camel):
    """``transformed`` of the designer A–Z page."""

    all_runway_designers: Any = None


AzState = PageState[AzTransformed]
"""State of ``/fashion-shows/designers``."""


class DesignerTransformed(_Camel):
    """``transformed`` of a designer page."""

    access: Any = None
    runway_designer_content: Any = None


DesignerState = PageState[DesignerTransformed]
"""State of ``/fashion-shows/designer/{slug}``."""


class Rendition(_Camel):
    """One rendition (``sm`` … ``xxl``) of an image."""

    url: Any = None
    width: Any = None
    height: Any = None


class Image(_Camel):
    """An image object; only its renditions matter to rk."""

    sources: dict[str, Rendition | None] | None = None


class Item(_Camel):
    """One slide of a gallery: its slideshow ``url`` (``…#N``), caption and image.

    ``look_number`` is the older shape's own counter; the real page has none.
    """

    url: Any = None
    caption: Any = None
    look_number: Any = None
    image: Image | None = None


class Gallery(_Camel):
    """A gallery (Collection, Details, Beauty, …); items stay raw until rk wants them."""

    id: Any = None
    title: Any = None
    items: msgspec.Raw = msgspec.Raw(b"null")


class Galleries(_Camel):
    """``transformed.runwayShowGalleries``."""

    galleries: list[Gallery | None] | None = None


class ShowTransformed(_Camel):
    """``transformed`` of a show page, with its JSON-LD and canonical URL."""

    access: Any = None
    runway_show_content: Any = None
    runway_show_galleries: Galleries | None = None
    jsonld: Any = msgspec.field(default=None, name="head.jsonld")
    canonical_url: Any = msgspec.field(default=None, name="head.canonicalUrl")


ShowState = PageState[ShowTransformed]
"""State of ``/fashion-shows/{season}/{designer}``."""


class SeasonTransformed(_Camel):
    """``transformed`` of a season page."""

    runway_season_content: Any = None


SeasonState = PageState[SeasonTransformed]
"""State of ``/fashion-shows/{season}``."""


def gallery_items(raw: msgspec.Raw) -> list[Item | None]:
    """A gallery's items; an item of an unexpected shape becomes None instead of sinking all.

    The typed decode is the fast path; when any item does not fit it, the items are decoded
    loosely and each one is converted on its own.
    """
    try:
        return msgspec.json.decode(raw, type=list[Item | None] | None) or []
    except msgspec.ValidationError:
        loose = msgspec.json.decode(raw)
    converted: list[Item | None] = []
    for item in items(loose):
        try:
            converted.append(msgspec.convert(item, Item | None))
        except msgspec.ValidationError:
            converted.append(None)
    return converted


def _state_start(html: str, url: str) -> int:
    """Index of the ``{`` that opens the JSON assigned to the marker."""
    found = html.find(MARKER)
    while found != -1:
        assign = _ASSIGN.match(html, found + len(MARKER))
        if assign is not None and html.startswith("{", assign.end()):
            return assign.end()
        found = html.find(MARKER, found + len(MARKER))
    raise VogueParseError(f"{url}: no window.__PRELOADED_STATE__ = {{…}} in the page")


def state_text(html: str, url: str) -> str:
    """The exact JSON text assigned to ``window.__PRELOADED_STATE__``.

    ``raw_decode`` reads exactly one JSON value, so ``;`` or ``</script>`` inside strings and
    statements after the assignment cannot cut it short or run it long.
    """
    start = _state_start(html, url)
    try:
        _, end = _DECODER.raw_decode(html, start)
    except (ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        message = f"{url}: window.__PRELOADED_STATE__ is not valid JSON ({reason})"
        raise VogueParseError(message) from None
    return html[start:end]


def _decode(text: str, kind: type[S], url: str) -> S:
    try:
        return msgspec.json.decode(text, type=kind)
    except (msgspec.DecodeError, RecursionError) as exc:
        line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise VogueParseError(f"{url}: unexpected page state ({line})") from None


def decode_state(html: str, url: str, kind: type[S]) -> S:
    """The page state decoded as ``kind``; VogueParseError when missing or malformed.

    Fast path: the text up to the closing ``</script>`` minus a trailing ``;`` is almost always
    exactly the JSON, decoded in one msgspec pass. A syntax error there (a ``</script>`` inside
    a string, a second statement) falls back to finding the exact end first.
    """
    start = _state_start(html, url)
    stop = html.find("</script", start)
    stop = len(html) if stop == -1 else stop
    while stop > start and html[stop - 1] in " \t\r\n;":
        stop -= 1
    try:
        return msgspec.json.decode(html[start:stop], type=kind)
    except msgspec.ValidationError as exc:
        raise VogueParseError(f"{url}: unexpected page state ({exc})") from None
    except (msgspec.DecodeError, RecursionError):
        return _decode(state_text(html, url), kind, url)


def get(obj: Any, key: str) -> Any:
    """``obj[key]`` when ``obj`` is a JSON object, else None."""
    return obj.get(key) if isinstance(obj, dict) else None


def items(obj: Any) -> list[Any]:
    """``obj`` when it is a JSON array, else an empty list."""
    return obj if isinstance(obj, list) else []


def text(obj: Any) -> str:
    """``obj`` as a stripped string when it is a string or number, else ""."""
    if isinstance(obj, str):
        return obj.strip()
    if isinstance(obj, int | float) and not isinstance(obj, bool):
        return str(obj)
    return ""
