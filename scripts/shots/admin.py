"""The moderation console's pages for the screenshots.

An admin account is made with ``rk admin create-user``; a few decisions are taken with
``rk articles`` (so the tabs, audit and history have rows, and a delete's media cleanup job
runs); crawl tasks are queued with
``rk crawl add`` and some are claimed and reported through the signed spider API, as a
spider would, so the queue shows every state.
"""

from __future__ import annotations

import httpx
import msgspec
from playwright.sync_api import Page

from rk.core.api.signing import signed_headers
from scripts.shots.archive import BRANDS
from scripts.shots.shot import Shot
from scripts.shots.world import SECRET, World

PASSWORD = "screenshots-admin-password"
TASKS = "/admin/internal/crawl/tasks"


def _signed(world: World, path: str, payload: object) -> httpx.Response:
    body = msgspec.json.encode(payload)
    headers = signed_headers(SECRET, "POST", path, body, None)
    return httpx.post(
        f"{world.url}{path}",
        content=body,
        headers={**headers, "Content-Type": "application/json"},
        timeout=30,
    )


def _ids(world: World, sql: str) -> list[str]:
    with world.db() as db:
        return [str(row[0]) for row in db.execute(sql)]


def seed(world: World) -> None:
    """An admin, some decisions, and a crawl queue in every state."""
    world.rk("admin", "create-user", "ada", "--role", "admin", "--password-stdin", stdin=PASSWORD)
    world.rk("admin", "create-user", "moritz", "--password-stdin", stdin=PASSWORD)
    small = _ids(world, "SELECT id FROM articles ORDER BY id")
    world.rk("articles", "publish", small[0], small[3])
    world.rk("articles", "reject", small[4])
    world.rk("articles", "delete", small[5])
    world.wait_for_jobs()
    for name, _ in BRANDS:
        world.rk("crawl", "add", name, "--max-shows", "3")
    world.rk("crawl", "add", "Nordlys", "--max-shows", "0", "--priority", "5")
    claimed = []
    for worker in ("spider-paris-1", "spider-paris-2", "spider-oslo-1"):
        answer = _signed(world, TASKS, {"worker": worker, "source": "vogue"})
        answer.raise_for_status()
        claimed.append((answer.json()["id"], worker))
    done, failed = claimed[0], claimed[1]
    _signed(
        world,
        f"{TASKS}/{done[0]}/result",
        {"worker": done[1], "status": "done", "shows_submitted": 3, "error": ""},
    )
    _signed(
        world,
        f"{TASKS}/{failed[0]}/result",
        {
            "worker": failed[1],
            "status": "failed",
            "shows_submitted": 1,
            "error": "vogue.com answered 503 Service Unavailable after 4 tries"
            " (GET /fashion-shows/designer/kestrel-vine)",
        },
    )


def sign_in(page: Page, world: World) -> None:
    """Sign the screenshot browser in as the admin."""
    page.goto(f"{world.url}/admin/sign-in")
    page.fill("#f-username", "ada")
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{world.url}/admin")


def _load_every_image(page: Page) -> None:
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


def _open_loupe(page: Page) -> None:
    _load_every_image(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('[data-loupe-img]').complete")


def pages(world: World) -> list[Shot]:
    """Dashboard, articles, review (grid and large view), crawl, brands, a brand, jobs."""
    big = _ids(
        world,
        "SELECT article_id FROM images GROUP BY article_id ORDER BY count(*) DESC LIMIT 1",
    )[0]
    brand = _ids(world, "SELECT uid FROM brands WHERE name = 'Acne Studios'")[0]
    job = _ids(world, "SELECT MAX(id) FROM ingest_jobs WHERE note LIKE '%missing%'")
    load = _load_every_image
    shots = [
        Shot("dashboard", "/admin"),
        Shot("articles", "/admin/articles", load),
        Shot("review", f"/admin/articles/{big}", load),
        Shot("review-large", f"/admin/articles/{big}", _open_loupe),
        Shot("crawl", "/admin/crawl"),
        Shot("brands", "/admin/brands"),
        Shot("brand", f"/admin/brands/{brand}", load),
        Shot("jobs", "/admin/ingest-jobs"),
        Shot("audit", "/admin/audit"),
    ]
    if job and job[0] != "None":
        shots.append(Shot("job", f"/admin/ingest-jobs/{job[0]}"))
    return shots
