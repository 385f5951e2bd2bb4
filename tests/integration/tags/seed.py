"""Images with known concepts for the tag tests, embedded as an embed worker would embed them.

Each picture (``tests.support.concept_clip.concept_picture``) shows a colour and a pattern;
``EXPECTED`` is what the concept-aware model's towers agree it shows, in the shipped
vocabulary's names. Vectors are computed by the ``clip`` embedder from the stored bytes and
sent to the backend's signed embedding API, where embed workers send theirs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import msgspec

from rk.core.api.wire import EmbeddingSubmit, EmbeddingVector
from rk.plugins.clip_embed.embedder import ClipEmbedder
from rk.server.platform.db.tables import ImageTag, ImageTagRun
from tests.integration.embeddings.backend import add_article, add_image
from tests.integration.server.helpers import Backend
from tests.support.concept_clip import concept_picture

EMBEDDINGS = "/admin/internal/embeddings"
EXPECTED = {
    ("red", "plain"): {"dress", "plain"},
    ("blue", "plain"): {"coat", "plain"},
    ("red", "stripe"): {"dress", "stripe"},
    ("blue", "plaid"): {"coat", "plaid"},
    ("grey", "plain"): {"plain"},
}


def reference(model: Path) -> ClipEmbedder:
    """The ``clip`` embedder on the concept model, as an embed worker would load it."""
    return ClipEmbedder({"model": str(model), "batch": 8, "concurrency": 1})


async def seed_show(backend: Backend, key: str, status: str) -> dict[int, set[str]]:
    """An article of one look per concept picture; ``{image_id: expected tags}``."""
    article = await add_article(key, status)
    found: dict[int, set[str]] = {}
    for position, ((colour, pattern), tags) in enumerate(EXPECTED.items(), start=1):
        image_id = await add_image(backend, article, position, concept_picture(colour, pattern))
        found[image_id] = tags
    return found


async def embed(backend: Backend, embedder: ClipEmbedder, image_ids: list[int]) -> None:
    """Embed the stored pictures of ``image_ids`` and submit the vectors, signed."""
    from rk.server.platform.db.tables import Image

    rows = await Image.select(Image.id, Image.key).where(Image.id.is_in(image_ids))
    data = [await backend.storage.get(str(row["key"])) for row in rows]
    result = embedder.embed_images(data)
    items = [
        EmbeddingVector(kind="runway", image_id=int(rows[i]["id"]), vector=vector)
        for i, vector in zip(result.indexes, result.vectors, strict=True)
    ]
    body = msgspec.json.encode(EmbeddingSubmit(items=items))
    answer = await backend.signed("POST", EMBEDDINGS, body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["saved"] == len(image_ids)


async def eventually(
    check: Callable[[], Coroutine[Any, Any, bool]], what: str, timeout_s: float = 30
) -> None:
    """Poll ``check`` until it holds (a deadline, never a fixed sleep)."""
    deadline = time.monotonic() + timeout_s
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout_s} s")
        await asyncio.sleep(0.05)


async def tagged(count: int) -> bool:
    """True once ``count`` images have a tag run."""
    return bool(await ImageTagRun.count() >= count)


async def tags_by_image(states: tuple[str, ...] = ("auto", "confirmed")) -> dict[int, set[str]]:
    """Every image's tags in ``states``."""
    found: dict[int, set[str]] = {}
    for row in await ImageTag.select(ImageTag.image_id, ImageTag.tag).where(
        ImageTag.state.is_in(list(states))
    ):
        found.setdefault(int(row["image_id"]), set()).add(str(row["tag"]))
    return found


async def seed_vectors(embedder: ClipEmbedder, key: str) -> dict[int, set[str]]:
    """A published article of one look per concept picture, with its vector stored as the
    embedding API stores one (no storage, no backend); ``{image_id: expected tags}``."""
    from rk.server.platform.db.tables import ImageEmbedding
    from rk.server.similarity.embeddings import vector_bytes
    from tests.integration.embeddings.seed import article, image

    article_id = await article(key)
    pictures = [concept_picture(colour, pattern) for colour, pattern in EXPECTED]
    result = embedder.embed_images(pictures)
    found: dict[int, set[str]] = {}
    for position, (vector, tags) in enumerate(
        zip(result.vectors, EXPECTED.values(), strict=True), start=1
    ):
        image_id = await image(article_id, position)
        await ImageEmbedding(
            image_id=image_id,
            model=embedder.model_id,
            kind="runway",
            dim=embedder.dim,
            vector=vector_bytes(vector),
        ).save()
        found[image_id] = tags
    return found
