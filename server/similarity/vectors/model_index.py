"""One model's view of the process's vector index, as search callers use it.

A scoped search goes to the index's own ``search(…, within=…)``. An index from a plugin
written before scopes existed takes no ``within``: its unscoped answers are over-fetched
(four times more each round, at most ``COMPAT_MAX`` candidates) and filtered here, which
may return fewer than ``k`` for a very small scope; the built-in indexes never do.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from rk.core.api.vector_indexes import Floats, Scope, Scored, VectorIndex
from rk.server.similarity.repository.scopes import articles_of_images

COMPAT_MAX = 4096
"""Most candidates asked of an index without ``within`` for one scoped search."""


def takes_scope(index: VectorIndex) -> bool:
    """Whether ``index.search`` accepts ``within`` (or any keyword argument)."""
    params = inspect.signature(index.search).parameters.values()
    return any(p.name == "within" or p.kind is p.VAR_KEYWORD for p in params)


@dataclass(frozen=True)
class ModelIndex:
    """``index`` answering for ``model``."""

    index: VectorIndex
    model: str

    async def search(
        self, query: Floats, k: int, kind: str | None = None, within: Scope | None = None
    ) -> Scored:
        """The ``k`` published images of this model closest to a unit ``query`` (of
        ``within``'s articles only, when given)."""
        if within is None:
            return await self.index.search(self.model, query, k, kind)
        if takes_scope(self.index):
            return await self.index.search(self.model, query, k, kind, within=within)
        return await self._filtered(query, k, kind, within)

    async def _filtered(self, query: Floats, k: int, kind: str | None, within: Scope) -> Scored:
        """Over-fetch from an index without scopes and keep the rows of the scope."""
        want = min(COMPAT_MAX, 4 * k)
        while True:
            scored = await self.index.search(self.model, query, want, kind)
            article_of = await articles_of_images([image for image, _ in scored])
            allowed = set(np.asarray(within.articles).tolist())
            kept = [(i, s) for i, s in scored if article_of.get(i) in allowed]
            if len(kept) >= k or len(scored) < want or want >= COMPAT_MAX:
                return kept[:k]
            want = min(COMPAT_MAX, want * 4)
