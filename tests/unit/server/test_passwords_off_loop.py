"""scrypt runs in a worker thread: the event loop keeps running while a hash is made or checked."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from rk.server.console.accounts.passwords import matches, new_hash

T = TypeVar("T")


async def loop_turns_during(work: Awaitable[T]) -> tuple[T, int]:
    """``work``'s result, and how many times another task ran while it was awaited."""
    turns = 0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal turns
        while not done.is_set():
            await asyncio.sleep(0)
            turns += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = turns
    result = await work
    during = turns - before
    done.set()
    await task
    return result, during


async def test_hashing_leaves_the_loop_free() -> None:
    stored, turns = await loop_turns_during(new_hash("correct horse battery"))
    assert stored.startswith("scrypt$")
    assert turns > 0


async def test_checking_leaves_the_loop_free() -> None:
    stored = await new_hash("correct horse battery")
    right, turns_right = await loop_turns_during(matches("correct horse battery", stored))
    wrong, turns_wrong = await loop_turns_during(matches("wrong horse battery", stored))
    assert right
    assert not wrong
    assert turns_right > 0
    assert turns_wrong > 0
