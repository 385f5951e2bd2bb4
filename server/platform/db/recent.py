"""Figures read from the database, kept a few seconds per process so that many open pages
re-reading them cost the database one read per key and period, not one per page."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Values by key, each read again once it is ``ttl_s`` old; ``clear`` forgets them all
    (a change this process made shows at once, one made elsewhere within ``ttl_s``)."""

    def __init__(self, ttl_s: float, max_keys: int = 1000) -> None:
        self.ttl_s = ttl_s
        self.max_keys = max_keys
        self._kept: dict[K, tuple[float, V]] = {}

    async def get(self, key: K, read: Callable[[], Awaitable[V]]) -> V:
        """The value kept for ``key`` while fresh, else what ``read()`` gives now (kept)."""
        kept = self._kept.get(key)
        if kept is not None and time.monotonic() - kept[0] < self.ttl_s:
            return kept[1]
        value = await read()
        if len(self._kept) >= self.max_keys:
            self._kept.clear()
        self._kept[key] = (time.monotonic(), value)
        return value

    def clear(self) -> None:
        """Forget every kept value: the next ``get`` of each key reads again."""
        self._kept.clear()
