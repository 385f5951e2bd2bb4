"""The exact index's codes on both engines: with the sign-bit prescan cut far below the
rows held, answers are still the brute-force top-k with exact scores and ties by image id."""

from __future__ import annotations

import numpy as np
import pytest

from rk.core.api.plugins import RkPluginManager
from rk.server.similarity import vector_codes
from tests.integration.embeddings import seed
from tests.integration.vectors.conftest import Setup
from tests.integration.vectors.helpers import MODEL, brute, clustered, save, show
from tests.integration.vectors.test_contract import assert_exact

pytestmark = pytest.mark.parametrize(
    "index_dsn", ["exact-sqlite", "exact-postgresql"], indirect=True
)


@pytest.fixture
def exact(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> Setup:
    """Only the exact index, its prescan passing on 150 rows of the hundreds held (at this
    test's 32 dimensions, 32 sign bits: recall at 512 is ``test_vector_codes``'s)."""
    assert setup.name == "exact"
    monkeypatch.setattr(vector_codes, "PRESCAN", 150)
    return setup


async def test_answers_and_scores_are_exact_past_the_prescan(
    exact: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(11)
    for n in range(8):
        await show(plugin_manager, rng, f"pub-{n}", 40)
    await show(plugin_manager, rng, "hidden", 40, status="pending")
    for query in clustered(rng, 6):
        for k in (1, 10):
            await assert_exact(exact, query, k)


async def test_equal_vectors_come_back_by_image_id(
    exact: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(12)
    for n in range(4):
        await show(plugin_manager, rng, f"pub-{n}", 50)
    article = await seed.article("twins")
    twins = await seed.images(article, 30)
    [twin] = clustered(rng, 1)
    await save(plugin_manager, twins[::-1], np.repeat(twin[None, :], 30, axis=0))
    got = await exact.index.search(MODEL, twin, 12)
    assert [i for i, _ in got] == sorted(twins)[:12]
    assert len({s for _, s in got}) == 1  # one score for equal vectors
    [(_, want)] = await brute(twin, 1)
    assert got[0][1] == pytest.approx(want, abs=1e-6)


async def test_a_replaced_vector_is_ranked_by_its_new_value(
    exact: Setup, plugin_manager: RkPluginManager
) -> None:
    rng = np.random.default_rng(13)
    _, images = await show(plugin_manager, rng, "pub", 200)
    [query] = clustered(rng, 1)
    await assert_exact(exact, query, 10)
    await save(plugin_manager, images[:5], np.repeat(query[None, :], 5, axis=0))
    got = await exact.index.search(MODEL, query, 10)
    assert [i for i, _ in got][:5] == images[:5]
    assert [s for _, s in got][:5] == pytest.approx([1.0] * 5, abs=1e-5)
    await assert_exact(exact, query, 10)
