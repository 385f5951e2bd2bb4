"""Similar looks within a scope, through ``/api/images/{id}/similar?scope=`` and the image
page's tabs, on SQLite and PostgreSQL: each scope holds exactly the images it defines
(docs/similar-scopes.md), in brute-force order, never an unpublished one; bad input is a
one-line 4xx."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import ImageEmbedding
from tests.integration.embeddings.backend import embed_backend
from tests.integration.public.archive import Archive, seed
from tests.integration.public.vectors import embed_archive
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}


async def brute(archive: Archive, image_id: int, shows: list[str], k: int) -> list[int]:
    """The exact top-``k`` of the images of ``shows`` for ``image_id``'s vector (numpy)."""
    rows = await ImageEmbedding.select(ImageEmbedding.image_id, ImageEmbedding.vector)
    vectors = {int(r["image_id"]): np.frombuffer(bytes(r["vector"]), dtype="<f4") for r in rows}
    members = np.array(sorted(i for name in shows for i in archive.images[name]))
    scores = np.array([float(vectors[int(i)] @ vectors[image_id]) for i in members])
    return [int(members[i]) for i in np.lexsort((members, -scores))[:k]]


async def scoped(site: Backend, image_id: int, scope: str, k: int = 20) -> list[int]:
    answer = await site.client.get(f"/api/images/{image_id}/similar?scope={scope}&k={k}")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["model"]
    return [item["image_id"] for item in body["items"]]


async def test_each_scope_holds_what_it_defines_in_brute_force_order(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as site:
        archive = await seed(site.storage)
        await embed_archive(archive, plugin_manager)
        look = archive.images["acne-ss25"][0]
        season = ["aurele-ss25", "zeta-ss25"]  # pending, rejected, deleted SS25 shows: never
        assert await scoped(site, look, "season") == await brute(archive, look, season, 20)
        assert await scoped(site, look, "season", 3) == await brute(archive, look, season, 3)
        assert await scoped(site, look, "designer") == await brute(archive, look, ["acne-fw24"], 20)
        assert await scoped(site, look, "street") == await brute(archive, look, ["street-jan"], 20)

        photo = archive.images["street-jan"][0]
        runway = ["acne-ss25", "acne-fw24", "aurele-ss25", "aurele-fw24", "zeta-ss25"]
        assert await scoped(site, photo, "street", 5) == await brute(archive, photo, runway, 5)
        for scope in ("season", "designer"):  # a street post has no season and no brand
            answer = await site.client.get(f"/api/images/{photo}/similar?scope={scope}")
            assert answer.status_code == 404
            assert list(answer.json()) == ["error"]
            assert "no other published" in answer.json()["error"]

        page = await site.client.get(f"/images/{look}?scope=season", headers=HTML)
        assert page.status_code == 200
        assert 'aria-current="page">From this season</a>' in page.text
        rail = page.text.split('class="similar-rail__tiles"')[1].split("</section>")[0]
        shown = {int(part.split('"')[0]) for part in rail.split('href="/images/')[1:]}
        assert shown <= {i for name in season for i in archive.images[name]}
        assert len(shown) == 3
        street_page = await site.client.get(f"/images/{photo}?scope=season", headers=HTML)
        assert street_page.status_code == 200
        assert "On the runway" in street_page.text
        assert "No other published show of this season." in street_page.text
        assert 'aria-current="page">From this season</a>' in street_page.text
        assert 'title="Nothing here yet">From this designer' in street_page.text
        json_page = await site.client.get(f"/api/images/{look}?scope=designer")
        assert json_page.json()["scope"] == "designer"
        assert {s["picture"]["image_id"] for s in json_page.json()["similar"]} == set(
            archive.images["acne-fw24"]
        )


async def test_bad_scope_and_k_are_one_line_errors(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> None:
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as site:
        archive = await seed(site.storage)
        look = archive.images["acne-ss25"][0]
        for query, status in [
            ("scope=bogus", 400),
            ("scope=", 400),
            ("scope=" + "x" * 5000, 400),
            ("scope=season&k=0", 400),
            ("scope=season&k=101", 400),
            ("scope=season&k=abc", 400),
        ]:
            answer = await site.client.get(f"/api/images/{look}/similar?{query}")
            assert answer.status_code == status, query
            assert list(answer.json()) == ["error"], query
            assert "\n" not in answer.json()["error"]
        page = await site.client.get(f"/images/{look}?scope=bogus", headers=HTML)
        assert page.status_code == 400
        assert "scope must be one of" in page.text
        hidden = archive.images["pending"][0]
        answer = await site.client.get(f"/api/images/{hidden}/similar?scope=season")
        assert answer.status_code == 404
