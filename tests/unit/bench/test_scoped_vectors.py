"""The scoped-search benchmark's harness on a few thousand vectors: every row is measured,
the scope holds the share asked for, and the exact paths find numpy's answer. No timing is
asserted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench import scoped_vectors
from bench.vector_data import PER_ARTICLE, published_mask
from tests.support.pgvector import pgvector_server

pytestmark = pytest.mark.slow


def test_the_scope_holds_the_share_asked_for_and_no_pending_image() -> None:
    scope, members = scoped_vectors.choose_scope(40_000, 0.01)
    shown = np.flatnonzero(published_mask(40_000)) + 1
    assert len(members) == pytest.approx(0.01 * len(shown), abs=PER_ARTICLE)
    assert set(members.tolist()) <= set(shown.tolist())
    assert np.any(scope.articles % 10 == 0), "a pending article is in the scope"
    assert list(scope.articles) == sorted(set(scope.articles.tolist()))


async def test_every_row_is_measured_and_the_exact_paths_find_the_truth(tmp_path: Path) -> None:
    with pgvector_server(tmp_path / "pg") as admin:
        out = await scoped_vectors.run(4000, 4, 0.1, admin)
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == 6
    recall = {row.split(" | ")[0][2:]: float(row.split(" | ")[3]) for row in rows}
    assert recall["numpy over the scope's vectors in memory (floor)"] == 1.0
    assert recall["exact index, scoped (masked in the scan)"] == 1.0
    assert recall["exact index, unscoped (baseline scan)"] == 1.0
    default = next(name for name in recall if name.startswith("pgvector, default plan"))
    assert "(exact 5)" in default
    assert recall[default] == 1.0
    short = {row.split(" | ")[0][2:]: int(row.split(" | ")[4].rstrip(" |")) for row in rows}
    assert all(n == 0 for name, n in short.items() if "trap" not in name)
