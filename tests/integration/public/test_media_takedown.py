"""A moderation decision holds at /media: only keys of published articles are served.

Issue 27 row 3: ``/media`` answered 200 with ``immutable`` for pending, rejected and
published-then-rejected articles. Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import httpx

from rk.core import hookimpl
from rk.server.platform.db.tables import Image
from tests.integration.admin.console import HTML, account, post_form, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend

PUBLIC = "public, max-age=300, must-revalidate"


async def keys_of(article_id: int) -> list[str]:
    """Every key the article's images use: originals, then thumbnails."""
    rows = await Image.select(Image.key, Image.thumb_key).where(Image.article_id == article_id)
    return [str(row["key"]) for row in rows] + [str(row["thumb_key"]) for row in rows]


def assert_withheld(response: httpx.Response) -> None:
    """The public answer for a key no published article uses: a 404 no cache keeps."""
    assert response.status_code == 404, response.text[:200]
    assert response.headers["cache-control"] == "no-store"
    assert response.json()["error"].startswith("no media at ")


async def test_only_keys_of_published_articles_are_served(site: Backend) -> None:
    archive = Archive()
    shows = {
        status: await add_show(site.storage, archive, status, status=status, seed=n)
        for n, status in enumerate(["pending", "rejected", "published"], start=1)
    }
    shows["deleted"] = await add_show(
        site.storage, archive, "deleted", status="published", deleted=True, seed=4
    )
    shared = await add_show(site.storage, archive, "shared", status="rejected", seed=3)
    assert await keys_of(shared) == await keys_of(shows["published"])
    for status, article_id in shows.items():
        for key in await keys_of(article_id):
            response = await site.client.get(f"/media/{key}")
            if status != "published":
                assert_withheld(response)
                continue
            assert response.status_code == 200, key
            assert response.headers["cache-control"] == PUBLIC
            assert "immutable" not in response.headers["cache-control"]
            assert response.content == await site.storage.get(key)
    for key in await keys_of(shared):  # a rejected article's key, but a published one uses it
        assert (await site.client.get(f"/media/{key}")).status_code == 200
    missing = await site.client.get(f"/media/runway/{'0' * 40}.jpg")
    assert_withheld(missing)


async def test_a_takedown_holds_even_for_a_cached_copy(site: Backend) -> None:
    archive = Archive()
    article = await add_show(site.storage, archive, "shown", status="published", looks=1, seed=5)
    key, thumb = await keys_of(article)
    shown = await site.client.get(f"/media/{key}")
    assert shown.status_code == 200
    assert shown.headers["cache-control"] == PUBLIC
    etag = shown.headers["etag"]
    assert (
        await site.client.get(f"/media/{key}", headers={"If-None-Match": etag})
    ).status_code == 304
    await account("mo", "moderator")
    await sign_in(site.client, "mo")
    page = f"/admin/articles/{article}"
    form = {"expected": "published", "reason": "images"}  # a rejection says why
    rejected = await post_form(site.client, page, f"{page}/reject", form)
    assert rejected.status_code == 303
    site.client.cookies.clear()
    assert_withheld(await site.client.get(f"/media/{key}"))
    assert_withheld(await site.client.get(f"/media/{key}", headers={"If-None-Match": etag}))
    assert_withheld(await site.client.get(f"/media/{thumb}"))


async def test_the_console_previews_pending_images_to_a_session_only(site: Backend) -> None:
    archive = Archive()
    article = await add_show(site.storage, archive, "waiting", status="pending", looks=2, seed=7)
    keys = await keys_of(article)
    signed_out = await site.client.get(f"/admin/media/{keys[0]}")
    assert signed_out.status_code == 303
    assert signed_out.headers["location"].startswith("/admin/sign-in?next=/admin/media/")
    await account("mo", "moderator")
    await sign_in(site.client, "mo")
    review = await site.client.get(f"/admin/articles/{article}", headers=HTML)
    assert review.status_code == 200
    for key in keys:
        assert f"/admin/media/{key}" in review.text
        assert f"{site.url}/media/{key}" not in review.text
        preview = await site.client.get(f"/admin/media/{key}")
        assert preview.status_code == 200
        assert preview.headers["cache-control"] == "private, no-store"
        assert preview.headers["x-content-type-options"] == "nosniff"
        assert preview.headers["content-type"] == "image/jpeg"
        assert preview.content == await site.storage.get(key)
    missing = await site.client.get(f"/admin/media/runway/{'0' * 40}.jpg")
    assert missing.status_code == 404
    assert missing.headers["cache-control"] == "no-store"
    listing = await site.client.get("/admin/articles?tab=pending", headers=HTML)
    assert "/admin/media/thumb/" in listing.text
    assert f"{site.url}/media/" not in listing.text


class Withdrawals:
    """Our observer of ``rk_media_withdrawn``: what an operator's CDN purge would get."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, list[str], list[str]]] = []

    @hookimpl
    def rk_media_withdrawn(self, article_id: int, keys: list[str], urls: list[str]) -> None:
        self.calls.append((article_id, keys, urls))


async def test_taking_a_published_article_down_calls_the_purge_hook(
    site: Backend, register_plugin: Any
) -> None:
    seen = register_plugin(Withdrawals(), "cdn-purge")
    archive = Archive()
    shown = await add_show(site.storage, archive, "shown", status="published", looks=2, seed=8)
    other = await add_show(site.storage, archive, "other", status="published", looks=2, seed=9)
    shared = await add_show(site.storage, archive, "twin", status="published", looks=1, seed=9)
    waiting = await add_show(site.storage, archive, "waiting", status="pending", looks=1, seed=10)
    await account("mo", "moderator")
    await sign_in(site.client, "mo")

    async def decide(article: int, action: str, expected: str) -> None:
        page = f"/admin/articles/{article}"
        form = {"expected": expected, "reason": "duplicate"}  # a rejection says why
        answer = await post_form(site.client, page, f"{page}/{action}", form)
        assert answer.status_code == 303, answer.text[:300]

    await decide(waiting, "reject", "pending")
    await decide(waiting, "publish", "rejected")
    assert seen.calls == []  # nothing published was taken down yet
    await decide(shown, "reject", "published")
    keys = await keys_of(shown)
    assert seen.calls == [(shown, keys, [f"{site.url}/media/{key}" for key in keys])]
    await decide(other, "delete", "published")
    still_used = set(await keys_of(shared))  # the twin's look is other's look 1
    gone = [key for key in await keys_of(other) if key not in still_used]
    assert len(gone) == 2
    assert seen.calls[1] == (other, gone, [f"{site.url}/media/{key}" for key in gone])
    for key in gone:
        assert_withheld(await site.client.get(f"/media/{key}"))
    for key in still_used:
        assert (await site.client.get(f"/media/{key}")).status_code == 200
