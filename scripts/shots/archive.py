"""The shared demo archive: brands and runway shows every page set can build on.

Normal data includes the awkward cases, so the archive has them: a brand with a very long
name, a 60-look show with details, a show with a missing look, seasons in several cities.
Every show arrives through the signed ingest API and leaves a pending article.
"""

from __future__ import annotations

from scripts.shots.world import World, runway_show

BRANDS = [
    ("Acne Studios", "acne-studios"),
    ("Maison Aurèle", "maison-aurele"),
    ("Kestrel & Vine", "kestrel-vine"),
    ("Nordlys", "nordlys"),
    ("Ottavia Ferri", "ottavia-ferri"),
    ("Atelier Hanakawa-Lindqvist Haute Couture de Paris et Milano", "atelier-hanakawa"),
]
SHOWS = [
    ("Acne Studios", "Spring 2025 Ready-to-Wear", "Paris", 12, 3, ()),
    ("Acne Studios", "Fall 2025 Ready-to-Wear", "Paris", 60, 8, ()),
    ("Maison Aurèle", "Spring 2025 Couture", "Paris", 18, 0, (7,)),
    ("Kestrel & Vine", "Resort 2026", "London", 14, 2, ()),
    ("Nordlys", "Fall 2025 Menswear", "Copenhagen", 16, 0, ()),
    ("Ottavia Ferri", "Spring 2026 Ready-to-Wear", "Milan", 20, 4, ()),
    (
        "Atelier Hanakawa-Lindqvist Haute Couture de Paris et Milano",
        "Fall 2025 Couture",
        "Paris",
        10,
        0,
        (),
    ),
]


def seed(world: World) -> None:
    """Add the brands and submit every show; returns once the ingest jobs are done."""
    for name, slug in BRANDS:
        world.add_brand(name, slug)
    for n, (brand, season, city, looks, details, missing) in enumerate(SHOWS):
        show = runway_show(
            world, brand, season, city, looks, seed=n * 1000, details=details, missing=missing
        )
        world.submit(show)
    world.wait_for_jobs()
