"""The embedding API and public search over a real backend on 127.0.0.1 with the tiny model."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import numpy as np
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.platform.db.tables import ImageEmbedding
from tests.integration.embeddings.backend import (
    TINY_CLIP,
    add_article,
    add_images,
    embed_backend,
    picture,
)
from tests.integration.server.helpers import Backend

PENDING = "/admin/internal/embeddings/pending"
SUBMIT = "/admin/internal/embeddings"


@pytest.fixture(scope="module")
def reference() -> ClipEmbedder:
    """The same tiny model, loaded in the test: the reference vectors."""
    return ClipEmbedder({"model": str(TINY_CLIP), "batch": 8, "concurrency": 1})


@pytest.fixture
async def backend(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[Backend]:
    """A backend with the tiny model, on SQLite and on PostgreSQL."""
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as running:
        yield running


@pytest.fixture
async def lite(tmp_path: Path, plugin_manager: RkPluginManager) -> AsyncIterator[Backend]:
    """A backend with the tiny model on the embedded default (for request validation)."""
    async with embed_backend(tmp_path, plugin_manager) as running:
        yield running


def unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    return array / np.linalg.norm(array)


async def wait_placed(timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await ImageEmbedding.count().where(ImageEmbedding.neighbours_at == 0) == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the neighbours job did not place every vector")


async def embed_all(backend: Backend, reference: ClipEmbedder, images: dict[int, bytes]) -> None:
    ids = sorted(images)
    result = reference.embed_images([images[i] for i in ids])
    items = [
        EmbeddingVector(kind="runway", image_id=ids[i], vector=v)
        for i, v in zip(result.indexes, result.vectors, strict=True)
    ]
    body = msgspec.json.encode(EmbeddingSubmit(items=items))
    response = await backend.signed("POST", SUBMIT, body)
    assert response.status_code == 200, response.text
    assert response.json() == {"saved": len(ids), "failed": 0, "errors": []}
    await wait_placed()


async def test_pending_over_http_leases_disjoint_sets_with_media_urls(backend: Backend) -> None:
    article = await add_article("show-a", "pending")
    images = await add_images(backend, article, list(range(10)))
    first, second = await asyncio.gather(
        backend.signed("GET", f"{PENDING}?kind=runway&limit=4"),
        backend.signed("GET", f"{PENDING}?kind=runway&limit=4"),
    )
    assert first.status_code == second.status_code == 200
    a = {item["image_id"] for item in first.json()["items"]}
    b = {item["image_id"] for item in second.json()["items"]}
    assert len(a) == len(b) == 4
    assert not a & b
    item = first.json()["items"][0]
    assert item["url"].startswith(f"{backend.url}/media/runway/")
    download = await backend.client.get(item["url"])
    assert download.content == images[item["image_id"]]
    rest = await backend.signed("GET", f"{PENDING}?kind=runway&limit=100")
    assert len(rest.json()["items"]) == 2
    assert rest.json()["remaining"] == 0


@pytest.mark.parametrize(
    ("query", "status", "error"),
    [
        ("?limit=5", 400, "kind"),
        ("?kind=Runway!&limit=5", 400, "kind"),
        ("?kind=runway&limit=5000", 400, "limit"),
        ("?kind=runway&limit=x", 400, "limit"),
    ],
)
async def test_pending_rejects_bad_parameters(
    lite: Backend, query: str, status: int, error: str
) -> None:
    response = await lite.signed("GET", PENDING + query)
    assert response.status_code == status
    assert error in response.json()["error"]


async def test_unsigned_requests_are_refused(lite: Backend) -> None:
    response = await lite.client.get(f"{PENDING}?kind=runway")
    assert response.status_code == 401
    response = await lite.client.post(SUBMIT, content=b"{}")
    assert response.status_code == 401


async def test_submit_over_http_reports_each_bad_item(backend: Backend) -> None:
    article = await add_article("show-a", "pending")
    ids = sorted(await add_images(backend, article, [1, 2]))
    body = msgspec.json.encode(
        EmbeddingSubmit(
            items=[
                EmbeddingVector(kind="runway", image_id=ids[0], vector=[0.25] * 16),
                EmbeddingVector(kind="runway", image_id=ids[1], vector=[0.25] * 3),
                EmbeddingVector(kind="runway", image_id=777, vector=[0.25] * 16),
            ]
        )
    )
    response = await backend.signed("POST", SUBMIT, body)
    assert response.status_code == 200
    assert response.json() == {
        "saved": 1,
        "failed": 2,
        "errors": [
            {
                "image_id": ids[1],
                "error": "vector has 3 numbers; model rk-test/tiny-clip has dim 16",
            },
            {"image_id": 777, "error": "unknown image 777"},
        ],
    }


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b'{"items": [{"kind": "runway", "image_id": 1, "vector": [NaN]}]}', 400),
        (b'{"items": [{"kind": "runway", "image_id": 1, "vector": [1e999]}]}', 422),
        (b'{"items": [{"kind": "runway", "image_id": 1, "vector": []}]}', 422),
        (b'{"items": [], "extra": 1}', 422),
        (b"not json", 400),
    ],
)
async def test_submit_rejects_malformed_bodies(lite: Backend, body: bytes, status: int) -> None:
    response = await lite.signed("POST", SUBMIT, body)
    assert response.status_code == status
    assert response.json()["error"]


async def test_similar_and_search_return_published_images_only(
    backend: Backend, reference: ClipEmbedder
) -> None:
    published = await add_images(
        backend, await add_article("show-pub", "published"), list(range(12))
    )
    hidden = await add_images(
        backend, await add_article("show-pending", "pending"), list(range(12, 20))
    )
    rejected = await add_images(backend, await add_article("show-rej", "rejected"), [20, 21])
    everything = {**published, **hidden, **rejected}
    await embed_all(backend, reference, everything)
    ids = sorted(everything)
    vectors = {
        i: unit(v)
        for i, v in zip(
            ids, reference.embed_images([everything[i] for i in ids]).vectors, strict=True
        )
    }

    def ranked(query: np.ndarray, pool: list[int]) -> list[int]:
        return sorted(pool, key=lambda i: (-float(vectors[i] @ query), i))

    # similar: the stored top-20 over every image, then only the published ones
    some = sorted(published)[3]
    response = await backend.client.get(f"/api/images/{some}/similar?k=20")
    assert response.status_code == 200
    got = [item["image_id"] for item in response.json()["items"]]
    top = ranked(vectors[some], [i for i in ids if i != some])[:20]
    assert got == [i for i in top if i in published]
    assert all(item["url"].startswith(f"{backend.url}/media/") for item in response.json()["items"])
    assert (await backend.client.get(f"/api/images/{some}/similar?k=3")).json()[
        "items"
    ] == response.json()["items"][:3]
    for unpublished in (sorted(hidden)[0], sorted(rejected)[0], 999_999):
        answer = await backend.client.get(f"/api/images/{unpublished}/similar")
        assert answer.status_code == 404
        assert "published image" in answer.json()["error"]

    # text search over published images, exact top-k by the text tower
    [text_vector] = reference.embed_texts(["a bright square"])
    response = await backend.client.get("/api/search", params={"q": "  a bright   square ", "k": 5})
    assert response.status_code == 200
    assert response.json()["query"] == "a bright square"
    assert [item["image_id"] for item in response.json()["items"]] == ranked(
        unit(text_vector), sorted(published)
    )[:5]
    scores = [item["score"] for item in response.json()["items"]]
    assert scores == sorted(scores, reverse=True)

    # image search, raw body and multipart
    query_image = everything[sorted(hidden)[2]]
    [query_vector] = reference.embed_images([query_image]).vectors
    expected = ranked(unit(query_vector), sorted(published))[:4]
    raw = await backend.client.post(
        "/api/search/image?k=4", content=query_image, headers={"Content-Type": "image/jpeg"}
    )
    assert [item["image_id"] for item in raw.json()["items"]] == expected
    form = await backend.client.post(
        "/api/search/image?k=4", files={"image": ("q.jpg", query_image, "image/jpeg")}
    )
    assert [item["image_id"] for item in form.json()["items"]] == expected


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"q": ""}, "q is empty"),
        ({"q": "   "}, "q is empty"),
        ({"q": "x" * 301}, "at most 300"),
        ({"q": "coat", "k": 0}, "k"),
        ({"q": "coat", "k": 101}, "k"),
    ],
)
async def test_text_search_rejects_bad_queries(lite: Backend, params: dict, error: str) -> None:
    response = await lite.client.get("/api/search", params=params)
    assert response.status_code == 400
    assert error in response.json()["error"]


async def test_image_search_rejects_empty_and_undecodable_uploads(lite: Backend) -> None:
    empty = await lite.client.post("/api/search/image", content=b"")
    assert empty.status_code == 400
    assert "empty upload" in empty.json()["error"]
    junk = await lite.client.post("/api/search/image", content=b"not an image")
    assert junk.status_code == 422
    assert "not an image" in junk.json()["error"]
    no_field = await lite.client.post("/api/search/image", files={"other": ("a", picture(1))})
    assert no_field.status_code == 400


async def test_a_model_without_text_tower_refuses_text_search(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    vision_only = tmp_path / "vision-only"
    shutil.copytree(TINY_CLIP, vision_only)
    (vision_only / "text.onnx").unlink()
    async with embed_backend(tmp_path, plugin_manager, model=vision_only) as backend:
        response = await backend.client.get("/api/search", params={"q": "coat"})
        assert response.status_code == 422
        assert "no text tower" in response.json()["error"]
        image = await backend.client.post("/api/search/image", content=picture(3))
        assert image.status_code == 200


async def test_a_backend_without_a_model_answers_503(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    async with embed_backend(tmp_path, plugin_manager, model="") as backend:
        response = await backend.signed("GET", f"{PENDING}?kind=runway")
        assert response.status_code == 503
        assert "vision.model" in response.json()["error"]
        search = await backend.client.get("/api/search", params={"q": "coat"})
        assert search.status_code == 503
