"""Trend slots bound concurrent trend computations (issue 30): ``SLOTS`` run, a bounded queue
waits, and the next request is refused at once with 503 and ``Retry-After``."""

from __future__ import annotations

import asyncio

import pytest

from rk.server.trends.slots import TrendsBusy, TrendSlots


async def test_slots_run_a_bounded_queue_waits_and_the_rest_is_refused() -> None:
    slots = TrendSlots(slots=2, max_waiting=1)
    release = asyncio.Event()
    entered: list[int] = []

    async def compute(n: int) -> None:
        """Hold a slot until the test lets go."""
        async with slots.hold():
            entered.append(n)
            await release.wait()

    running = [asyncio.create_task(compute(n)) for n in (1, 2, 3)]
    for _ in range(5):  # let each task run up to where it waits
        await asyncio.sleep(0)
    assert slots.waiting == 1
    assert entered == [1, 2], "two run, the third waits"
    with pytest.raises(TrendsBusy) as refused:
        async with slots.hold():
            pass
    assert refused.value.status_code == 503
    assert refused.value.headers == {"Retry-After": "2"}
    release.set()
    await asyncio.gather(*running)
    assert entered == [1, 2, 3]
    assert slots.waiting == 0
    async with slots.hold():
        assert not slots._free.locked(), "a slot was free again"
