"""Brand uids on the public site: a brand the public cannot see stays unseen, by any uid.

Issue 27 row 9: ``/?brand=<uid>`` printed the name of a brand with no published show
(``/brands/<uid>`` answered 404). Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from rk.core.uids import brand_uid
from rk.server.brands.management import add_brand
from rk.server.platform.db.tables import Brand
from tests.integration.admin.console import HTML
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend


async def test_a_brand_without_published_shows_is_404_by_any_filter(site: Backend) -> None:
    archive = Archive()
    await add_show(site.storage, archive, "waiting", brand="Hidden House", status="pending")
    await add_show(site.storage, archive, "refused", brand="Hidden House", status="rejected")
    bare, _ = await add_brand("Bare Label")
    for uid in (archive.brands["Hidden House"], bare.uid):
        for path in (f"/?brand={uid}", f"/api/shows?brand={uid}", f"/brands/{uid}"):
            answer = await site.client.get(path, headers=HTML)
            assert answer.status_code == 404, path
            assert "Hidden House" not in answer.text
            assert "Bare Label" not in answer.text


async def test_a_pre_0050_uid_still_filters_and_pages_show_the_new_one(site: Backend) -> None:
    archive = Archive()
    info, _ = await add_brand("Old Friend")
    old = brand_uid(info.id)  # what it was called before the instance had its own alphabet
    await Brand.update({Brand.old_uid: old}).where(Brand.id == info.id)
    archive.brands["Old Friend"] = info.uid
    await add_show(site.storage, archive, "shown", brand="Old Friend", status="published")
    for path in (f"/?brand={old}", f"/brands/{old}", f"/?brand={info.uid}"):
        page = await site.client.get(path, headers=HTML)
        assert page.status_code == 200, path
        assert "Old Friend" in page.text
        assert f"brand={info.uid}" in page.text or f"/brands/{info.uid}" in page.text
        assert old not in page.text.replace(path, "")
    listed = await site.client.get(f"/api/shows?brand={old}")
    assert listed.status_code == 200
    assert [card["brand"]["uid"] for card in listed.json()["items"]] == [info.uid]
