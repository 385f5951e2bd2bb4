"""Retrieval quality of an embedding space on labelled queries: recall@k and MRR.

``rk eval`` embeds each labelled query with a model's own embedder and asks the same
search public requests use (``published_matches``, under ``by_vector``: the configured vector
index, published images only) for the best ``max(ks)`` images. Then, per query:

- recall@k = the expected ids found in the first k results / min(k, number expected), so
  a perfect ranking scores 1 at every k, also when a query expects fewer than k ids;
- reciprocal rank = 1 / the rank of the first expected id in the results (0 when none).

A space's figures are the means over its queries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct

from rk.core.api.errors import RkError
from rk.core.api.vector_indexes import VectorIndex
from rk.server.similarity.repository.evaluation import embedding_spaces, existing_images
from rk.server.similarity.search import published_matches
from rk.server.similarity.vectors.model_index import ModelIndex

DEFAULT_KS = (1, 5, 10)
MAX_K = 1000

Progress = Callable[[str, int, int], None]
"""Called as (model, queries done, queries in all) while a space is evaluated."""


class EvalError(RkError):
    """The labels or the spaces cannot be evaluated as asked (one line)."""


class SpaceScore(Struct, frozen=True, kw_only=True):
    """One embedding space's figures over the labelled queries."""

    model: str
    vectors: int
    queries: int
    recall: dict[str, float]
    mrr: float


def score_ranking(
    ranked: Sequence[int], expected: Sequence[int], ks: Sequence[int]
) -> tuple[list[float], float]:
    """Recall at each of ``ks`` and the reciprocal rank of one query's ranked ids."""
    wanted = set(expected)
    recalls = [len(wanted.intersection(ranked[:k])) / min(k, len(wanted)) for k in ks]
    first = next((rank for rank, got in enumerate(ranked, start=1) if got in wanted), None)
    return recalls, 0.0 if first is None else 1.0 / first


async def archive_spaces() -> dict[str, int]:
    """The models with vectors in the archive, and how many vectors each has."""
    return await embedding_spaces()


async def check_expected(expected: Sequence[int]) -> None:
    """EvalError naming the first expected ids that are no image of the archive."""
    wanted = sorted(set(expected))
    unknown = sorted(set(wanted) - await existing_images(wanted))
    if unknown:
        shown = ", ".join(str(i) for i in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise EvalError(f"expected ids that are no image of this archive: {shown}{more}")


async def evaluate_space(
    model: str,
    vectors: int,
    queries: Sequence[tuple[list[float], Sequence[int]]],
    ks: Sequence[int],
    *,
    index: VectorIndex,
    progress: Progress | None = None,
) -> SpaceScore:
    """Search ``model``'s space with each (query vector, expected ids); the mean figures."""
    searched = ModelIndex(index, model)
    depth = max(ks)
    sums = [0.0 for _ in ks]
    rr_sum = 0.0
    for done, (vector, expected) in enumerate(queries, start=1):
        matches = await published_matches(vector, depth, searched)
        ranked = [int(row["id"]) for row, _ in matches]
        recalls, rr = score_ranking(ranked, expected, ks)
        sums = [total + got for total, got in zip(sums, recalls, strict=True)]
        rr_sum += rr
        if progress is not None:
            progress(model, done, len(queries))
    count = max(len(queries), 1)
    return SpaceScore(
        model=model,
        vectors=vectors,
        queries=len(queries),
        recall={str(k): round(total / count, 4) for k, total in zip(ks, sums, strict=True)},
        mrr=round(rr_sum / count, 4),
    )
