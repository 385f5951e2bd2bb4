"""A test archive of flat-colour garments with known colours, stored as thumbnails.

Eight published shows (six runway, two street) of twelve looks each; look ``n`` of show ``s``
wears colour ``(n + s) % 8`` of ``COLOURS``, so every colour has twelve published images
spread over the shows, on varied garments, backdrops and skin tones. A pending show of
twelve oxblood looks and a deleted one of twelve navy looks must never be answered.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache

from rk.core.api.storage import Storage
from rk.server.colour import named_colours
from rk.server.platform.db.tables import Image
from tests.integration.embeddings.seed import article
from tests.support.garments import BACKDROPS, SHAPES, SKINS, garment_picture

COLOURS = ["oxblood", "camel", "navy", "emerald", "cobalt", "mustard", "pink", "grey"]
SHOWS = 8
LOOKS = 12
STREET_SHOWS = {6, 7}


@dataclass
class Archive:
    """What was seeded: each image's known colour (hex), and the ids by what they are."""

    colour_of: dict[int, str] = field(default_factory=dict)
    published: set[int] = field(default_factory=set)
    hidden: set[int] = field(default_factory=set)
    street: set[int] = field(default_factory=set)
    shows: dict[int, list[int]] = field(default_factory=dict)


def hex_of(name: str) -> str:
    """The swatch of a colour name."""
    return next(swatch.hex for swatch in named_colours() if swatch.name == name)


async def add_look(
    storage: Storage, article_id: int, position: int, picture: bytes, *, kind: str = "runway"
) -> int:
    """One look whose thumbnail is ``picture`` (the original is not stored); its id."""
    sha1 = hashlib.sha1(f"{article_id}/{position}".encode()).hexdigest()
    thumb = f"thumb/{sha1}.jpg"
    await storage.put(thumb, picture)
    image = Image(
        article_id=article_id,
        role="look",
        position=position,
        kind=kind,
        key=f"{kind}/{sha1}.jpg",
        thumb_key=thumb,
        sha1=sha1,
    )
    await image.save()
    return int(image.id)


async def add_original_only(storage: Storage, article_id: int, position: int, data: bytes) -> int:
    """One look stored as its original alone (no thumbnail, as some old rows are); its id."""
    sha1 = hashlib.sha1(data).hexdigest()
    key = f"runway/{sha1}.jpg"
    await storage.put(key, data)
    image = Image(article_id=article_id, role="look", position=position, kind="runway", key=key)
    await image.save()
    return int(image.id)


@cache
def picture(name: str, n: int) -> bytes:
    """A varied figure wearing the colour ``name``."""
    return garment_picture(
        hex_of(name),
        shape=SHAPES[n % 3],
        backdrop=BACKDROPS[(n // 3) % 3],
        skin=SKINS[(n // 2) % 3],
        seed=n,
    )


async def seed_archive(storage: Storage) -> Archive:
    """The archive described above."""
    archive = Archive()
    for show in range(SHOWS):
        kind = "street" if show in STREET_SHOWS else "runway"
        article_id = await article(f"show-{show}", kind=kind)
        archive.shows[article_id] = []
        for look in range(1, LOOKS + 1):
            name = COLOURS[(look + show) % len(COLOURS)]
            n = show * LOOKS + look
            image_id = await add_look(storage, article_id, look, picture(name, n), kind=kind)
            archive.colour_of[image_id] = hex_of(name)
            archive.published.add(image_id)
            archive.shows[article_id].append(image_id)
            if kind == "street":
                archive.street.add(image_id)
    for status, deleted, name in (("pending", False, "oxblood"), ("published", True, "navy")):
        article_id = await article(f"hidden-{name}", status=status, deleted=deleted)
        for look in range(1, LOOKS + 1):
            image_id = await add_look(storage, article_id, look, picture(name, 200 + look))
            archive.colour_of[image_id] = hex_of(name)
            archive.hidden.add(image_id)
    return archive
