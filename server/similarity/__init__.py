"""rk.server.similarity: CLIP vectors and what they answer: the embedding
backfill, vector indexes, stored neighbours, and search by words or by photo.
"""

from __future__ import annotations

from rk.server.similarity.embedding_lifespan import embedding_lifespan, running
from rk.server.similarity.embedding_routes import EmbeddingsController, runtime_of
from rk.server.similarity.neighbours_job import VectorsWorker
from rk.server.similarity.photo_gate import PhotoGate, Refused
from rk.server.similarity.photo_reduce import BadPicture, PictureTooLarge, check_photo, reduce_photo
from rk.server.similarity.repository.vector_copies import PUBLISHED
from rk.server.similarity.scoped import (
    SCOPES,
    EmptyScope,
    available_scopes,
    check_scope,
    similar_within,
)
from rk.server.similarity.search import ImageHit, by_vector, hit_url, similar
from rk.server.similarity.vectors.model_index import ModelIndex
from rk.server.similarity.vectors.pg_clock import hold_vector_clock

__all__ = [
    "PUBLISHED",
    "SCOPES",
    "BadPicture",
    "EmbeddingsController",
    "EmptyScope",
    "ImageHit",
    "ModelIndex",
    "PhotoGate",
    "PictureTooLarge",
    "Refused",
    "VectorsWorker",
    "available_scopes",
    "by_vector",
    "check_photo",
    "check_scope",
    "embedding_lifespan",
    "hit_url",
    "hold_vector_clock",
    "reduce_photo",
    "running",
    "runtime_of",
    "similar",
    "similar_within",
]
