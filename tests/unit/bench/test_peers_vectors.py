"""The vector pairs' harness on a few hundred vectors: rk's exact index and faiss, rk's
pgvector and hnswlib each answer every query (issue 31). No timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.peers import vectors, vectors_gap
from tests.support.pgvector import pgvector_server

pytest.importorskip("faiss", reason="the bench extra is not installed")
pytest.importorskip("hnswlib", reason="the bench extra is not installed")
pytestmark = pytest.mark.slow


async def test_both_tables_have_every_tool_and_a_ratio(tmp_path: Path) -> None:
    with pgvector_server(tmp_path / "pg") as admin:
        exact, hnsw = await vectors.run(400, 5, 1, admin, tmp_path)
    assert "| rk exact index |" in exact
    assert "| faiss IndexFlatIP, 1 thread |" in exact
    assert "| faiss IndexFlatIP, its default " in exact
    assert exact.splitlines()[-2].startswith("ratio rk / faiss: ")
    assert exact.splitlines()[-1].startswith("rk exact index holds ")
    assert "(0.29 of it)" in exact  # 512-d: 64 + 512 + 4 + 16 bytes a row against 2,064
    assert "| rk pgvector HNSW |" in hnsw
    assert "| hnswlib |" in hnsw
    assert hnsw.splitlines()[-1].startswith("ratio rk / hnswlib: ")
    for table in (exact, hnsw):  # every tool found the exact top 20 of so few vectors
        rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
        assert all(row.split(" | ")[-2] == "1.000" for row in rows)
    assert saved_graphs(tmp_path) == ["hnswlib_clustered_400_n100_m24_efc128.bin"]


async def test_exact_only_builds_no_graph_and_the_gap_table_has_every_part(
    tmp_path: Path,
) -> None:
    with pgvector_server(tmp_path / "pg") as admin:
        [exact] = await vectors.run(300, 4, 1, admin, tmp_path, hnsw=False)
        assert saved_graphs(tmp_path) == []
        assert "| rk exact index |" in exact
        table = await vectors_gap.gap(300, 4, admin, tmp_path)
    for part in ("whole", "SELECT 1 alone", "EXPLAIN ANALYZE", "hnswlib, same m and ef"):
        assert part in table
    assert "buffer cache hit ratio" in table
    assert table.splitlines()[-1].startswith("rk ÷ hnswlib latency ")


def saved_graphs(folder: Path) -> list[str]:
    """The hnswlib graphs saved in ``folder`` for later runs."""
    return sorted(path.name for path in folder.glob("hnswlib_*.bin"))
