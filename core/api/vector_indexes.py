"""The vector-index interface: where a model's vectors are searched and placed.

An index answers two questions over the vectors stored per (model, kind): the top-K
published images for a query vector (search by words, by a picture, "more like this"),
and the nearest stored images of new vectors (the neighbours job). ``rk.server`` ships two:
``pgvector`` (HNSW inside PostgreSQL, nothing held in the process) and ``exact`` (an
in-process matrix, the SQLite default). The database row in ``image_embeddings`` stays
the source of truth; an index is derived from it and ``reindex`` rebuilds it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from rk.core.config import VectorSettings

Floats = npt.NDArray[np.float32]
Ids = npt.NDArray[np.int64]
Scored = list[tuple[int, float]]
"""``(image id, cosine)`` pairs, best first."""
Heartbeat = Callable[[], Awaitable[None]]
Progress = Callable[[int, int], None]
"""Called with (rows done, rows in all) while an index is rebuilt."""


@dataclass(frozen=True)
class Placed:
    """Where new vectors landed: each new image's top-K, and the existing images whose
    lists they may enter (``reverse[owner]`` = new images with their scores)."""

    lists: dict[int, Scored]
    reverse: dict[int, Scored] = field(default_factory=dict)


@dataclass(frozen=True)
class Scope:
    """A filter applied inside a search: only rows of images of these ``articles`` (sorted,
    unique ids) count, so a search within a scope returns ``k`` whenever ``k`` exist in it.

    ``name`` says which scope it is (``season``, ``designer``, ``street``) for logs.
    """

    articles: Ids
    name: str = ""


@runtime_checkable
class VectorIndex(Protocol):
    """Top-K over published vectors and placement of new ones, for the tables' database.

    Vectors are L2-normalised float32; scores are cosine similarities; ties go to the
    lower image id. An instance belongs to one process and is built from ``settings``.
    """

    name: ClassVar[str]
    schemes: ClassVar[tuple[str, ...]]

    def __init__(self, settings: VectorSettings) -> None: ...

    async def open(self) -> str | None:
        """Get ready to serve the bound database (once per process, at startup); None when
        it can, else one line saying why not and what to install."""
        ...

    async def search(
        self,
        model: str,
        query: Floats,
        k: int,
        kind: str | None = None,
        within: Scope | None = None,
    ) -> Scored:
        """The ``k`` published images closest to ``query`` among ``model``'s vectors (of
        images of ``within``'s articles only, when given: ``min(k, |scope|)`` of them).

        ``within`` came after the first release: an index whose ``search`` does not take it
        still serves, scoped searches over-fetching from it (``ModelIndex``).
        """
        ...

    async def place(
        self,
        model: str,
        kind: str,
        ids: Ids,
        vectors: Floats,
        k: int,
        heartbeat: Heartbeat | None = None,
    ) -> Placed:
        """The top-``k`` stored images of ``kind`` (any status, itself excluded) of each new
        vector, and the reverse candidates; ``heartbeat`` is awaited between long steps."""
        ...

    async def reindex(self, model: str | None = None, progress: Progress | None = None) -> int:
        """Rebuild the index from ``image_embeddings`` (one model, or all); rows indexed."""
        ...

    def nbytes(self) -> int:
        """Bytes of vectors this process holds (0 when the database holds them)."""
        ...

    async def close(self) -> None:
        """Release what the index holds."""
        ...
