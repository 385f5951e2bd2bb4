"""A small archive for the public site's tests: brands, shows in every state, real pictures.

Rows are written through the tables as the ingest worker writes them, and pictures (real
JPEGs with thumbnails) through the backend's storage. Shows arrive pending, as from a
crawl; publishing and rejecting go through the moderation service (``set_status``), as a
moderator's decision does.
"""

from __future__ import annotations

import hashlib
import io
import time
from dataclasses import dataclass, field

import numpy as np
from PIL import Image as PILImage

from rk.core.api.plugins import new_plugin_manager
from rk.core.api.storage import Storage
from rk.core.runtime.thumbs import make_thumbnail
from rk.core.uids import brand_uid
from rk.server.moderation.moderation import Actor, moderate
from rk.server.platform.db.tables import Article, Brand, Image

WIDTH, HEIGHT = 120, 180


def photo(seed: int, width: int = WIDTH, height: int = HEIGHT) -> bytes:
    """A distinct JPEG: a colour field with a bright block whose place and colour vary."""
    rng = np.random.default_rng(seed)
    pixels = np.full((height, width, 3), rng.integers(0, 256, 3), dtype=np.uint8)
    x, y = rng.integers(0, width // 2), rng.integers(0, height // 2)
    pixels[y : y + height // 2, x : x + width // 2] = rng.integers(128, 256, 3)
    out = io.BytesIO()
    PILImage.fromarray(pixels).save(out, format="JPEG", quality=88)
    return out.getvalue()


@dataclass
class Archive:
    """What ``seed`` made: ids by name, and every image id per show."""

    brands: dict[str, str] = field(default_factory=dict)
    shows: dict[str, int] = field(default_factory=dict)
    images: dict[str, list[int]] = field(default_factory=dict)
    pictures: dict[int, bytes] = field(default_factory=dict)


async def add_brand(name: str) -> str:
    """A brand row with its sqids uid; the uid."""
    rows = await Brand.insert(Brand(name=name, uid=f"tmp-{name}"[:32])).returning(Brand.id)
    brand_id = int(rows[0]["id"])
    uid = brand_uid(brand_id)
    await Brand.update({Brand.uid: uid}).where(Brand.id == brand_id)
    return uid


async def add_image(
    storage: Storage, article_id: int, role: str, position: int, data: bytes, kind: str
) -> int:
    """Store a picture and its thumbnail, insert its image row; the image id."""
    sha1 = hashlib.sha1(data).hexdigest()
    key, thumb = f"{kind}/{sha1}.jpg", f"thumb/{sha1}.jpg"
    await storage.put(key, data)
    made = make_thumbnail(data, 256)
    assert made is not None
    await storage.put(thumb, made)
    with PILImage.open(io.BytesIO(data)) as img:
        width, height = img.size
    row = Image(
        article_id=article_id,
        role=role,
        position=position,
        kind=kind,
        key=key,
        thumb_key=thumb,
        sha1=sha1,
        size=len(data),
        width=width,
        height=height,
        created_at=int(time.time()),
    )
    await row.save()
    return int(row.id)


async def add_show(
    storage: Storage,
    archive: Archive,
    name: str,
    *,
    brand: str = "",
    season: str = "",
    city: str = "",
    date: str = "",
    kind: str = "runway",
    status: str = "published",
    looks: int = 3,
    details: int = 0,
    seed: int = 0,
    deleted: bool = False,
    designer: str = "",
    author: str = "",
    size: tuple[int, int] = (WIDTH, HEIGHT),
) -> int:
    """One show with ``looks`` looks and ``details`` details, photos ``size`` px; its id."""
    brand_id = 0
    if brand:
        if brand not in archive.brands:
            archive.brands[brand] = await add_brand(brand)
        found = await Brand.select(Brand.id).where(Brand.uid == archive.brands[brand]).first()
        assert found is not None
        brand_id = int(found["id"])
    now = int(time.time())
    article = Article(
        source="vogue" if kind == "runway" else "theimpression",
        show_key=f"test/{name}",
        kind=kind,
        brand_id=brand_id,
        title=f"{brand} {season}".strip() or name,
        season=season,
        city=city,
        date=date,
        url=f"https://example.invalid/{name}",
        designer=designer,
        author=author,
        status=status if deleted else "pending",
        deleted_at=now if deleted else 0,
        created_at=now,
        updated_at=now,
    )
    await article.save()
    article_id = int(article.id)
    archive.shows[name] = article_id
    if status != "pending" and not deleted:
        await set_status(article_id, status)
    ids = []
    slots = [("look", n) for n in range(1, looks + 1)]
    slots += [("detail", n) for n in range(1, details + 1)]
    for i, (role, position) in enumerate(slots):
        data = photo(seed * 1000 + i, *size)
        image_id = await add_image(storage, article_id, role, position, data, kind)
        archive.pictures[image_id] = data
        ids.append(image_id)
    archive.images[name] = ids
    return article_id


async def set_status(article_id: int, status: str) -> None:
    """Publish or reject an article through the moderation service (audited)."""
    action = {"published": "publish", "rejected": "reject"}[status]
    actor = Actor(name="test-moderator", via="cli")
    await moderate(new_plugin_manager(load=False), [article_id], action, actor)


async def seed(storage: Storage) -> Archive:
    """The standard test archive: 6 published shows, and one pending, rejected, deleted."""
    archive = Archive()
    ss25, fw24 = "Spring 2025 Ready-to-Wear", "Fall 2024 Ready-to-Wear"
    await add_show(
        storage,
        archive,
        "acne-ss25",
        brand="Acne Studios",
        season=ss25,
        city="Paris",
        date="2024-10-02",
        looks=5,
        details=2,
        seed=1,
        designer="Jonny Johansson",
        author="Sarah Mower",
    )
    await add_show(
        storage,
        archive,
        "acne-fw24",
        brand="Acne Studios",
        season=fw24,
        city="Paris",
        date="2024-03-01",
        looks=3,
        seed=2,
    )
    await add_show(
        storage,
        archive,
        "aurele-ss25",
        brand="Maison Aurèle",
        season=ss25,
        city="Milan",
        date="2024-09-20",
        looks=4,
        seed=3,
    )
    await add_show(
        storage,
        archive,
        "aurele-fw24",
        brand="Maison Aurèle",
        season=fw24,
        city="New York",
        date="2024-02-11",
        looks=2,
        seed=4,
    )
    await add_show(
        storage,
        archive,
        "zeta-ss25",
        brand="Zeta",
        season=ss25,
        city="London",
        date="2024-09-14",
        looks=2,
        seed=5,
    )
    await add_show(
        storage,
        archive,
        "street-jan",
        kind="street",
        city="Paris",
        date="2025-01-05",
        looks=2,
        seed=6,
        author="Jane Lens",
    )
    await add_show(
        storage,
        archive,
        "pending",
        brand="Acne Studios",
        season=ss25,
        city="Paris",
        date="2025-02-01",
        status="pending",
        seed=7,
    )
    await add_show(
        storage,
        archive,
        "rejected",
        brand="Hidden Label",
        season=ss25,
        city="Tokyo",
        date="2025-02-02",
        status="rejected",
        seed=8,
    )
    await add_show(
        storage,
        archive,
        "deleted",
        brand="Acne Studios",
        season=ss25,
        city="Paris",
        date="2025-02-03",
        deleted=True,
        seed=9,
    )
    return archive
