"""The whole path on both engines: embed an image, store its vector, tag it from the text
tower; the tags show under the image and filter and facet the show lists, published only."""

from __future__ import annotations

from pathlib import Path

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.db.tables import ImageTag, ImageTagRun
from rk.server.tags import load_vocabulary
from tests.integration.embeddings.backend import embed_backend
from tests.integration.tags.seed import (
    embed,
    eventually,
    reference,
    seed_show,
    tagged,
    tags_by_image,
)
from tests.support.concept_clip import MODEL_ID


async def test_embedded_images_get_the_tags_their_concepts_name(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str, concept_model: Path
) -> None:
    async with embed_backend(
        tmp_path, plugin_manager, model=concept_model, database=any_dsn
    ) as backend:
        published = await seed_show(backend, "tags-published", "published")
        pending = await seed_show(backend, "tags-pending", "pending")
        everything = {**published, **pending}
        await embed(backend, reference(concept_model), sorted(everything))
        await eventually(lambda: tagged(len(everything)), "tagging every embedded image")
        assert await tags_by_image() == everything
        runs = await ImageTagRun.select(ImageTagRun.model, ImageTagRun.vocabulary)
        assert {(r["model"], r["vocabulary"]) for r in runs} == {
            (MODEL_ID, load_vocabulary().digest)
        }
        scores = await ImageTag.select(ImageTag.score, ImageTag.state)
        assert all(r["state"] == "auto" and 0.22 <= r["score"] <= 1.0 for r in scores)

        for image_id, expected in published.items():
            answer = await backend.client.get(f"/api/images/{image_id}")
            assert answer.status_code == 200, answer.text
            got = answer.json()["tags"]
            assert {t["tag"] for t in got} == expected
            assert [t["score"] for t in got] == sorted((t["score"] for t in got), reverse=True)
        for image_id in pending:
            assert (await backend.client.get(f"/api/images/{image_id}")).status_code == 404


async def test_tag_filters_and_facet_count_published_shows_only(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str, concept_model: Path
) -> None:
    async with embed_backend(
        tmp_path, plugin_manager, model=concept_model, database=any_dsn
    ) as backend:
        shows = {key: await seed_show(backend, key, "published") for key in ("a", "b")}
        pending = await seed_show(backend, "c", "pending")
        ids = sorted({i for show in shows.values() for i in show} | set(pending))
        await embed(backend, reference(concept_model), ids)
        await eventually(lambda: tagged(len(ids)), "tagging every embedded image")

        listed = await backend.client.get("/api/shows", params={"tag": "plaid"})
        assert listed.status_code == 200, listed.text
        assert sorted(s["title"] for s in listed.json()["items"]) == ["a", "b"]
        page = await backend.client.get("/", params={"tag": "plaid"})
        assert page.status_code == 200
        assert "Tag: plaid" in page.text
        facets = (await backend.client.get("/api/facets")).json()
        counts = {f["value"]: f["count"] for f in facets["tag"]}
        assert counts == {"plain": 2, "dress": 2, "coat": 2, "stripe": 2, "plaid": 2}
        narrowed = (await backend.client.get("/api/facets", params={"tag": "stripe"})).json()
        assert narrowed["total"] == 2

        for bad in ("tartan-ish", "x" * 300, "DRESS"):
            answer = await backend.client.get("/api/shows", params={"tag": bad})
            assert answer.status_code == 400
            assert answer.json()["error"].startswith("unknown tag")
            assert "\n" not in answer.json()["error"]
        assert (await backend.client.get("/", params={"tag": "nope"})).status_code == 400
