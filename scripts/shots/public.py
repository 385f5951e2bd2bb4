"""The public site's pages for the screenshots: four more shows of one season and three
street-style posts of one fashion week added (titles alike but for their day), every show
published, vectors from the tiny CLIP of tests/models so images have similar looks, and the
backend restarted with that model so search by words works.

Publishing goes through ``rk articles publish`` (the moderation service, audited); vectors
go through the signed embeddings API.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import msgspec
from playwright.sync_api import Page

from rk.core.api.signing import signed_headers
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector, ImageRef, Look, ShowIngest
from rk.plugins.clip_embed.embedder import ClipEmbedder
from scripts.shots.shot import Shot
from scripts.shots.world import SECRET, World, runway_show

TINY_CLIP = Path(__file__).resolve().parents[2] / "tests" / "models" / "tiny_clip"
EMBEDDINGS = "/admin/internal/embeddings"
SEASON = "Spring 2026 Ready-to-Wear"
SEASON_BRANDS = ("Acne Studios", "Maison Aurèle", "Kestrel & Vine", "Nordlys")
"""Brands given a show of ``SEASON`` too, so its page has several designers."""
CITIES = ("Paris", "Paris", "London", "Copenhagen")


def street_post(world: World, day: int) -> ShowIngest:
    """Day ``day`` of a fashion week's street style, as The Impression titles its posts."""
    key = f"street-style-paris-fashion-week-spring-2026-day-{day}"
    looks = [
        Look(number=n, image=ImageRef(url=world.photo(f"/{key}/{n}.jpg", 9000 + day * 50 + n)))
        for n in range(1, 9)
    ]
    return ShowIngest(
        source="theimpression",
        kind="street",
        show_key=key,
        title=f"Street Style: Paris Fashion Week Spring 2026 Day {day}",
        season="Spring 2026",
        city="Paris",
        date=f"2025-10-0{day}",
        url=f"https://theimpression.com/{key}/",
        author="Demo Photographer",
        looks=looks,
    )


def _publish_all(world: World) -> None:
    with world.db() as db:
        ids = [str(row[0]) for row in db.execute("SELECT id FROM articles WHERE deleted_at = 0")]
    if ids:
        world.rk("articles", "publish", *ids)


def _embed_all(world: World) -> None:
    embedder = ClipEmbedder({"model": str(TINY_CLIP), "batch": 16, "concurrency": 1})
    with world.db() as db:
        rows = db.execute("SELECT id, kind, thumb_key, key FROM images ORDER BY id").fetchall()
    media = world.data_dir / "media"
    for start in range(0, len(rows), 64):
        chunk = rows[start : start + 64]
        data = [(media / (thumb or key)).read_bytes() for _, _, thumb, key in chunk]
        result = embedder.embed_images(data)
        items = [
            EmbeddingVector(kind=chunk[i][1], image_id=chunk[i][0], vector=vector)
            for i, vector in zip(result.indexes, result.vectors, strict=True)
        ]
        body = msgspec.json.encode(EmbeddingSubmit(items=items))
        headers = signed_headers(SECRET, "POST", EMBEDDINGS, body, None)
        answer = httpx.post(
            f"{world.url}{EMBEDDINGS}",
            content=body,
            timeout=60,
            headers={**headers, "Content-Type": "application/json"},
        )
        answer.raise_for_status()


def _wait_placed(world: World, timeout_s: float = 300.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with world.db() as db:
            (left,) = db.execute(
                "SELECT count(*) FROM image_embeddings WHERE neighbours_at = 0"
            ).fetchone()
        if left == 0:
            return
        time.sleep(0.3)
    raise TimeoutError("the neighbours job did not place every vector")


def seed(world: World) -> None:
    """Add the street posts, publish every show, restart the backend with the tiny CLIP,
    embed every image."""
    for n, brand in enumerate(SEASON_BRANDS):
        world.submit(runway_show(world, brand, SEASON, CITIES[n], 12, seed=20000 + n * 100))
    for day in (1, 2, 3):
        world.submit(street_post(world, day))
    world.wait_for_jobs()
    _publish_all(world)
    world.stop()
    world.settings["vision"] = {"model": str(TINY_CLIP)}
    world.start(world.image_base)
    _embed_all(world)
    _wait_placed(world)


def _load_every_image(page: Page) -> None:
    """Scroll through the page so lazy images load, then wait until each has loaded."""
    page.evaluate(
        """async () => {
            for (let y = 0; y < document.body.scrollHeight; y += 600) {
                window.scrollTo(0, y);
                await new Promise((r) => setTimeout(r, 30));
            }
            window.scrollTo(0, 0);
            await Promise.all([...document.images].map((img) => img.complete ? null :
                new Promise((r) => { img.onload = img.onerror = r; })));
        }"""
    )


def _first(world: World, sql: str) -> int:
    with world.db() as db:
        (value,) = db.execute(sql).fetchone()
    return int(value)


def _search_by_photo(page: Page) -> None:
    """Upload the first look of the page's show as a search photo, then load the results."""
    photo = page.locator(".search-box__picture input[type=file]")
    image = page.request.get(page.evaluate("document.querySelector('.grid img').currentSrc"))
    photo.set_input_files(
        files=[{"name": "look.jpg", "mimeType": "image/jpeg", "buffer": image.body()}]
    )
    page.locator(".search-box__picture button").click()
    page.wait_for_url("**/search?photo=*")
    _load_every_image(page)


def pages(world: World) -> list[Shot]:
    """Home, a filtered home, seasons, a season, the 60-look show, an image with similar
    looks, a street-style post and photo, search by words, by a photo and "more like this",
    brands."""
    big = _first(
        world,
        "SELECT article_id FROM images GROUP BY article_id ORDER BY count(*) DESC LIMIT 1",
    )
    look = _first(
        world,
        f"SELECT id FROM images WHERE article_id = {big} AND role = 'look' AND position = 3",
    )
    street = _first(world, "SELECT id FROM articles WHERE kind = 'street' ORDER BY id LIMIT 1")
    photo = _first(world, f"SELECT id FROM images WHERE article_id = {street} ORDER BY id LIMIT 1")
    load = _load_every_image
    return [
        Shot("home", "/", load),
        Shot("home-filtered", "/?city=Paris&season=Fall+2025+Ready-to-Wear", load),
        Shot("seasons", "/seasons", load),
        Shot("season", "/seasons/spring-2026-ready-to-wear", load),
        Shot("show", f"/shows/{big}", load),
        Shot("image", f"/images/{look}", load),
        Shot("street", f"/shows/{street}", load),
        Shot("street-photo", f"/images/{photo}", load),
        Shot("search", "/search?q=red+tartan+coat", load),
        Shot("search-photo", "/search?q=red+tartan+coat", _search_by_photo),
        Shot("more-like-this", f"/search?like={look}", load),
        Shot("brands", "/brands", load),
        Shot("not-found", "/shows/999999"),
    ]
