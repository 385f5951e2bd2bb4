"""Requests that share round trips: each waits on its own future, one task answers them in batches.

Whoever asks while a batch is being answered joins the next one, so a burst costs a round
trip per batch, not one per request. The group-committed SQLite writes, the signed
enqueues, the job queue's completions and the replay record all wait this way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic, TypeVar

R = TypeVar("R")
A = TypeVar("A")

Waiting = tuple[R, asyncio.Future[A]]
"""A request and the future its answer goes to."""


class Batches(Generic[R, A]):
    """Requests waiting to be answered together by ``answer``, at most ``most`` at a time.

    ``answer`` resolves each future of its batch (skipping those already cancelled) and
    raises nothing it can answer with; ``gate`` (a lock, say) is held while a batch is taken
    and answered, so requests that arrive while it is waited for join that batch.
    """

    def __init__(
        self,
        answer: Callable[[list[Waiting[R, A]]], Awaitable[None]],
        *,
        name: str,
        most: int | None = None,
        gate: AbstractAsyncContextManager[Any] | None = None,
    ) -> None:
        self._answer = answer
        self.name = name
        self.most = most
        self._gate = gate or contextlib.nullcontext()
        self.waiting: list[Waiting[R, A]] = []
        self._task: asyncio.Task[None] | None = None

    async def ask(self, request: R) -> A:
        """The answer to ``request``, once the batch it joins is answered."""
        done: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        self.waiting.append((request, done))
        if self._task is None:
            self._task = asyncio.create_task(self._drain(), name=self.name)
        return await done

    async def _drain(self) -> None:
        """Answer batch after batch until nobody waits; cancelled, cancel whoever still waits."""
        try:
            while self.waiting:
                async with self._gate:
                    batch = self.waiting[: self.most]
                    del self.waiting[: self.most]
                    await self._answer(batch)
        except asyncio.CancelledError:
            for _, done in self.waiting:
                done.cancel()
            self.waiting.clear()
            raise
        finally:
            self._task = None

    async def settled(self) -> None:
        """Wait until every request asked so far is answered."""
        if self._task is not None:
            await asyncio.wait([self._task])
