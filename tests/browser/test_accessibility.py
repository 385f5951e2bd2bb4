"""axe-core on every page type, public and console, at desktop and phone width: no violation.

axe-core comes from the npm registry (``tests/browser/axe/package.json``; the README's test
command installs it). Each page is checked against WCAG 2.1 A and AA plus axe's best
practices, in light and dark colour schemes, so a contrast or landmark regression on any
page type fails here with the rule, the node and axe's explanation.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page

from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.server.colour import colour_facet, compute_colours
from rk.server.platform.db.database import Database
from tests.browser.conftest import DESKTOP, PHONE
from tests.integration.public.archive import Archive, add_show, seed
from tests.integration.public.vectors import embed_archive, wait_placed
from tests.integration.spider.procs import RK, Backend, clean_env
from tests.models.samples import TINY_CLIP
from tests.support.served import served_archive
from tests.support.skips import skip_or_fail

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
PASSWORD = "an accessible console password"


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's browser build, as the npm registry ships it."""
    if not AXE.exists():
        skip_or_fail(f"{AXE} missing: npm install --prefix tests/browser/axe")
    return AXE.read_text()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Backend, Archive, str]]:
    """``rk serve-backend`` with the test archive (its vectors placed, so pages show similar
    looks; its colours measured, so a colour search finds looks), a pending show and an
    admin account; and the colour most published looks have."""

    async def fill(storage: Storage, pm: RkPluginManager, engine: Database) -> tuple[Archive, str]:
        archive = await seed(storage)
        await add_show(
            storage,
            archive,
            "pending-review",
            brand="Acne Studios",
            season="Resort 2026",
            status="pending",
            looks=4,
            seed=40,
        )
        await embed_archive(archive, pm)
        await wait_placed()
        await compute_colours(engine, storage, sorted(archive.pictures))
        return archive, (await colour_facet(engine))[0].name

    root = tmp_path_factory.mktemp("axe") / "backend"
    with served_archive(root, fill, vision={"model": str(TINY_CLIP)}) as (backend, made):
        archive, colour = made
        created = subprocess.run(
            [
                *(RK, "admin", "create-user", "ada", "--role", "admin", "--password-stdin"),
                *("--config", str(backend.config), "--data-dir", str(backend.data_dir)),
            ],
            input=PASSWORD + "\n",
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert created.returncode == 0, created.stderr
        yield backend, archive, colour


def violations(page: Page, axe: str) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it stands (evaluated past the page's own CSP)."""
    page.evaluate(f"{axe}\n;0")
    found: list[dict[str, Any]] = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.map(v => ({id: v.id, help: v.help, count: v.nodes.length,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary)})))",
        TAGS,
    )
    return found


def public_paths(archive: Archive, colour: str) -> dict[str, str]:
    """One URL of each public page type (a colour search for ``colour``)."""
    show = archive.shows["acne-ss25"]
    image = archive.images["acne-ss25"][0]
    return {
        "home": "/",
        "brands": "/brands",
        "brand": f"/?brand={archive.brands['Acne Studios']}",
        "designer": f"/brands/{archive.brands['Acne Studios']}",
        "seasons": "/seasons",
        "season": "/seasons/spring-2025-ready-to-wear",
        "all seasons": "/?all=season",
        "show": f"/shows/{show}",
        "image": f"/images/{image}",
        "cite": f"/images/{image}/cite",
        "cite a show": f"/shows/{show}/cite",
        "contact sheet": "/contact-sheet",
        "detail": f"/images/{archive.images['acne-ss25'][-1]}",
        "search": "/search?q=coat",
        "more like this": f"/search?like={image}",
        "colour search": f"/search?{urlencode({'colour': colour})}",
        "bad colour": "/search?colour=oxbloud",
        "trends": f"/trends?{urlencode({'colour': colour})}",
        "bad trend": "/trends?colour=oxbloud",
        "photo gone": f"/search?photo={'0' * 40}",
        "not found": "/shows/999999",
    }


def console_paths(archive: Archive) -> dict[str, str]:
    """One URL of each console page type the issue names, and the others."""
    pending = archive.shows["pending-review"]
    return {
        "dashboard": "/admin",
        "articles": "/admin/articles?status=pending",
        "review": f"/admin/articles/{pending}",
        "review of a rejected article": f"/admin/articles/{archive.shows['rejected']}",
        "compare": f"/admin/articles/{pending}/compare",
        "crawl": "/admin/crawl",
        "brands": "/admin/brands",
        "jobs": "/admin/ingest-jobs",
        "users": "/admin/users",
        "audit": "/admin/audit",
        "account": "/admin/account",
    }


def console_steps(
    page: Page, backend: Backend, archive: Archive, axe: str
) -> dict[str, list[dict[str, Any]]]:
    """Console states a URL alone does not reach: the reject reasons open, a batch's
    confirmation (nothing is decided, so every run sees the same archive)."""
    found = {}
    page.goto(f"{backend.url}/admin/articles/{archive.shows['pending-review']}")
    page.keyboard.press("r")
    page.wait_for_selector(".reject[open]")
    found["console review, reasons open"] = violations(page, axe)
    page.goto(f"{backend.url}/admin/articles?tab=pending")
    page.locator("tbody input[type=checkbox]").first.check()
    page.get_by_role("button", name="Reject selected").click()
    page.wait_for_selector(".confirm")
    found["console batch confirmation"] = violations(page, axe)
    return found


def report(found: dict[str, list[dict[str, Any]]]) -> str:
    """Every violation, a line each, for the assertion message."""
    return "\n".join(
        f"{where}: {v['id']} ({v['help']}) at {'; '.join(v['nodes'])}"
        for where, items in found.items()
        for v in items
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_page_type_has_no_axe_violation(
    browser: Browser,
    site: tuple[Backend, Archive, str],
    axe_source: str,
    size: str,
    scheme: str,
) -> None:
    backend, archive, colour = site
    viewport = DESKTOP if size == "desktop" else PHONE
    context = browser.new_context(
        viewport=viewport, color_scheme="dark" if scheme == "dark" else "light"
    )
    page = context.new_page()
    found: dict[str, list[dict[str, Any]]] = {}
    try:
        for name, path in public_paths(archive, colour).items():
            answer = page.goto(f"{backend.url}{path}")
            assert answer is not None
            expected = {
                "not found": 404,
                "photo gone": 410,
                "bad colour": 400,
                "bad trend": 400,
            }.get(name, 200)
            assert answer.status == expected, f"{name}: {answer.status}"
            found[f"public {name}"] = violations(page, axe_source)
        page.goto(f"{backend.url}/admin/sign-in")
        found["console sign-in"] = violations(page, axe_source)
        page.get_by_label("User name").fill("ada")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{backend.url}/admin")
        for name, path in console_paths(archive).items():
            answer = page.goto(f"{backend.url}{path}")
            assert answer is not None
            assert answer.status == 200, f"{name}: {answer.status}"
            assert "/sign-in" not in page.url, f"{name}: signed out"
            found[f"console {name}"] = violations(page, axe_source)
        found.update(console_steps(page, backend, archive, axe_source))
    finally:
        context.close()
    failing = {where: items for where, items in found.items() if items}
    assert not failing, f"axe-core violations ({size}, {scheme}):\n{report(failing)}"
