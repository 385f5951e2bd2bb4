"""The backend's part of issue 14, on SQLite and PostgreSQL over a real socket.

- ``POST /admin/internal/brands`` finds a brand by its slug on a source or by name, creating
  it when missing (a spider crawling a whole season meets new designers);
- ingest stores the look each detail shot belongs to and the model of each look.
"""

from __future__ import annotations

import json

import msgspec

from rk.core.api.wire import ImageRef, Look, ShowIngest
from rk.server.platform.db.tables import Brand
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import Backend, article_of, images_of, show
from tests.integration.server.images import ImageServer, jpeg
from tests.integration.server.test_internal_api import assert_error

BRANDS = "/admin/internal/brands"


async def ensure(backend: Backend, **body: object) -> dict[str, object]:
    response = await backend.signed("POST", BRANDS, json.dumps(body).encode())
    assert response.status_code == 200, response.text
    return response.json()


async def test_brands_are_found_by_slug_or_name_and_created_when_missing(
    start_backend: StartBackend, any_dsn: str
) -> None:
    backend = await start_backend(workers=0, database=any_dsn)
    created = await ensure(backend, name="Veyra Atelier", source="vogue", slug="veyra-atelier")
    assert created["name"] == "Veyra Atelier"
    assert created["slugs"] == {"vogue": "veyra-atelier"}
    renamed = await ensure(backend, name="VEYRA", source="vogue", slug="veyra-atelier")
    assert renamed == created  # found by its slug, whatever the listing calls it

    await Brand.insert(Brand(name="Maison Aurèle", uid="x1", slugs="{}"))
    by_name = await ensure(backend, name="Maison Aurèle", source="vogue", slug="maison-aurele")
    assert by_name["slugs"] == {"vogue": "maison-aurele"}  # the missing slug is filled in
    await Brand.insert(Brand(name="Halden & Co.", uid="x2", slugs='{"vogue": "halden-co"}'))
    kept = await ensure(backend, name="halden & co.", source="vogue", slug="halden-company")
    assert (kept["name"], kept["slugs"]) == ("Halden & Co.", {"vogue": "halden-co"})
    assert await Brand.count() == 3

    bad = {"name": "X", "source": "vogue", "slug": "Not A Slug"}
    assert_error(await backend.signed("POST", BRANDS, json.dumps(bad).encode()), 422, "slug")
    blank = {"name": "   ", "source": "vogue", "slug": "x"}
    assert_error(await backend.signed("POST", BRANDS, json.dumps(blank).encode()), 422, "empty")
    extra = {"name": "X", "source": "vogue", "slug": "x", "uid": "u"}
    assert_error(await backend.signed("POST", BRANDS, json.dumps(extra).encode()), 422, "uid")
    assert_error(await backend.client.post(BRANDS, json={"name": "X"}), 401)
    assert await Brand.count() == 3


async def test_detail_looks_and_model_names_are_stored(
    start_backend: StartBackend, images: ImageServer, any_dsn: str
) -> None:
    backend = await start_backend(database=any_dsn)
    urls = [images.add(f"/{n}.jpg", jpeg(n)) for n in range(1, 7)]
    payload = ShowIngest(
        source="vogue",
        kind="runway",
        show_key="fall-2031-ready-to-wear/veyra-atelier",
        title="Veyra Atelier Fall 2031 Ready-to-Wear",
        looks=[
            Look(number=2, image=ImageRef(url=urls[0]), model_name="Clio Bertrand"),
            Look(number=5, image=ImageRef(url=urls[1])),
        ],
        details=[
            ImageRef(url=urls[2], look=2),
            ImageRef(url=urls[3], look=2),
            ImageRef(url=urls[4]),
            ImageRef(url=urls[5], look=9),  # its look had no image: the link is kept
        ],
    )
    job = await backend.ingest_and_wait(payload)
    assert (job["status"], job["outcome"]) == ("done", "created")
    article = await article_of(payload)
    assert article is not None
    rows = await images_of(article["id"])
    got = [(r["role"], r["position"], r["look_number"], r["model_name"]) for r in rows]
    assert got == [
        ("look", 2, 2, "Clio Bertrand"),
        ("look", 5, 5, ""),
        ("detail", 1, 2, ""),
        ("detail", 2, 2, ""),
        ("detail", 3, None, ""),
        ("detail", 4, 9, ""),
    ]

    # A spider that knows nothing of links (an older one) still ingests: details unlinked.
    plain = show("resort-2031/halden-company", [urls[0]], details=[urls[2]])
    old_body = json.loads(msgspec.json.encode(plain))
    del old_body["looks"][0]["model_name"]
    del old_body["details"][0]["look"]
    response = await backend.ingest(json.dumps(old_body).encode())
    assert response.status_code == 202, response.text
    job = await backend.wait_job(int(response.json()["job_id"]))
    assert job["outcome"] == "created"
    article = await article_of(plain)
    assert article is not None
    rows = await images_of(article["id"])
    assert [(r["role"], r["look_number"], r["model_name"]) for r in rows] == [
        ("look", 1, ""),
        ("detail", None, ""),
    ]
