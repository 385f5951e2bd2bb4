"""Zero-shot tags from vectors: each tag's text vector, and which tags an image vector gets.

A tag's vector is the mean of its prompts' unit text embeddings, made unit length again
(a prompt ensemble). An image's score for a tag is the cosine of the two unit vectors. A tag
applies when its score reaches its ``threshold`` and beats the best *other* tag of its
group by at least its ``margin``: a positive margin keeps only a clear winner of the group,
a negative one also lets in tags within ``-margin`` of the group's best. A tag alone in its
group needs only the threshold.
"""

from __future__ import annotations

import numpy as np
from msgspec import Struct
from numpy.typing import NDArray

from rk.core.api.embedders import Embedder
from rk.server.tags.vocabulary import Vocabulary

Matrix = NDArray[np.float32]


class TagVectors(Struct, frozen=True, kw_only=True):
    """The vocabulary's tag vectors under one model: row ``i`` is ``vocabulary.tags[i]``."""

    model: str
    vocabulary: Vocabulary
    matrix: Matrix


class Scored(Struct, frozen=True, kw_only=True):
    """One tag an image gets, with its cosine score."""

    tag: str
    score: float


def unit_rows(rows: NDArray[np.floating]) -> Matrix:
    """Each row scaled to unit length (an all-zero row stays zero)."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)


def tag_vectors(embedder: Embedder, vocabulary: Vocabulary) -> TagVectors:
    """Every tag's ensemble vector from ``embedder``'s text tower (CPU-bound: run it in a
    thread). Raises NoTextTower when the model reads no words."""
    prompts = [prompt for tag in vocabulary.tags for prompt in tag.prompts]
    embedded = unit_rows(np.asarray(embedder.embed_texts(prompts), dtype=np.float32))
    rows: list[NDArray[np.float32]] = []
    start = 0
    for tag in vocabulary.tags:
        rows.append(embedded[start : start + len(tag.prompts)].mean(axis=0))
        start += len(tag.prompts)
    return TagVectors(
        model=embedder.model_id, vocabulary=vocabulary, matrix=unit_rows(np.stack(rows))
    )


def runner_up(scores: Matrix, members: list[int]) -> Matrix:
    """For the columns ``members`` of ``scores``: each one's best score among the others
    (−inf for a group of one)."""
    block = scores[:, members]
    if len(members) == 1:
        return np.full_like(block, -np.inf)
    order = np.sort(block, axis=1)
    best, second = order[:, -1:], order[:, -2:-1]
    return np.where(block >= best, second, best)


def applied_tags(vectors: Matrix, tags: TagVectors) -> list[list[Scored]]:
    """For each unit image vector (a row), the tags it gets, best score first."""
    if len(vectors) == 0:
        return []
    scores = vectors.astype(np.float32) @ tags.matrix.T
    keep = np.zeros(scores.shape, dtype=bool)
    vocabulary = tags.vocabulary
    index = {tag.name: i for i, tag in enumerate(vocabulary.tags)}
    for members in vocabulary.groups.values():
        columns = [index[tag.name] for tag in members]
        thresholds = np.array([tag.threshold for tag in members], dtype=np.float32)
        margins = np.array([tag.margin for tag in members], dtype=np.float32)
        block = scores[:, columns]
        lead = block - runner_up(scores, columns)
        keep[:, columns] = (block >= thresholds) & (lead >= margins)
    found: list[list[Scored]] = []
    for row, kept in zip(scores, keep, strict=True):
        chosen = [
            Scored(tag=vocabulary.tags[i].name, score=float(row[i])) for i in np.flatnonzero(kept)
        ]
        found.append(sorted(chosen, key=lambda s: (-s.score, s.tag)))
    return found
