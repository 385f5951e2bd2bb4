"""The console's brands: search, a keyset page by name, edit, and a brand's update history.

A brand's history is its ingest jobs (each a show the spiders sent for it), newest
first: when, which show, the outcome and note, the error and attempts.
"""

from __future__ import annotations

import json
import time

from msgspec import Struct

from rk.core.wire import BrandInfo
from rk.server.brands import BrandInputError, clean_name
from rk.server.console.job_rows import JOB_COLUMNS, JobRow, job_row
from rk.server.platform.db.sql_rows import rows
from rk.server.platform.db.tables import Brand
from rk.server.platform.http.errors import ApiError

MAX_SLUG = 200


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


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def list_brand_page(query: str = "", after: str | None = None, limit: int = 50) -> BrandPage:
    """Brands by name whose name contains ``query`` (any case), after the name ``after``."""
    where, args = [], []
    if query:
        where.append("LOWER(b.name) LIKE {} ESCAPE '\\'")
        args.append(_like(query))
    if after is not None:
        where.append("b.name > {}")
        args.append(after)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    found = await rows(
        "SELECT b.id, b.uid, b.name, b.slugs, b.created_at,"
        " (SELECT COUNT(*) FROM articles a WHERE a.brand_id = b.id AND a.deleted_at = 0)"
        f" AS articles FROM brands b {clause} ORDER BY b.name LIMIT {{}}",
        *args,
        limit + 1,
    )
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
    starts = await rows(
        "SELECT uid, name FROM brands WHERE LOWER(name) LIKE {} ESCAPE '\\' ORDER BY name LIMIT {}",
        _like(text)[1:],
        limit,
    )
    seen = {row["uid"] for row in starts}
    if len(starts) < limit:
        more = await rows(
            "SELECT uid, name FROM brands WHERE LOWER(name) LIKE {} ESCAPE '\\'"
            " ORDER BY name LIMIT {}",
            _like(text),
            limit,
        )
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
    """Rename a brand and replace its slugs; BrandInputError for a name another brand has."""
    name = clean_name(name)
    other = await Brand.select(Brand.id).where(Brand.name == name).first()
    if other is not None and int(other["id"]) != brand.id:
        raise BrandInputError(f"another brand is already called {name!r}")
    await Brand.update(
        {Brand.name: name, Brand.slugs: json.dumps(slugs), Brand.updated_at: int(time.time())}
    ).where(Brand.id == brand.id)


async def brand_history(brand_id: int, limit: int = 50) -> list[JobRow]:
    """The brand's ingest jobs, newest first."""
    if limit < 1 or limit > 500:
        raise ApiError(f"limit must be 1 to 500, not {limit}")
    found = await rows(
        f"SELECT {JOB_COLUMNS} FROM ingest_jobs j WHERE j.brand_id = {{}}"
        " ORDER BY j.id DESC LIMIT {}",
        brand_id,
        limit,
    )
    return [job_row(row) for row in found]
