"""The console's brands: search, a keyset page by name, edit, and a brand's update history.

A brand's history is its ingest jobs (each a show the spiders sent for it), newest
first: when, which show and the article it made, the outcome and note, the error and
attempts.
"""

from __future__ import annotations

import json

from msgspec import Struct

from rk.core.api.sources import MAX_SLUG
from rk.core.api.wire import BrandInfo
from rk.server.brands import BrandInputError, brand_named, check_slugs, clean_name
from rk.server.console.job_rows import JobRow, job_row
from rk.server.console.jobs import with_articles
from rk.server.console.repository.brands import (
    brand_job_rows,
    brand_page_rows,
    like,
    names_like,
    rename_brand,
)
from rk.server.platform.http.errors import ApiError


class BrandRow(Struct, frozen=True, kw_only=True):
    """A brand in the list, with how many articles and tasks it has."""

    id: int
    uid: str
    name: str
    slugs: dict[str, str]
    articles: int
    created_at: int


class BrandPage(Struct, frozen=True, kw_only=True):
    """A page of brands by name and the name to continue after (None on the last page)."""

    items: list[BrandRow]
    next_after: str | None


def _slugs(text: str) -> dict[str, str]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


async def list_brand_page(query: str = "", after: str | None = None, limit: int = 50) -> BrandPage:
    """Brands by name whose name contains ``query`` (any case), after the name ``after``."""
    found = await brand_page_rows(query, after, limit + 1)
    items = [
        BrandRow(
            id=int(row["id"]),
            uid=str(row["uid"]),
            name=str(row["name"]),
            slugs=_slugs(str(row["slugs"])),
            articles=int(row["articles"]),
            created_at=int(row["created_at"]),
        )
        for row in found[:limit]
    ]
    return BrandPage(items=items, next_after=items[-1].name if len(found) > limit else None)


async def search_names(query: str, limit: int = 10) -> list[dict[str, str]]:
    """Up to ``limit`` brands whose name starts with ``query``, then those containing it."""
    if not query.strip():
        return []
    text = query.strip()[:200]
    starts = await names_like(like(text)[1:], limit)
    seen = {row["uid"] for row in starts}
    if len(starts) < limit:
        more = await names_like(like(text), limit)
        starts += [row for row in more if row["uid"] not in seen][: limit - len(starts)]
    return [{"uid": str(row["uid"]), "name": str(row["name"])} for row in starts]


def clean_slugs(slugs: dict[str, str], sources: list[str]) -> dict[str, str]:
    """Per-source slugs: known sources only, trimmed, empty ones dropped; BrandInputError."""
    cleaned: dict[str, str] = {}
    for source, slug in slugs.items():
        if source not in sources:
            raise BrandInputError(f"no source {source!r}")
        slug = slug.strip()
        if len(slug) > MAX_SLUG:
            raise BrandInputError(f"the {source} slug has more than {MAX_SLUG} characters")
        if slug and not all(ch.isalnum() or ch in "-_." for ch in slug):
            raise BrandInputError(f"the {source} slug may hold letters, digits, '-', '_', '.'")
        if slug:
            cleaned[source] = slug
    return cleaned


async def update_brand(brand: BrandInfo, name: str, slugs: dict[str, str]) -> None:
    """Rename a brand and replace its slugs; BrandInputError for a name another brand has in
    any case, BrandRefused for a slug ``check_slugs`` refuses."""
    name = clean_name(name)
    other = await brand_named(name)
    if other is not None and other.id != brand.id:
        raise BrandInputError(f"another brand is already called {other.name!r}")
    await check_slugs(slugs, brand.id)
    await rename_brand(brand.id, name, slugs)


async def brand_history(brand_id: int, limit: int = 50) -> list[JobRow]:
    """The brand's ingest jobs, newest first."""
    if limit < 1 or limit > 500:
        raise ApiError(f"limit must be 1 to 500, not {limit}")
    found = await brand_job_rows(brand_id, limit)
    return await with_articles([job_row(row) for row in found])
