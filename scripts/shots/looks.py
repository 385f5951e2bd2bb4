"""Generated look photos for the demo archive: a figure on a plain backdrop, 2:3 portrait.

Invented images (no real fashion photography is ever committed or downloaded); each is
deterministic from its seed, so a re-run produces the same bytes and the same keys.
"""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw, ImageFilter

PALETTES = [
    ((236, 231, 224), [(28, 28, 30), (120, 24, 36), (196, 160, 120)]),
    ((226, 232, 236), [(32, 54, 92), (210, 210, 214), (140, 40, 30)]),
    ((238, 226, 222), [(196, 80, 70), (40, 40, 40), (232, 200, 180)]),
    ((224, 228, 220), [(70, 90, 60), (180, 150, 90), (30, 30, 30)]),
    ((242, 238, 232), [(150, 120, 200), (60, 60, 70), (220, 190, 90)]),
]


def look_jpeg(seed: int, width: int = 800, height: int = 1200) -> bytes:
    """A JPEG of one invented runway look (figure, garment, backdrop) for ``seed``."""
    rng = random.Random(seed)
    backdrop, garments = PALETTES[seed % len(PALETTES)]
    image = Image.new("RGB", (width, height), backdrop)
    draw = ImageDraw.Draw(image)
    floor = int(height * 0.86)
    draw.rectangle([0, floor, width, height], fill=tuple(max(c - 28, 0) for c in backdrop))
    cx = width // 2 + rng.randint(-width // 12, width // 12)
    unit = height / 12
    skin = rng.choice([(224, 188, 160), (170, 120, 90), (110, 76, 56), (236, 206, 180)])
    top, bottom, accent = rng.sample(garments, 3)
    draw.ellipse([cx - unit * 0.45, unit * 0.9, cx + unit * 0.45, unit * 2.0], fill=skin)
    draw.rectangle([cx - unit * 0.15, unit * 1.9, cx + unit * 0.15, unit * 2.3], fill=skin)
    shoulders = unit * rng.uniform(0.9, 1.3)
    waist = unit * rng.uniform(0.5, 0.75)
    hem = unit * rng.uniform(0.9, 2.2)
    hem_y = unit * rng.uniform(6.5, 9.5)
    draw.polygon(
        [
            (cx - shoulders, unit * 2.3),
            (cx + shoulders, unit * 2.3),
            (cx + waist, unit * 4.8),
            (cx - waist, unit * 4.8),
        ],
        fill=top,
    )
    draw.polygon(
        [(cx - waist, unit * 4.8), (cx + waist, unit * 4.8), (cx + hem, hem_y), (cx - hem, hem_y)],
        fill=bottom,
    )
    for side in (-1, 1):
        x = cx + side * shoulders
        draw.line(
            [(x, unit * 2.4), (x + side * unit * 0.35, unit * 5.2)], fill=top, width=int(unit * 0.3)
        )
        leg = cx + side * unit * 0.3
        draw.line([(leg, hem_y), (leg, floor - unit * 0.2)], fill=skin, width=int(unit * 0.22))
        draw.ellipse([leg - unit * 0.3, floor - unit * 0.35, leg + unit * 0.3, floor], fill=accent)
    draw.rectangle([cx - waist, unit * 4.65, cx + waist, unit * 4.9], fill=accent)
    image = image.filter(ImageFilter.GaussianBlur(1.2))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=82)
    return out.getvalue()
