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

from rk.server.platform.db.batches import Batches, Waiting
from rk.server.platform.signing.repository import (
    delete_signatures_expired_before,
    record_new_signatures,
)

SWEEP_EVERY_S = 60.0
"""How often (at most) one process deletes expired signatures."""
MAX_BATCH = 500


Use = tuple[str, int]
"""A signature and when it expires (unix seconds)."""
Pending = Waiting[Use, bool]
"""A use waiting to learn whether it is the signature's first."""


def _answer(waiting: asyncio.Future[bool], first: bool) -> None:
    """Resolve the waiting request (unless it was cancelled meanwhile)."""
    if not waiting.done():
        waiting.set_result(first)


class ReplayGuard:
    """Records signatures; ``first_use`` says whether this is the signature's first request."""

    def __init__(self) -> None:
        self._uses: Batches[Use, bool] = Batches(
            self._write, name="rk-replay-record", most=MAX_BATCH
        )
        self._swept_at = 0.0

    async def first_use(self, signature: str, expires_at: int) -> bool:
        """True the first time ``signature`` is seen (across processes) before it expires."""
        return await self._uses.ask((signature, expires_at))

    async def _write(self, batch: list[Pending]) -> None:
        try:
            await self._record(batch)
        except Exception as exc:  # the requests fail with the error; the writer goes on
            for _, first in batch:
                if not first.done():
                    first.set_exception(exc)

    async def _record(self, batch: list[Pending]) -> None:
        unique: dict[str, Pending] = {}
        for pending in batch:
            (signature, _), waiting = pending
            if signature in unique:
                _answer(waiting, False)
            else:
                unique[signature] = pending
        inserted = await record_new_signatures([use for use, _ in unique.values()])
        for signature, (_, waiting) in unique.items():
            _answer(waiting, signature in inserted)
        await self.sweep()

    async def sweep(self) -> None:
        """Delete expired signatures, at most once per ``SWEEP_EVERY_S`` in this process."""
        if time.monotonic() - self._swept_at < SWEEP_EVERY_S:
            return
        self._swept_at = time.monotonic()
        await delete_signatures_expired_before(int(time.time()))
