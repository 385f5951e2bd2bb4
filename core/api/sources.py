"""The source interface: a site plugin lists shows and turns one show into a ShowIngest."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

import httpx
from msgspec import Struct

from rk.core.api.errors import ConfigError, SourceError
from rk.core.api.wire import ShowIngest


class NoSuchSeason(SourceError):
    """The source has no page for this season (it answered 404)."""


SEASON_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


DEFAULT_THUMB_SIZE = 256


def thumb_size_option(options: Mapping[str, Any], source: str) -> int:
    """The ``thumb_size`` option (shortest side of a thumbnail, px): which renditions cover it.

    ``Settings.source_options`` fills it from ``media.thumb_size``; the environment may give
    it as a string. ConfigError when it is not a positive whole number.
    """
    value = options.get("thumb_size", DEFAULT_THUMB_SIZE)
    if isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) < 6:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
        raise ConfigError(
            f"sources.{source}.thumb_size must be a whole number 1-10000, got {value!r}"
        )
    return value


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def flag_option(options: Mapping[str, Any], name: str, source: str, default: bool = False) -> bool:
    """A boolean option that may come from YAML (bool) or the environment (string)."""
    value = options.get(name, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ConfigError(f"sources.{source}.{name} must be true or false, got {value!r}")


def season_slug(value: str) -> str:
    """``value`` trimmed when it is a season slug (``fall-2031-ready-to-wear``), else ValueError."""
    slug = value.strip()
    if not SEASON_SLUG.fullmatch(slug) or len(slug) > 200:
        raise ValueError(
            f"season {value[:80]!r} is not a season slug (lowercase words and digits joined by"
            " '-', e.g. fall-2031-ready-to-wear)"
        )
    return slug


BRAND_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_SLUG = 200


def lowercase_slug_problem(slug: str) -> str | None:
    """The default check of a brand's slug on a site: lowercase words and digits joined by
    '-' (``acne-studios``), at most MAX_SLUG characters; None when it is one."""
    if len(slug) > MAX_SLUG:
        return f"a slug has at most {MAX_SLUG} characters"
    if not BRAND_SLUG.fullmatch(slug):
        return "a slug is lowercase words and digits joined by '-' (acne-studios)"
    return None


def slug_problem(source: type[Source], slug: str) -> str | None:
    """What is wrong with ``slug`` as a brand's slug on ``source``: the source's own
    ``slug_problem`` when it has one (third-party sources may not), else the default."""
    check = getattr(source, "slug_problem", None)
    return check(slug) if callable(check) else lowercase_slug_problem(slug)


class BrandTarget(Struct, frozen=True, kw_only=True):
    """The brand a crawl is for; ``slug`` is an explicit per-source slug that wins over lookup.

    ``season`` (the source's season slug) narrows the crawl to the brand's show of that
    season; "" means its newest shows.
    """

    id: int = 0
    uid: str = ""
    name: str
    slug: str = ""
    season: str = ""


class ShowSummary(Struct, frozen=True, kw_only=True):
    """One show (or post) in a listing, newest first; enough to fetch it later.

    A season listing also names each show's brand: its display name and slug on the source.
    """

    url: str
    title: str = ""
    key: str = ""
    brand_name: str = ""
    brand_slug: str = ""


@runtime_checkable
class Source(Protocol):
    """A site that yields shows. Constructed per crawl with the runtime's shared HTTP client.

    ``kind`` chooses the storage prefix of its images (``runway`` or ``street``);
    ``needs_brand`` is False for sources (street style) that list recent posts instead.
    A source may also define ``slug_problem(slug) -> str | None`` (a static method): what
    is wrong with a brand's slug on its site, None when it is fine; ``slug_problem`` below
    applies it, or ``lowercase_slug_problem`` for a source without one.
    """

    name: ClassVar[str]
    kind: ClassVar[Literal["runway", "street"]]
    needs_brand: ClassVar[bool]

    def __init__(self, client: httpx.AsyncClient, options: Mapping[str, Any]) -> None: ...

    async def list_shows(self, brand: BrandTarget | None, limit: int | None) -> list[ShowSummary]:
        """The brand's shows (or recent posts when ``brand`` is None), newest first."""
        ...

    async def fetch_show(self, show: ShowSummary, brand: BrandTarget | None) -> ShowIngest:
        """One show as a ShowIngest; raises ShowSkipped or the plugin's SourceError."""
        ...


@runtime_checkable
class SeasonSource(Source, Protocol):
    """A source that can list every show of one season (a whole fashion week)."""

    async def list_season(self, season: str) -> list[ShowSummary]:
        """Every show of ``season`` (the source's season slug), each naming its brand.

        Raises NoSuchSeason when the source has no such season, the plugin's SourceError
        when the season page cannot be read, and ValueError when ``season`` is not a slug.
        """
        ...
