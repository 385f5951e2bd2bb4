"""Pending leases, submit validation and failure counting, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from rk.core import hookimpl
from rk.core.api.plugins import RkPluginManager
from rk.core.api.storage import Storage
from rk.core.api.wire import EmbeddingFailure, EmbeddingSubmit, EmbeddingVector
from rk.server.platform.db.tables import Image, ImageEmbedding, ImageEmbeddingFailure
from rk.server.similarity.embeddings import (
    ModelInfo,
    capped_failures,
    lease_pending,
    submit,
)
from tests.integration.embeddings import seed
from tests.integration.embeddings.conftest import BACKEND

MODEL = ModelInfo(model_id="tiny", dim=4)
CAP = 3


async def pending(storage: Storage, limit: int = 100, kind: str = "runway", lease_s: int = 60):
    return await lease_pending(
        kind, limit, MODEL.model_id, storage, failure_cap=CAP, lease_s=lease_s, url_ttl_s=600
    )


def vec(image_id: int, values: list[float], kind: str = "runway") -> EmbeddingVector:
    return EmbeddingVector(kind=kind, image_id=image_id, vector=values)


async def test_pending_lists_images_without_vectors_with_thumbnail_urls(
    db: str, storage: Storage
) -> None:
    live = await seed.article("show-a")
    plain = await seed.image(live, 1)
    thumbed = await seed.image(live, 2, thumb=True)
    await seed.image(await seed.article("gone", deleted=True), 1)
    await seed.image(await seed.article("street-1", kind="street"), 1, kind="street")
    answer = await pending(storage)
    assert [item.image_id for item in answer.items] == [plain, thumbed]
    rows = {r["id"]: r for r in await Image.select().where(Image.id.is_in([plain, thumbed]))}
    assert answer.items[0].url.startswith(f"{BACKEND}/media/{rows[plain]['key']}?expires=")
    assert answer.items[1].url.startswith(f"{BACKEND}/media/{rows[thumbed]['thumb_key']}?")
    assert answer.remaining == 0


async def test_lease_hands_out_disjoint_sets_and_counts_the_rest(db: str, storage: Storage) -> None:
    ids = await seed.images(await seed.article("show-a"), 30)
    first, second = await asyncio.gather(pending(storage, 12), pending(storage, 12))
    got_first = {item.image_id for item in first.items}
    got_second = {item.image_id for item in second.items}
    assert len(got_first) == len(got_second) == 12
    assert not got_first & got_second
    third = await pending(storage, 100)
    assert {item.image_id for item in third.items} == set(ids) - got_first - got_second
    assert third.remaining == 0
    assert (await pending(storage, 100)).items == []


async def test_an_expired_lease_is_handed_out_again(db: str, storage: Storage) -> None:
    ids = await seed.images(await seed.article("show-a"), 3)
    assert len((await pending(storage)).items) == 3
    await Image.update({Image.embed_leased_until: 1}).where(Image.id == ids[1])
    assert [item.image_id for item in (await pending(storage)).items] == [ids[1]]


async def test_limit_zero_only_counts(db: str, storage: Storage) -> None:
    await seed.images(await seed.article("show-a"), 5)
    answer = await pending(storage, 0)
    assert answer.items == []
    assert answer.remaining == 5


async def test_submit_saves_good_vectors_and_lists_each_bad_one(
    db: str, plugin_manager: RkPluginManager, register_plugin: Callable[[Any, str], Any]
) -> None:
    ids = await seed.images(await seed.article("show-a"), 9)
    street = await seed.image(await seed.article("street-1", kind="street"), 1, kind="street")
    events: list[tuple[str, list[int], str]] = []

    class Listener:
        @hookimpl
        def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
            events.append((kind, image_ids, model))

    register_plugin(Listener(), "listener")
    body = EmbeddingSubmit(
        items=[
            vec(ids[0], [3.0, 4.0, 0.0, 0.0]),
            vec(ids[1], [1.0, 0.0, 0.0]),  # wrong dim
            vec(ids[2], [math.nan, 0.0, 0.0, 1.0]),
            vec(ids[3], [math.inf, 0.0, 0.0, 1.0]),
            vec(ids[4], [0.0, 0.0, 0.0, 0.0]),
            vec(999_999, [1.0, 0.0, 0.0, 0.0]),  # unknown image
            vec(street, [1.0, 0.0, 0.0, 0.0]),  # wrong kind
            vec(ids[5], [0.0, 1.0, 0.0, 0.0]),
            vec(ids[5], [0.0, 0.0, 1.0, 0.0]),  # twice
            vec(street, [0.0, 0.0, 0.0, 2.0], kind="street"),
        ],
        failures=[
            EmbeddingFailure(kind="runway", image_id=ids[6], error="HTTP 404"),
            EmbeddingFailure(kind="runway", image_id=888_888, error="HTTP 404"),
        ],
    )
    answer = await submit(body, MODEL, plugin_manager, failure_cap=CAP)
    assert (answer.saved, answer.failed) == (3, 9)
    assert [(e.image_id, e.error) for e in answer.errors] == [
        (ids[1], "vector has 3 numbers; model tiny has dim 4"),
        (ids[2], "vector has NaN or infinite values"),
        (ids[3], "vector has NaN or infinite values"),
        (ids[4], "vector is all zeros"),
        (999_999, "unknown image 999999"),
        (street, f"image {street} is street, not runway"),
        (ids[5], f"image {ids[5]} has two vectors in this submit"),
        (888_888, "unknown image 888888"),
    ]
    stored = {
        row["image_id"]: row
        for row in await ImageEmbedding.select().where(ImageEmbedding.model == "tiny")
    }
    assert set(stored) == {ids[0], ids[5], street}
    first = np.frombuffer(stored[ids[0]]["vector"], dtype="<f4")
    assert first.tolist() == pytest.approx([0.6, 0.8, 0.0, 0.0])
    assert stored[street]["kind"] == "street"
    assert stored[ids[0]]["neighbours_at"] == 0
    failures = {
        row["image_id"]: row
        for row in await ImageEmbeddingFailure.select().where(ImageEmbeddingFailure.model == "tiny")
    }
    assert set(failures) == {ids[1], ids[2], ids[3], ids[4], ids[6]}
    assert failures[ids[6]]["last_error"] == "HTTP 404"
    assert failures[ids[1]]["last_error"].startswith("rejected vector: vector has 3 numbers")
    assert sorted(events) == [
        ("runway", sorted([ids[0], ids[5]]), "tiny"),
        ("street", [street], "tiny"),
    ]


async def test_failure_cap_takes_an_image_out_of_the_queue(
    db: str, storage: Storage, plugin_manager: RkPluginManager
) -> None:
    ids = await seed.images(await seed.article("show-a"), 2)
    for round_ in range(1, CAP + 1):
        body = EmbeddingSubmit(
            failures=[EmbeddingFailure(kind="runway", image_id=ids[0], error=f"timeout {round_}")]
        )
        answer = await submit(body, MODEL, plugin_manager, failure_cap=CAP)
        assert (answer.saved, answer.failed, answer.errors) == (0, 1, [])
        await Image.update({Image.embed_leased_until: 0}).where(Image.id.is_in(ids))
        handed = [item.image_id for item in (await pending(storage)).items]
        assert handed == (ids if round_ < CAP else [ids[1]])
    [capped] = await capped_failures("tiny", CAP)
    assert (capped.image_id, capped.failures, capped.last_error) == (ids[0], 3, "timeout 3")
    # failures count per model: another model starts from zero
    await Image.update({Image.embed_leased_until: 0}).where(Image.id.is_in(ids))
    other = await lease_pending(
        "runway", 10, "other-model", storage, failure_cap=CAP, lease_s=60, url_ttl_s=600
    )
    assert [item.image_id for item in other.items] == ids


async def test_a_saved_vector_clears_failures_and_leaves_the_queue(
    db: str, storage: Storage, plugin_manager: RkPluginManager
) -> None:
    [image_id] = await seed.images(await seed.article("show-a"), 1)
    failed = EmbeddingSubmit(
        failures=[EmbeddingFailure(kind="runway", image_id=image_id, error="x")]
    )
    await submit(failed, MODEL, plugin_manager, failure_cap=CAP)
    ok = EmbeddingSubmit(items=[vec(image_id, [1.0, 1.0, 1.0, 1.0])])
    assert (await submit(ok, MODEL, plugin_manager, failure_cap=CAP)).saved == 1
    assert await ImageEmbeddingFailure.count() == 0
    await Image.update({Image.embed_leased_until: 0}).where(Image.id == image_id)
    answer = await pending(storage)
    assert (answer.items, answer.remaining) == ([], 0)
    # a re-submitted vector replaces the old one and is placed again
    await ImageEmbedding.update({ImageEmbedding.neighbours_at: 5}).where(
        ImageEmbedding.image_id == image_id
    )
    again = EmbeddingSubmit(items=[vec(image_id, [0.0, 0.0, 0.0, 3.0])])
    assert (await submit(again, MODEL, plugin_manager, failure_cap=CAP)).saved == 1
    [row] = await ImageEmbedding.select().where(ImageEmbedding.image_id == image_id)
    assert np.frombuffer(row["vector"], dtype="<f4").tolist() == [0.0, 0.0, 0.0, 1.0]
    assert row["neighbours_at"] == 0
