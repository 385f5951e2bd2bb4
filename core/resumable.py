"""A resumable run over rows in id order, a batch at a time: each batch is fetched past
the last id of the one before, so a run started again carries on where one stopped, as
long as a handled row no longer matches the query (a palette measured, a vector tagged)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

R = TypeVar("R", bound=Mapping[str, Any])


def check_run(batch: int, limit: int, max_batch: int) -> None:
    """ValueError for a ``batch`` outside 1…``max_batch`` or a negative ``limit``."""
    if not 1 <= batch <= max_batch:
        raise ValueError(f"batch must be between 1 and {max_batch}, not {batch}")
    if limit < 0:
        raise ValueError(f"limit must be 0 (no limit) or more, not {limit}")


def planned(todo: int, limit: int) -> int:
    """How many rows a run means to handle: all ``todo``, or ``limit`` of them (0: no limit)."""
    return min(todo, limit) if limit else todo


async def batches(
    fetch: Callable[[int, int], Awaitable[list[R]]],
    key: str,
    *,
    batch: int,
    limit: int,
    handled: Callable[[], int],
) -> AsyncIterator[list[R]]:
    """The batches ``fetch(after, size)`` gives, ``after`` being the last batch's ``key``,
    until it gives none or ``handled()`` rows reach ``limit`` (0: no limit)."""
    after = 0
    while not limit or handled() < limit:
        size = batch if not limit else min(batch, limit - handled())
        rows = await fetch(after, size)
        if not rows:
            return
        after = int(rows[-1][key])
        yield rows
