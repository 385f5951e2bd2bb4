"""Operator brand management: add brands (with per-source slugs), list them, import a file."""

from __future__ import annotations

import json
import time
import unicodedata

from msgspec import Struct

from rk.core.api.errors import RkError, UnknownPlugin
from rk.core.api.lookups import get_source
from rk.core.api.sources import slug_problem
from rk.core.api.wire import BrandInfo
from rk.server.brands.lookup import brand_info, slugs_of
from rk.server.brands.repository import (
    brands_in_name_order,
    brands_mentioning,
    brands_of_length,
    create_brand,
)
from rk.server.brands.uids import new_brand_uid
from rk.server.platform.http.errors import ApiError

MAX_NAME = 200


class BrandInputError(RkError):
    """A brand name, slug or import line is not acceptable."""


class BrandRefused(BrandInputError, ApiError):
    """A new brand's slug is unknown, malformed or another brand's (HTTP 422)."""


class BrandNameClash(BrandRefused):
    """A new brand's name equals an existing one's but for case (HTTP 409)."""

    status_code = 409


class ImportReport(Struct, kw_only=True):
    """What ``import_brands`` did, line by line."""

    added: int = 0
    existing: int = 0
    bad: list[str] = []

    def summary(self) -> str:
        """One line for the operator."""
        text = f"imported {self.added} brands, {self.existing} already present"
        return text + (f", {len(self.bad)} bad lines" if self.bad else "")


def parse_slugs(items: list[str]) -> dict[str, str]:
    """``["vogue=acne-studios"]`` → ``{"vogue": "acne-studios"}``; BrandInputError otherwise."""
    slugs: dict[str, str] = {}
    for item in items:
        source, sep, slug = item.partition("=")
        if not sep or not source.strip() or not slug.strip():
            raise BrandInputError(f"slug {item!r} must look like source=slug (vogue=acne-studios)")
        slugs[source.strip()] = slug.strip()
    return slugs


def clean_name(name: str) -> str:
    """The brand name NFC-normalised (``ç`` is one code point however it was typed) and
    trimmed; BrandInputError when empty or too long."""
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not name:
        raise BrandInputError("brand name is empty")
    if len(name) > MAX_NAME:
        raise BrandInputError(f"brand name is longer than {MAX_NAME} characters")
    return name


async def find_brand(ref: str) -> BrandInfo | None:
    """A brand by numeric id, uid or name (in any case)."""
    info = await brand_info(ref)
    if info is not None:
        return info
    try:
        return await brand_named(ref)
    except BrandInputError:
        return None  # no brand can have a name that is empty or too long


async def brand_named(name: str) -> BrandInfo | None:
    """The brand whose name is ``name`` ignoring case (after NFC and trimming), or None."""
    name = clean_name(name)
    for row in await brands_of_length(len(name)):
        if unicodedata.normalize("NFC", row["name"]).lower() == name.lower():
            return await brand_info(str(row["id"]))
    return None


async def check_slugs(slugs: dict[str, str], brand_id: int = 0) -> None:
    """BrandRefused unless each source is registered, judges its slug well formed
    (``slug_problem``) and no brand but ``brand_id`` holds that slug on it."""
    for source, slug in slugs.items():
        try:
            problem = slug_problem(get_source(source), slug)
        except UnknownPlugin as exc:
            raise BrandRefused(f"slug {source}={slug}: {exc}") from None
        if problem:
            raise BrandRefused(f"{source} slug {slug[:80]!r}: {problem}")
        for row in await brands_mentioning(slug):
            if row["id"] != brand_id and slugs_of(row["slugs"]).get(source) == slug:
                raise BrandRefused(
                    f"{source} slug {slug!r} belongs to the brand {row['name']!r} (id={row['id']})"
                )


async def add_brand(name: str, slugs: dict[str, str] | None = None) -> tuple[BrandInfo, bool]:
    """Create the brand (or return the existing one of that very name); True when created.

    BrandNameClash when a brand's name differs from ``name`` only in case; BrandRefused
    for a slug ``check_slugs`` refuses.
    """
    name = clean_name(name)
    existing = await brand_named(name)
    if existing is not None and existing.name == name:
        return existing, False
    if existing is not None:
        raise BrandNameClash(
            f"brand name {name!r} clashes with the existing brand {existing.name!r}"
            f" (id={existing.id}); names are unique ignoring case"
        )
    await check_slugs(slugs or {})
    return await new_brand(name, slugs or {}), True


async def new_brand(name: str, slugs: dict[str, str]) -> BrandInfo:
    """Create the brand ``name`` with ``slugs`` and its uid (the engine's unique violation
    when a brand of that name was created meanwhile)."""
    brand_id = await create_brand(name, json.dumps(slugs), int(time.time()), new_brand_uid)
    info = await brand_info(str(brand_id))
    assert info is not None
    return info


async def list_brands(prefix: str = "") -> list[BrandInfo]:
    """Brands in name order, optionally only those whose name starts with ``prefix``."""
    return [
        BrandInfo(id=row["id"], uid=row["uid"], name=row["name"], slugs=json.loads(row["slugs"]))
        for row in await brands_in_name_order(prefix)
    ]


async def import_brands(text: str) -> ImportReport:
    """Add the brands of a file's text: one per line, ``Name | vogue=slug …``; ``#`` comments."""
    report = ImportReport()
    for number, line in enumerate(text.splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        name, _, rest = text.partition("|")
        try:
            _, created = await add_brand(name, parse_slugs(rest.split()))
        except BrandInputError as exc:
            report.bad.append(f"line {number}: {exc}")
            continue
        if created:
            report.added += 1
        else:
            report.existing += 1
    return report
