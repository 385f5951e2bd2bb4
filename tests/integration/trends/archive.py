"""A known archive for the trends tests: three seasons, runway and street, tags and colours.

| show | brand, city, kind | season | looks |
|---|---|---|---|
| acne-fw24 | Acne Studios, Paris, runway | Fall 2024 RTW | 4 (+1 detail) |
| aurele-ss25 | Maison Aurèle, Milan, runway | Spring 2025 RTW | 5 |
| street-ss25 | —, Paris, street | Spring 2025 RTW | 3 |
| acne-fw25 | Acne Studios, Paris, runway | Fall 2025 RTW | 4 |
| pending-fw25 | Maison Aurèle, Milan, runway, pending | Fall 2025 RTW | 4 |

Tags and colours (``TAGS``, ``COLOURS``) are written as rows, as the tagger and the colour
pass write them; the detail and the pending show carry tags that must never count, and one
tag row is ``removed``, one colour is under the facet's share.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rk.core.api.storage import Storage
from rk.server.platform.db.tables import ImageColour, ImageTag
from tests.integration.public.archive import Archive, add_show

FW24, SS25, FW25 = (
    "Fall 2024 Ready-to-Wear",
    "Spring 2025 Ready-to-Wear",
    "Fall 2025 Ready-to-Wear",
)
SLUGS = {
    FW24: "fall-2024-ready-to-wear",
    SS25: "spring-2025-ready-to-wear",
    FW25: "fall-2025-ready-to-wear",
}
SHOWS = [
    ("acne-fw24", "Acne Studios", "Paris", "runway", FW24, "2024-03-01", 4, 1, "published"),
    ("aurele-ss25", "Maison Aurèle", "Milan", "runway", SS25, "2024-09-20", 5, 0, "published"),
    ("street-ss25", "", "Paris", "street", SS25, "2024-10-01", 3, 0, "published"),
    ("acne-fw25", "Acne Studios", "Paris", "runway", FW25, "2025-03-01", 4, 0, "published"),
    ("pending-fw25", "Maison Aurèle", "Milan", "runway", FW25, "2025-03-02", 4, 0, "pending"),
]
TAGS: list[tuple[str, int, str, str]] = [
    ("acne-fw24", 1, "trench coat", "auto"),
    ("acne-fw24", 2, "trench coat", "confirmed"),
    ("acne-fw24", 3, "sheer", "auto"),
    ("acne-fw24", 5, "trench coat", "auto"),  # the detail: never a look
    ("aurele-ss25", 1, "trench coat", "auto"),
    ("aurele-ss25", 1, "sheer", "auto"),
    ("aurele-ss25", 2, "sheer", "auto"),
    ("aurele-ss25", 3, "sheer", "confirmed"),
    ("aurele-ss25", 4, "sheer", "removed"),
    ("aurele-ss25", 5, "tweed", "auto"),
    ("street-ss25", 1, "sheer", "auto"),
    ("acne-fw25", 1, "trench coat", "auto"),
    ("acne-fw25", 2, "trench coat", "auto"),
    ("acne-fw25", 3, "trench coat", "auto"),
    ("acne-fw25", 1, "sheer", "auto"),
    ("acne-fw25", 2, "tweed", "confirmed"),
    *(("pending-fw25", n, "trench coat", "auto") for n in range(1, 5)),
]
"""``(show, slot, tag, state)``: slot ``n`` is the show's n-th image (looks, then details)."""
COLOURS: list[tuple[str, int, list[tuple[str, float]]]] = [
    ("aurele-ss25", 1, [("oxblood", 0.7), ("camel", 0.3)]),
    ("aurele-ss25", 2, [("oxblood", 0.8), ("ecru", 0.2)]),
    ("street-ss25", 1, [("navy", 0.9), ("white", 0.1)]),
    ("acne-fw25", 1, [("camel", 0.6), ("ecru", 0.3), ("oxblood", 0.1)]),
    ("acne-fw25", 2, [("camel", 0.5), ("black", 0.5)]),
    ("acne-fw25", 3, [("navy", 0.5), ("black", 0.5)]),
    ("pending-fw25", 1, [("oxblood", 1.0)]),
]
"""``(show, slot, [(colour name, share), …])``; oxblood at 0.1 is under the facet's 0.2."""


@dataclass
class TrendArchive:
    """What was seeded: the public archive's ids, and each show's image ids in slot order."""

    archive: Archive = field(default_factory=Archive)

    def image(self, show: str, slot: int) -> int:
        """The id of ``show``'s image in ``slot`` (1-based)."""
        return self.archive.images[show][slot - 1]

    @property
    def shows(self) -> dict[str, int]:
        """Article ids by show name."""
        return self.archive.shows


async def add_tag(image_id: int, tag: str, state: str = "auto") -> None:
    """One ``image_tags`` row, as the tagger or a moderator writes it."""
    row = ImageTag(image_id=image_id, tag=tag, state=state, score=0.5, computed_at=int(time.time()))
    await row.save()


async def add_palette(image_id: int, colours: list[tuple[str, float]]) -> None:
    """An image's palette rows (Lab values are placeholders; trends read names and shares)."""
    for rank, (name, share) in enumerate(colours, start=1):
        row = ImageColour(
            image_id=image_id,
            rank=rank,
            name=name,
            hex="#000000",
            lab_l=0.0,
            lab_a=0.0,
            lab_b=0.0,
            share=share,
            delta_e=0.0,
            computed_at=int(time.time()),
        )
        await row.save()


async def seed_trends(storage: Storage) -> TrendArchive:
    """The archive of the module docstring."""
    seeded = TrendArchive()
    for seed, (name, brand, city, kind, season, date, looks, details, status) in enumerate(
        SHOWS, start=1
    ):
        await add_show(
            storage,
            seeded.archive,
            name,
            brand=brand,
            city=city,
            kind=kind,
            season=season,
            date=date,
            looks=looks,
            details=details,
            status=status,
            seed=seed,
        )
    for show, slot, tag, state in TAGS:
        await add_tag(seeded.image(show, slot), tag, state)
    for show, slot, colours in COLOURS:
        await add_palette(seeded.image(show, slot), colours)
    return seeded
