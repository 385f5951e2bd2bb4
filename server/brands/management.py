"""Operator brand management: add brands (with per-source slugs), list them, import a file."""

from __future__ import annotations

import json
import time

from msgspec import Struct

from rk.core.api.errors import RkError
from rk.core.api.wire import BrandInfo
from rk.server.brands.lookup import brand_info
from rk.server.brands.repository import brand_id_named, brands_in_name_order, create_brand
from rk.server.brands.uids import new_brand_uid

MAX_NAME = 200


class BrandInputError(RkError):
    """A brand name, slug or import line is not acceptable."""


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
    """The brand name trimmed; BrandInputError when empty or too long."""
    name = " ".join(name.split())
    if not name:
        raise BrandInputError("brand name is empty")
    if len(name) > MAX_NAME:
        raise BrandInputError(f"brand name is longer than {MAX_NAME} characters")
    return name


async def find_brand(ref: str) -> BrandInfo | None:
    """A brand by numeric id, uid or exact name."""
    info = await brand_info(ref)
    if info is not None:
        return info
    brand_id = await brand_id_named(ref)
    return await brand_info(str(brand_id)) if brand_id is not None else None


async def add_brand(name: str, slugs: dict[str, str] | None = None) -> tuple[BrandInfo, bool]:
    """Create the brand (or return the existing one of that name); True when created."""
    name = clean_name(name)
    existing = await find_brand(name)
    if existing is not None and existing.name == name:
        return existing, False
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
