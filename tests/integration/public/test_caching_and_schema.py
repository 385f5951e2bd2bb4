"""Caching headers (ETag, Last-Modified, Cache-Control, 304) that follow publishing, and the
offline ``/schema`` page with the OpenAPI document (SQLite and PostgreSQL)."""

from __future__ import annotations

import re

from tests.integration.public.archive import Archive, set_status
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}


async def test_pages_carry_validators_and_revalidate_to_304(
    site: Backend, archive: Archive
) -> None:
    show = f"/shows/{archive.shows['acne-ss25']}"
    for path in (
        "/",
        "/brands",
        show,
        f"/images/{archive.images['acne-ss25'][0]}",
        "/api/shows",
        f"/api{show}",
    ):
        first = await site.client.get(path, headers=HTML)
        assert first.status_code == 200, path
        etag = first.headers["etag"]
        assert first.headers["cache-control"] == "public, max-age=30"
        again = await site.client.get(path, headers={**HTML, "if-none-match": etag})
        assert again.status_code == 304, path
        assert again.content == b""
        assert again.headers["etag"] == etag
        other = await site.client.get(path, headers={**HTML, "if-none-match": '"other"'})
        assert other.status_code == 200
    page = await site.client.get(show)
    assert page.headers["last-modified"].endswith(" GMT")


async def test_publish_and_unpublish_show_on_the_next_request(
    site: Backend, archive: Archive
) -> None:
    pending = archive.shows["pending"]
    before = await site.client.get("/", headers=HTML)
    assert f"/shows/{pending}" not in before.text
    await set_status(pending, "published")
    after = await site.client.get("/", headers={**HTML, "if-none-match": before.headers["etag"]})
    assert after.status_code == 200
    assert f"/shows/{pending}" in after.text
    assert (await site.client.get(f"/shows/{pending}", headers=HTML)).status_code == 200
    shown = await site.client.get(f"/api/shows/{pending}")
    await set_status(pending, "rejected")
    gone = await site.client.get(
        f"/api/shows/{pending}", headers={"if-none-match": shown.headers["etag"]}
    )
    assert gone.status_code == 404
    home = await site.client.get("/", headers={**HTML, "if-none-match": after.headers["etag"]})
    assert home.status_code == 200
    assert f"/shows/{pending}" not in home.text


async def test_schema_page_needs_nothing_outside_rk(site: Backend) -> None:
    page = await site.client.get("/schema", headers=HTML)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    urls = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert urls
    assert all(not url.startswith(("http:", "https:", "//")) for url in urls), urls
    for path in ("/api/shows", "/api/shows/{show_id}", "/api/images/{image_id}", "/api/brands"):
        assert f"<code>{path}</code>" in page.text
    assert "ShowList" in page.text
    document = (await site.client.get("/schema/openapi.json")).json()
    for path in (
        "/api/shows",
        "/api/facets",
        "/api/shows/{show_id}",
        "/api/images/{image_id}",
        "/api/brands",
        "/api/brands/{uid}",
        "/api/search",
    ):
        assert path in document["paths"], path
    params = {p["name"] for p in document["paths"]["/api/shows"]["get"]["parameters"]}
    assert {"brand", "season", "year", "city", "kind", "before", "limit"} <= params
    ok = document["paths"]["/api/shows"]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"]["$ref"].endswith("ShowList")
    yaml = await site.client.get("/schema/openapi.yaml")
    assert yaml.status_code == 200
    assert "/api/shows:" in yaml.text


async def test_any_write_to_what_a_page_shows_is_seen_next_request(
    site: Backend, archive: Archive
) -> None:
    from rk.server.platform.db.public_changes import read_changes
    from rk.server.platform.db.tables import Brand, Image
    from tests.integration.public.archive import add_brand

    uid = archive.brands["Zeta"]
    brand = f"/brands/{uid}"
    assert "Zeta" in (await site.client.get(brand, headers=HTML)).text
    await Brand.update({Brand.name: "Zeta Renamed"}).where(Brand.uid == uid)
    assert "Zeta Renamed" in (await site.client.get(brand, headers=HTML)).text
    show = f"/api/shows/{archive.shows['zeta-ss25']}"
    first = archive.images["zeta-ss25"][0]
    await Image.update({Image.width: 640, Image.height: 960}).where(Image.id == first)
    looks = (await site.client.get(show)).json()["looks"]
    assert (looks[0]["width"], looks[0]["height"]) == (640, 960)
    moved = await read_changes()
    hidden = archive.images["pending"][0]
    await Image.update({Image.width: 1}).where(Image.id == hidden)
    await Image.update({Image.embed_leased_until: 99}).where(Image.id == first)
    assert await read_changes() == moved, "writes no public page shows moved the counter"
    await add_brand("Unrelated New Brand")
    assert (await read_changes()).content > moved.content


async def test_a_page_sent_again_from_the_cache_is_the_same_answer_until_a_change(
    site: Backend, archive: Archive
) -> None:
    show = f"/shows/{archive.shows['acne-ss25']}"
    sent = ("etag", "cache-control", "content-type", "content-length", "last-modified")
    for path in ("/", show, f"/images/{archive.images['acne-ss25'][0]}", f"/api{show}"):
        first = await site.client.get(path, headers=HTML)
        for _ in range(3):  # plain GETs of a cached answer: sent before the handler runs
            again = await site.client.get(path, headers=HTML)
            assert (again.status_code, again.content) == (200, first.content), path
            assert {k: again.headers.get(k) for k in sent} == {
                k: first.headers.get(k) for k in sent
            }, path
            assert again.headers["x-request-id"] != first.headers["x-request-id"]
    pending = archive.shows["pending"]
    await set_status(pending, "published")
    home = await site.client.get("/", headers=HTML)
    assert f"/shows/{pending}" in home.text
    await set_status(pending, "rejected")
    assert f"/shows/{pending}" not in (await site.client.get("/", headers=HTML)).text
