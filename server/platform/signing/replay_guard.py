"""Accept each signed request once: the first to record its signature wins, in the database.

Every backend process shares ``signed_requests`` (migration 0010), so a replay sent to
another process is caught too. Concurrent requests are recorded in batches: whoever
arrives while a write is in flight joins the next ``INSERT … ON CONFLICT DO NOTHING
RETURNING``, so a burst costs one statement, not one per request. Rows expire with the
signature's timestamp window and are swept now and then. Signed ingests record their
signature in the same write as their job instead (``JobQueue.enqueue_signed``); the
guard still sweeps for them.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from rk.server.platform.signing.repository import (
    delete_signatures_expired_before,
    record_new_signatures,
)

SWEEP_EVERY_S = 60.0
"""How often (at most) one process deletes expired signatures."""
MAX_BATCH = 500


@dataclass
class _Pending:
    signature: str
    expires_at: int
    first: asyncio.Future[bool] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


def _answer(pending: _Pending, first: bool) -> None:
    """Resolve the waiting request (unless it was cancelled meanwhile)."""
    if not pending.first.done():
        pending.first.set_result(first)


class ReplayGuard:
    """Records signatures; ``first_use`` says whether this is the signature's first request."""

    def __init__(self) -> None:
        self._queue: list[_Pending] = []
        self._writer: asyncio.Task[None] | None = None
        self._swept_at = 0.0

    async def first_use(self, signature: str, expires_at: int) -> bool:
        """True the first time ``signature`` is seen (across processes) before it expires."""
        pending = _Pending(signature, expires_at)
        self._queue.append(pending)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        return await pending.first

    async def _write(self) -> None:
        while self._queue:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            try:
                await self._record(batch)
            except Exception as exc:  # the requests fail with the error; the writer goes on
                for pending in batch:
                    if not pending.first.done():
                        pending.first.set_exception(exc)

    async def _record(self, batch: list[_Pending]) -> None:
        unique: dict[str, _Pending] = {}
        for pending in batch:
            if pending.signature in unique:
                _answer(pending, False)
            else:
                unique[pending.signature] = pending
        inserted = await record_new_signatures(
            [(pending.signature, pending.expires_at) for pending in unique.values()]
        )
        for signature, pending in unique.items():
            _answer(pending, signature in inserted)
        await self.sweep()

    async def sweep(self) -> None:
        """Delete expired signatures, at most once per ``SWEEP_EVERY_S`` in this process."""
        if time.monotonic() - self._swept_at < SWEEP_EVERY_S:
            return
        self._swept_at = time.monotonic()
        await delete_signatures_expired_before(int(time.time()))
