"""The moderation console's pages for the screenshots.

An admin account is made with ``rk admin create-user``; a few decisions are taken with
``rk articles`` (so the tabs, audit and history have rows, and a delete's media cleanup job
runs); one show arrives twice, its images scored as neighbours, so the review page
has a possible duplicate to compare; crawl tasks are queued with ``rk crawl add`` and some
are claimed and reported through the signed spider API, as a spider would, so the queue
shows every state (a done task that found no show among them).
"""

from __future__ import annotations

import sqlite3

import httpx
import msgspec
from playwright.sync_api import Page

from rk.core.api.signing import signed_headers
from scripts.shots.archive import BRANDS
from scripts.shots.shot import Shot
from scripts.shots.world import SECRET, World, runway_show

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


def _write(world: World, sql: str, rows: list[tuple[object, ...]]) -> None:
    """Rows no page makes in the demo world (neighbour scores, a rejection's reason)."""
    with sqlite3.connect(world.data_dir / "rk.sqlite3", timeout=30) as db:
        db.executemany(sql, rows)


def _duplicate(world: World) -> None:
    """Kestrel & Vine's show again under a second address, its images scored as the same."""
    show = runway_show(world, "Kestrel & Vine", "Resort 2026", "London", 14, seed=3000, details=2)
    world.submit(msgspec.structs.replace(show, show_key=f"{show.show_key}-2"))
    world.wait_for_jobs()
    first, copy = _ids(
        world, "SELECT id FROM articles WHERE show_key LIKE 'resort-2026/%' ORDER BY id"
    )
    with world.db() as db:
        pairs = db.execute(
            "SELECT c.id, o.id FROM images c JOIN images o ON o.key = c.key"
            " WHERE c.article_id = ? AND o.article_id = ?",
            (copy, first),
        ).fetchall()
    _write(
        world,
        "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
        " VALUES (?, 'demo', ?, 1, 0.998)",
        pairs,
    )


def seed(world: World) -> None:
    """An admin, some decisions, a possible duplicate, and a crawl queue in every state."""
    world.rk("admin", "create-user", "ada", "--role", "admin", "--password-stdin", stdin=PASSWORD)
    world.rk("admin", "create-user", "moritz", "--password-stdin", stdin=PASSWORD)
    small = _ids(world, "SELECT id FROM articles ORDER BY id")
    world.rk("articles", "publish", small[0], small[3])
    world.rk("articles", "reject", small[4])
    _write(
        world,
        "UPDATE moderation_audit SET reason = ? WHERE article_id = ?",
        [("Wrong brand or season: this is the menswear show", small[4])],
    )
    world.rk("articles", "delete", small[5])
    world.wait_for_jobs()
    _duplicate(world)
    for name, _ in BRANDS:
        world.rk("crawl", "add", name, "--max-shows", "3")
    world.rk("crawl", "add", "Nordlys", "--max-shows", "0", "--priority", "5", "--again")
    claimed = []
    for worker in ("spider-paris-1", "spider-paris-2", "spider-oslo-1", "spider-oslo-2"):
        answer = _signed(world, TASKS, {"worker": worker, "source": "vogue"})
        answer.raise_for_status()
        claimed.append((answer.json()["id"], worker))
    done, failed, empty, _ = claimed
    _signed(
        world,
        f"{TASKS}/{empty[0]}/result",
        {"worker": empty[1], "status": "done", "shows_submitted": 0, "error": ""},
    )
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
    """Scroll through the page, then wait for every image it shows (a folded section's lazy
    images never load, so they are not waited for)."""
    page.evaluate(
        """async () => {
            for (let y = 0; y < document.body.scrollHeight; y += 600) {
                window.scrollTo(0, y);
                await new Promise((r) => setTimeout(r, 30));
            }
            window.scrollTo(0, 0);
            const shown = [...document.images].filter((img) => img.checkVisibility());
            await Promise.all(shown.map((img) => img.complete ? null :
                new Promise((r) => { img.onload = img.onerror = r; })));
        }"""
    )


def _open_loupe(page: Page) -> None:
    _load_every_image(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-loupe-img]")
    page.evaluate(  # not wait_for_function: a string to evaluate is refused by the page's CSP
        """async () => { const img = document.querySelector('[data-loupe-img]');
            if (!img.complete) await new Promise((r) => { img.onload = img.onerror = r; }); }"""
    )


def _open_reasons(page: Page) -> None:
    page.locator(".reject > summary").click()  # what the r key does, without its focus rules
    page.wait_for_selector(".reject[open]")


def _confirm_batch(page: Page) -> None:
    for box in page.locator("tbody input[name=id]").all()[:3]:
        box.check()
    page.get_by_role("button", name="Reject selected").click()
    page.wait_for_selector(".confirm")


def _approve(page: Page) -> None:
    _load_every_image(page)
    page.keyboard.press("a")
    page.wait_for_selector(".undo-bar")
    _load_every_image(page)


def pages(world: World) -> list[Shot]:
    """Dashboard, articles, review (grid, large view, reasons, duplicates, compare, undo), a
    batch's confirmation, crawl, brands, a brand, jobs, the audit log."""
    big = _ids(
        world,
        "SELECT i.article_id FROM images i JOIN articles a ON a.id = i.article_id"
        " WHERE a.status = 'pending' AND a.deleted_at = 0"
        " GROUP BY i.article_id ORDER BY count(*) DESC, i.article_id LIMIT 1",
    )[0]
    rejected = _ids(world, "SELECT id FROM articles WHERE status = 'rejected' ORDER BY id")[0]
    copy = _ids(world, "SELECT MAX(id) FROM articles WHERE show_key LIKE 'resort-2026/%'")[0]
    newest = _ids(
        world,
        "SELECT MAX(id) FROM articles WHERE status = 'pending' AND deleted_at = 0"
        " AND show_key NOT LIKE 'resort-2026/%'",
    )[0]
    brand = _ids(world, "SELECT uid FROM brands WHERE name = 'Acne Studios'")[0]
    job = _ids(world, "SELECT MAX(id) FROM ingest_jobs WHERE note LIKE '%missing%'")
    load = _load_every_image
    shots = [
        Shot("dashboard", "/admin"),
        Shot("articles", "/admin/articles", load),
        Shot("review", f"/admin/articles/{big}", load),
        Shot("review-large", f"/admin/articles/{big}", _open_loupe),
        Shot("review-reasons", f"/admin/articles/{big}", _open_reasons),
        Shot("review-rejected", f"/admin/articles/{rejected}", load),
        Shot("review-duplicates", f"/admin/articles/{copy}", load),
        Shot("compare", f"/admin/articles/{copy}/compare", load),
        Shot("confirm", "/admin/articles?tab=pending", _confirm_batch),
        Shot("crawl", "/admin/crawl"),
        Shot("brands", "/admin/brands"),
        Shot("brand", f"/admin/brands/{brand}", load),
        Shot("jobs", "/admin/ingest-jobs"),
        Shot("audit", "/admin/audit"),
    ]
    if job and job[0] != "None":
        shots.append(Shot("job", f"/admin/ingest-jobs/{job[0]}"))
    # Last: it decides, so every page above shows the same archive at both widths.
    shots.append(Shot("review-undo", f"/admin/articles/{newest}", _approve))
    return shots
