"""Bad input on the public pages and API: a friendly 4xx page for browsers, a one-line JSON
error for API clients, never a 500 (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from tests.integration.public.archive import Archive
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("year=abc", 400, "is not a year"),
        ("year=20255", 400, "is not a year"),
        ("kind=catwalk", 400, "use runway or street"),
        ("brand=no%20such!", 400, "is not a brand id"),
        ("brand=Zzzzzzzz", 404, "no brand"),
        ("before=abc", 400, "is not a show id"),
        ("before=-3", 400, "is not a show id"),
        ("before=99999999", 400, "names no show"),
        ("before=999999999999999999999999", 400, "is not a show id"),
        ("season=" + "x" * 201, 400, "at most 200"),
        ("city=" + "y" * 5000, 400, "at most 200"),
        ("season=a%00b", 400, "control characters"),
        ("city=%01", 400, "control characters"),
    ],
)
async def test_bad_filters(
    site: Backend, archive: Archive, query: str, status: int, words: str
) -> None:
    page = await site.client.get(f"/?{query}", headers=HTML)
    assert page.status_code == status
    assert page.headers["content-type"].startswith("text/html")
    assert words in page.text
    assert 'class="error-page"' in page.text
    api = await site.client.get(f"/api/shows?{query}")
    assert api.status_code == status
    assert words in api.json()["error"]


@pytest.mark.parametrize(
    "path",
    [
        "/shows/0",
        "/shows/abc",
        "/shows/-1",
        "/shows/99999999",
        "/shows/123456789012345678901234567890",
        "/images/0",
        "/images/abc",
        "/images/99999999",
        "/images/123456789012345678901234567890",
        "/brands/nosuchbrand",
        "/brands/%00",
    ],
)
async def test_unknown_ids_are_404_pages_and_json(
    site: Backend, archive: Archive, path: str
) -> None:
    page = await site.client.get(path, headers=HTML)
    assert page.status_code == 404
    assert "Page not found" in page.text
    api = await site.client.get(f"/api{path}")
    assert api.status_code == 404
    assert api.json()["error"]


@pytest.mark.parametrize("limit", ["0", "101", "x"])
async def test_api_limit_is_checked(site: Backend, limit: str) -> None:
    answer = await site.client.get("/api/shows", params={"limit": limit})
    assert answer.status_code == 400
    assert "limit" in answer.json()["error"]


async def test_search_without_a_model_says_so(site: Backend) -> None:
    page = await site.client.get("/search", headers=HTML)
    assert page.status_code == 200
    assert "this backend has no embedding model" in page.text
    assert "disabled" in page.text
    query = await site.client.get("/search?q=red+coat", headers=HTML)
    assert query.status_code == 503
    assert "this backend has no embedding model" in query.text
    assert 'value="red coat"' in query.text
    upload = await site.client.post(
        "/search", files={"image": ("a.png", b"not an image", "image/png")}, headers=HTML
    )
    assert upload.status_code == 422
    assert "not an image" in upload.text


async def test_overlong_search_is_400_with_the_reason_beside_the_box(site: Backend) -> None:
    page = await site.client.get("/search", params={"q": "tartan " * 100}, headers=HTML)
    assert page.status_code == 400
    assert "at most 300" in page.text
    assert 'aria-invalid="true"' in page.text
