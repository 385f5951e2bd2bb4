"""The tagging job: every backend process runs this loop; the ``tags`` lease lets one work.

A pass tags every image whose tags are out of date (``tagging.tag_pending``): vectors newly
saved, and everything after the vocabulary or the model changed. Vectors saved in this
process wake it at once (the ``rk_embeddings_saved`` event); others are found by polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from rk.core import hookimpl
from rk.server.platform.jobs.background import stop_task
from rk.server.platform.jobs.job_lock import JobLease, new_holder
from rk.server.tags.scoring import TagVectors
from rk.server.tags.tagging import BATCH, TagProgress, tag_pending

log = logging.getLogger(__name__)

LOCK_NAME = "tags"


class TagsWorker:
    """Tags out-of-date images with ``tags``, in one backend process at a time."""

    def __init__(
        self,
        tags: TagVectors,
        *,
        poll_interval_s: float,
        batch: int = BATCH,
        lease_ttl_s: int = 60,
    ) -> None:
        self.tags = tags
        self.batch = batch
        self.poll_interval_s = poll_interval_s
        self.lease = JobLease(LOCK_NAME, new_holder("tags"), lease_ttl_s)
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @hookimpl
    def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
        """Vectors were saved in this process: tag them now instead of at the next poll."""
        if model == self.tags.model:
            self._wake.set()

    def start(self) -> None:
        """Start the loop in the running event loop."""
        self._task = asyncio.create_task(self._loop(), name="rk-tags")

    async def stop(self) -> None:
        """Stop the loop (a batch in flight is rolled back whole) and give up the lease."""
        self._stopping.set()
        self._wake.set()
        await stop_task(self._task)
        with contextlib.suppress(Exception):
            await self.lease.release()

    async def run(self) -> TagProgress | None:
        """One pass under the lease; None when another process holds it."""
        if not await self.lease.acquire():
            return None
        try:
            done = await tag_pending(self.tags, batch=self.batch, heartbeat=self.lease.renew_if_due)
        finally:
            await self.lease.release()
        if done.images:
            log.info("%s", done.line())
        return done

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                await self.run()
            except Exception:
                log.exception("tags: pass failed; retrying after %g s", self.poll_interval_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.poll_interval_s)
