"""One model's view of the process's vector index, as search callers use it."""

from __future__ import annotations

from dataclasses import dataclass

from rk.core.api.vector_indexes import Floats, Scored, VectorIndex


@dataclass(frozen=True)
class ModelIndex:
    """``index`` answering for ``model``."""

    index: VectorIndex
    model: str

    async def search(self, query: Floats, k: int, kind: str | None = None) -> Scored:
        """The ``k`` published images of this model closest to a unit ``query``."""
        return await self.index.search(self.model, query, k, kind)
