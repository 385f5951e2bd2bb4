"""rk.server.similarity: CLIP vectors and what they answer: the embedding
backfill, vector indexes, stored neighbours, and search by words or by photo.
"""

from __future__ import annotations
