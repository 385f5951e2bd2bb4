"""Bad input on every console form and URL: the page again with one message beside the
field (JSON ``{"error"}`` for non-browsers), a 4xx, and nothing changed (SQLite and
PostgreSQL)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from rk.server.brands.management import add_brand
from rk.server.platform.db.tables import (
    AdminUser,
    Article,
    Brand,
    CrawlTask,
    IngestJob,
    ModerationAudit,
)
from tests.integration.admin.console import HTML, account, csrf_of, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend


async def snapshot() -> dict[str, Any]:
    """Everything a console form could change."""
    return {
        "articles": await Article.select(Article.id, Article.status, Article.deleted_at),
        "audit": await ModerationAudit.count(),
        "brands": await Brand.select(Brand.name, Brand.slugs),
        "tasks": await CrawlTask.select(CrawlTask.id, CrawlTask.status),
        "jobs": await IngestJob.select(IngestJob.id, IngestJob.status),
        "users": await AdminUser.select(AdminUser.username, AdminUser.role, AdminUser.disabled_at),
    }


@pytest.fixture
async def world(console: Backend) -> dict[str, Any]:
    """An admin signed in, a brand, a pending and a deleted article, a canceled task."""
    await account("root")
    await account("mo", "moderator")
    await sign_in(console.client, "root")
    archive = Archive()
    pending = await add_show(console.storage, archive, "p", brand="Nordlys", status="pending")
    gone = await add_show(console.storage, archive, "d", brand="Nordlys", deleted=True)
    other, _ = await add_brand("Acne Studios", {"vogue": "acne-studios"})
    await CrawlTask.insert(CrawlTask(brand_id=other.id, status="canceled", source="vogue"))
    await IngestJob.insert(IngestJob(kind="crawl", status="done", payload="{}"))
    task = (await CrawlTask.select(CrawlTask.id).first() or {})["id"]
    job = (await IngestJob.select(IngestJob.id).first() or {})["id"]
    token = csrf_of(await console.client.get("/admin/users", headers=HTML))
    return {
        "pending": pending,
        "gone": gone,
        "brand": other,
        "task": task,
        "job": job,
        "token": token,
    }


async def refused(
    console: Backend, action: str, fields: dict[str, str], status: int, words: str
) -> httpx.Response:
    """``fields`` posted as a browser to ``action``: the page back with ``status`` and
    ``words`` in it."""
    page = await console.client.post(action, data=fields, headers=HTML)
    assert page.status_code == status, (action, page.text[:500])
    assert words in page.text, action
    return page


FORMS = [
    # (action, fields, status, words)
    (
        "/admin/crawl/add",
        {"brand": "", "source": "vogue", "max_shows": "3", "priority": "0"},
        422,
        "Choose a brand.",
    ),
    (
        "/admin/crawl/add",
        {"brand": "Nobody", "source": "vogue", "max_shows": "3", "priority": "0"},
        422,
        "No brand &#39;Nobody&#39;",
    ),
    (
        "/admin/crawl/add",
        {"brand": "x" * 300, "source": "vogue", "max_shows": "3", "priority": "0"},
        422,
        "at most 200 characters",
    ),
    (
        "/admin/crawl/add",
        {"brand": "Acne Studios", "source": "vogue", "max_shows": "-1", "priority": "0"},
        422,
        "max shows must be between 0 and 1000",
    ),
    (
        "/admin/crawl/add",
        {"brand": "Acne Studios", "source": "vogue", "max_shows": "99999999999", "priority": "0"},
        422,
        "max shows must be between 0 and 1000",
    ),
    (
        "/admin/crawl/add",
        {"brand": "Acne Studios", "source": "vogue", "max_shows": "three", "priority": "0"},
        422,
        "max shows must be a whole number",
    ),
    (
        "/admin/crawl/add",
        {"brand": "Acne Studios", "source": "myspace", "max_shows": "3", "priority": "0"},
        422,
        "Choose a source",
    ),
    (
        "/admin/crawl/batch",
        {"prefix": "", "source": "vogue", "max_shows": "3", "count": "5"},
        422,
        "Enter the first letters",
    ),
    (
        "/admin/crawl/batch",
        {"prefix": "A", "source": "vogue", "max_shows": "3", "count": "0"},
        422,
        "count must be between 1 and 1000",
    ),
    (
        "/admin/crawl/batch",
        {"prefix": "A", "source": "vogue", "max_shows": "3", "count": "100000"},
        422,
        "count must be between 1 and 1000",
    ),
    (
        "/admin/crawl/batch",
        {"prefix": "A", "source": "vogue", "max_shows": "0", "count": "5"},
        422,
        "0 means every show",
    ),
    ("/admin/brands/add", {"name": "   "}, 422, "Brand name is empty."),
    ("/admin/brands/add", {"name": "n" * 201}, 422, "longer than 200 characters"),
    ("/admin/brands/add", {"name": "Acne Studios"}, 409, "already exists"),
    ("/admin/brands/add", {"name": "New", "slug_vogue": "a b/c"}, 422, "slug may hold letters"),
    (
        "/admin/users/add",
        {"username": "", "role": "admin", "password": "long enough"},
        422,
        "The user name is empty.",
    ),
    (
        "/admin/users/add",
        {"username": "a b", "role": "admin", "password": "long enough"},
        422,
        "A user name is 1-64",
    ),
    (
        "/admin/users/add",
        {"username": "zed", "role": "admin", "password": "short"},
        422,
        "at least 8 characters",
    ),
    (
        "/admin/users/add",
        {"username": "zed", "role": "owner", "password": "long enough"},
        422,
        "Role must be one of",
    ),
    (
        "/admin/users/add",
        {"username": "mo", "role": "admin", "password": "long enough"},
        422,
        "already exists",
    ),
    (
        "/admin/users/add",
        {"username": "zed", "role": "admin", "password": "p" * 5000},
        422,
        "at most 1024 characters",
    ),
    (
        "/admin/users/add",
        {"username": "zed", "role": "admin", "password": "12345678"},
        422,
        "one of the 10,000 most common",
    ),
    (
        "/admin/users/add",
        {"username": "zed", "role": "admin", "password": "PassWord"},
        422,
        "one of the 10,000 most common",
    ),
    (
        "/admin/users/add",
        {"username": "zebedee", "role": "admin", "password": "ZEBEDEE-4-ever"},
        422,
        "may not be or contain the user name",
    ),
    ("/admin/users/root/disable", {}, 409, "cannot disable or demote your own account"),
    ("/admin/articles/bulk", {"action": "publish", "tab": "pending"}, 400, "Select at least one"),
    (
        "/admin/articles/bulk",
        {"action": "delete", "id": "1", "tab": "pending"},
        400,
        "Choose approve or reject",
    ),
    (
        "/admin/articles/bulk",
        {"action": "publish", "id": "abc", "tab": "pending"},
        400,
        "is not an article id",
    ),
    (
        "/admin/articles/bulk",
        {"action": "publish", "id": "999999", "tab": "pending"},
        404,
        "article 999999 does not exist",
    ),
]


@pytest.mark.parametrize(("action", "fields", "status", "words"), FORMS)
async def test_form_bad_input(
    console: Backend,
    world: dict[str, Any],
    action: str,
    fields: dict[str, str],
    status: int,
    words: str,
) -> None:
    before = await snapshot()
    page = await refused(console, action, {**fields, "_csrf_token": world["token"]}, status, words)
    assert page.headers["content-type"].startswith("text/html")
    assert 'class="field__error"' in page.text or 'class="flash flash--error"' in page.text
    api = await console.client.post(action, data={**fields, "_csrf_token": world["token"]})
    assert api.status_code == status
    error = api.json()["error"]
    assert "\n" not in error
    assert await snapshot() == before


async def test_a_brand_name_in_another_case_or_a_taken_slug_is_a_4xx_naming_the_brand(
    console: Backend, world: dict[str, Any]
) -> None:
    before = await snapshot()
    token = {"_csrf_token": world["token"]}
    clash = await console.client.post("/admin/brands/add", data={**token, "name": "ACNE studios"})
    assert clash.status_code == 409
    assert clash.json() == {
        "error": "brand name 'ACNE studios' clashes with the existing brand 'Acne Studios'"
        f" (id={world['brand'].id}); names are unique ignoring case"
    }
    taken = await console.client.post(
        "/admin/brands/add", data={**token, "name": "Acne Two", "slug_vogue": "acne-studios"}
    )
    assert taken.status_code == 422
    assert taken.json()["error"].startswith(
        "vogue slug 'acne-studios' belongs to the brand 'Acne Studios'"
    )
    assert await snapshot() == before


async def test_stale_and_unknown_rows(console: Backend, world: dict[str, Any]) -> None:
    before = await snapshot()
    data = {"_csrf_token": world["token"]}
    cases = [
        (
            f"/admin/articles/{world['pending']}/publish",
            {"expected": "rejected"},
            409,
            "is pending now",
        ),
        (f"/admin/articles/{world['gone']}/publish", {}, 409, "stays deleted"),
        (f"/admin/articles/{world['pending']}/reject", {}, 422, "Choose why"),
        ("/admin/articles/undo", {"audit": "12345"}, 409, "nothing was undone"),
        ("/admin/articles/undo", {"audit": "x"}, 404, "no decision"),
        (
            "/admin/articles/bulk",
            {"action": "reject", "id": str(world["pending"]), "confirm": "yes"},
            422,
            "Choose why",
        ),
        ("/admin/articles/999999/publish", {}, 404, "does not exist"),
        (f"/admin/articles/{world['pending']}/bless", {}, 404, "no action"),
        (f"/admin/crawl/{world['task']}/cancel", {}, 409, "cannot be canceled"),
        ("/admin/crawl/999999/retry", {}, 404, "does not exist"),
        (f"/admin/crawl/{world['task']}/launch", {}, 400, "no action"),
        (f"/admin/ingest-jobs/{world['job']}/retry", {}, 409, "only a failed job"),
        ("/admin/ingest-jobs/999999/retry", {}, 404, "does not exist"),
        ("/admin/users/nobody/disable", {}, 404, "no user named"),
        ("/admin/users/mo/promote", {}, 400, "no action"),
        ("/admin/brands/nope/edit", {"name": "X"}, 404, "no brand"),
        (
            f"/admin/brands/{world['brand'].uid}/edit",
            {"name": "Nordlys"},
            422,
            "Another brand is already called &#39;Nordlys&#39;.",
        ),
        (
            f"/admin/brands/{world['brand'].uid}/edit",
            {"name": " NORDLYS "},
            422,
            "Another brand is already called &#39;Nordlys&#39;.",
        ),
        (f"/admin/brands/{world['brand'].uid}/edit", {"name": ""}, 422, "Brand name is empty."),
        (
            f"/admin/brands/{world['brand'].uid}/crawl",
            {"source": "vogue", "max_shows": "-5"},
            422,
            "between 0 and 1000",
        ),
        (
            f"/admin/brands/{world['brand'].uid}/crawl",
            {"source": "nope", "max_shows": "3"},
            422,
            "Choose a source",
        ),
    ]
    for action, fields, status, words in cases:
        await refused(console, action, {**data, **fields}, status, words)
    assert await snapshot() == before


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/admin/articles?tab=lost", 400, "tab must be one of"),
        ("/admin/articles?before=abc", 400, "before must be a positive id"),
        ("/admin/articles?brand=Nobody", 400, "no brand"),
        ("/admin/crawl?status=sleeping", 400, "status must be one of"),
        ("/admin/ingest-jobs?kind=weird", 400, "kind must be one of"),
        ("/admin/ingest-jobs?outcome=great", 400, "outcome must be one of"),
        ("/admin/ingest-jobs?before=-1", 400, "before must be a positive id"),
        ("/admin/audit?before=x", 400, "before must be a positive id"),
        ("/admin/articles/abc", 404, "no article"),
        ("/admin/articles/123456789", 404, "does not exist"),
        ("/admin/articles/123456789/compare", 404, "does not exist"),
        ("/admin/articles/1/compare?with=abc", 404, "no article"),
        ("/admin/ingest-jobs/77777", 404, "does not exist"),
        ("/admin/brands/zzzzzz", 404, "no brand"),
        ("/admin/no-such-page", 404, "Page not found"),
    ],
)
async def test_bad_urls(
    console: Backend, world: dict[str, Any], path: str, status: int, words: str
) -> None:
    page = await console.client.get(path, headers=HTML)
    assert page.status_code == status
    assert words in page.text
    assert 'class="error-page"' in page.text


async def test_sign_in_bad_input(console: Backend) -> None:
    form = await console.client.get("/admin/sign-in", headers=HTML)
    token = csrf_of(form)
    for fields, status, words in [
        ({"username": "", "password": "x"}, 400, "Enter your user name."),
        ({"username": "ada", "password": ""}, 400, "Enter your password."),
        ({"username": "u" * 5000, "password": "x"}, 422, "That input is too long."),
        ({"username": "ghost", "password": "whatever1"}, 401, "Wrong user name or password."),
    ]:
        await refused(console, "/admin/sign-in", {**fields, "_csrf_token": token}, status, words)
    no_token = await console.client.post(
        "/admin/sign-in", data={"username": "a", "password": "b"}, headers=HTML
    )
    assert no_token.status_code == 403
