"""One sample's metadata: what the ``.json``, the ``.txt`` and the parquet row say of an image.

Field names follow img2dataset's where it has one (``key``, ``url``, ``caption``, ``width``,
``height``); the rest are the archive's own (brand, season, look, credits, tags, colours).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from msgspec import Struct

SHARD_DIGITS = 5
INDEX_DIGITS = 4


class Colour(Struct, frozen=True):
    """One colour of an image's palette."""

    name: str
    hex: str
    share: float


class Sample(Struct, frozen=True, kw_only=True):
    """An exported image's metadata (its ``.json``; one parquet row)."""

    key: str
    image_id: int
    show_id: int
    url: str
    caption: str
    width: int
    height: int
    sha1: str
    kind: str
    role: str
    look: int | None
    brand: str
    season: str
    city: str
    date: str
    designer: str
    photographer: str
    model_name: str
    source: str
    source_page: str
    archive_url: str
    tags: list[str]
    colours: list[Colour]
    embedded: bool = False


COLOUR_FIELDS = [("name", pa.string()), ("hex", pa.string()), ("share", pa.float32())]
SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("image_id", pa.int64()),
        ("show_id", pa.int64()),
        ("url", pa.string()),
        ("caption", pa.string()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("sha1", pa.string()),
        ("kind", pa.string()),
        ("role", pa.string()),
        ("look", pa.int32()),
        ("brand", pa.string()),
        ("season", pa.string()),
        ("city", pa.string()),
        ("date", pa.string()),
        ("designer", pa.string()),
        ("photographer", pa.string()),
        ("model_name", pa.string()),
        ("source", pa.string()),
        ("source_page", pa.string()),
        ("archive_url", pa.string()),
        ("tags", pa.list_(pa.string())),
        (
            "colours",
            pa.list_(
                pa.struct([("name", pa.string()), ("hex", pa.string()), ("share", pa.float32())])
            ),
        ),
        ("embedded", pa.bool_()),
    ]
)
"""The metadata parquet's columns, in ``Sample``'s order."""


def sample_key(shard: int, index: int) -> str:
    """``000120007``: shard 12, its 8th sample (img2dataset's keys)."""
    return f"{shard:0{SHARD_DIGITS}d}{index:0{INDEX_DIGITS}d}"


def caption(row: dict[str, Any]) -> str:
    """``Acne Studios, Spring 2025 Ready-to-Wear, look 12`` (the show's title for street)."""
    role, position = str(row["role"]), int(row["position"])
    what = f"{'look' if role == 'look' else 'detail'} {position}"
    if row["kind"] == "street":
        what = f"photo {position}" if role == "look" else what
    names = [str(row["brand"]) or str(row["title"]), str(row["season"]) if row["brand"] else ""]
    return ", ".join(part for part in (*names, what) if part)


def sample_of(
    row: dict[str, Any],
    key: str,
    base: str,
    tags: list[str],
    colours: list[dict[str, Any]],
    embedded: bool,
) -> Sample:
    """The metadata of one published image row (``repository.samples``)."""
    look = row["position"] if row["role"] == "look" else row["look_number"]
    street = row["kind"] == "street"
    return Sample(
        key=key,
        image_id=int(row["id"]),
        show_id=int(row["article_id"]),
        url=str(row["source_url"]),
        caption=caption(row),
        width=int(row["width"] or 0),
        height=int(row["height"] or 0),
        sha1=str(row["sha1"]),
        kind=str(row["kind"]),
        role=str(row["role"]),
        look=int(look) if look is not None else None,
        brand=str(row["brand"]),
        season=str(row["season"]),
        city=str(row["city"]),
        date=str(row["date"]),
        designer=str(row["designer"]),
        photographer=str(row["author"]) if street else "",
        model_name=str(row["model_name"] or ""),
        source=str(row["source"]),
        source_page=str(row["url"]),
        archive_url=f"{base}/images/{row['id']}",
        tags=tags,
        colours=[Colour(str(c["name"]), str(c["hex"]), float(c["share"])) for c in colours],
        embedded=embedded,
    )
