"""The tagging job: every backend process runs this loop; the ``tags`` lease lets one work.

A pass tags every image whose tags are out of date (``tagging.tag_pending``): vectors newly
saved, and everything after the vocabulary or the model changed. Vectors saved in this
process wake it at once (the ``rk_embeddings_saved`` event); others are found by polling.
"""

from __future__ import annotations

import logging

from rk.server.platform.jobs.job_lock import JobLease, new_holder
from rk.server.similarity import VectorsWorker
from rk.server.tags.scoring import TagVectors
from rk.server.tags.tagging import BATCH, TagProgress, tag_pending

log = logging.getLogger(__name__)

LOCK_NAME = "tags"


class TagsWorker(VectorsWorker):
    """Tags out-of-date images with ``tags``, in one backend process at a time."""

    def __init__(
        self,
        tags: TagVectors,
        *,
        poll_interval_s: float,
        batch: int = BATCH,
        lease_ttl_s: int = 60,
    ) -> None:
        lease = JobLease(LOCK_NAME, new_holder("tags"), lease_ttl_s)
        super().__init__("tags", tags.model, lease, poll_interval_s, log)
        self.tags = tags
        self.batch = batch

    async def run_pass(self) -> TagProgress | None:
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
