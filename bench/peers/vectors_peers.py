"""The vector peers, built over the same vectors rk holds: faiss's flat scan, hnswlib's graph.

faiss gets the published vectors (what rk's exact index scans). hnswlib gets every vector,
as rk's pgvector table holds every image whatever its status, and is built with pgvector's
own ``m`` and ``ef_construction``; a query asks it for ``ef_search`` candidates and keeps the
first ``k`` published, which is what rk's pgvector search does in SQL. A built graph is
saved beside the pgvector server's data and reused by later runs with the same data.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.vector_data import DIM
from rk.server.similarity.vectors.pg_build import HNSW_EF_CONSTRUCTION, HNSW_M

log = logging.getLogger(__name__)


class FlatScan:
    """``faiss.IndexFlatIP`` over the published vectors: the exact top-``k`` by brute force.

    ``threads`` is faiss's OpenMP thread count, set before each search (0: its default, one
    per core). On shared cores its threads spin-wait for each other: one thread answered a
    query at 100k in 11–15 ms here where the default took 80–100 ms.
    """

    def __init__(self, shown: np.ndarray, shown_ids: np.ndarray) -> None:
        import faiss

        self.faiss = faiss
        self.default_threads = faiss.omp_get_max_threads()
        self.index = faiss.IndexFlatIP(DIM)
        self.index.add(np.ascontiguousarray(shown, dtype=np.float32))
        self.ids = shown_ids

    def searcher(self, threads: int) -> Callable[[np.ndarray, int], list[int]]:
        """A search on ``threads`` OpenMP threads (0: faiss's default)."""

        def search(query: np.ndarray, k: int) -> list[int]:
            self.faiss.omp_set_num_threads(threads or self.default_threads)
            _, rows = self.index.search(query.reshape(1, -1).astype(np.float32), k)
            return [int(self.ids[r]) for r in rows[0] if r >= 0]

        return search


class Graph:
    """An hnswlib graph (cosine) over every vector, ids 1..N as rk's image ids."""

    def __init__(self, index: Any, published: np.ndarray, ef: int) -> None:
        self.index = index
        self.published = published
        self.ef = ef

    @classmethod
    def load_or_build(
        cls, path: Path, vectors: np.ndarray, published: np.ndarray, ef: int
    ) -> Graph:
        """The graph saved at ``path``, or built now (and saved there)."""
        import hnswlib

        index = hnswlib.Index(space="cosine", dim=DIM)
        if path.exists():
            index.load_index(str(path), max_elements=len(vectors))
        else:
            started = time.perf_counter()
            index.init_index(len(vectors), M=HNSW_M, ef_construction=HNSW_EF_CONSTRUCTION)
            index.add_items(vectors, np.arange(1, len(vectors) + 1))
            log.info("hnswlib: built %d in %.0f s", len(vectors), time.perf_counter() - started)
            path.parent.mkdir(parents=True, exist_ok=True)
            index.save_index(str(path))
        index.set_ef(ef)
        return cls(index, published, ef)

    def search(self, query: np.ndarray, k: int) -> list[int]:
        """One query's top ``k`` published ids, from ``ef`` candidates (more if too few)."""
        ef = self.ef
        while True:
            labels, _ = self.index.knn_query(query.reshape(1, -1), k=ef)
            shown = [int(i) for i in labels[0] if self.published[int(i) - 1]]
            if len(shown) >= k or ef >= len(self.published):
                return shown[:k]
            ef = min(len(self.published), ef * 2)
