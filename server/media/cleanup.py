"""Media cleanup jobs (kind ``media_cleanup``): delete a deleted article's objects.

An object (image or thumbnail) is deleted only when no image of another live article
uses it and no running ingest job has claimed it (checked under the key's lock, see
``media_refs``): content-addressed keys are shared by every image with the same bytes. The image
rows stay (the article's soft delete is permanent and keeps its history).
"""

from __future__ import annotations

from typing import Final

import msgspec
from msgspec import Struct

from rk.core.api.queues import Job
from rk.core.api.storage import Storage
from rk.server.media.refs import delete_if_unreferenced
from rk.server.media.repository import article_deleted_at, article_object_keys
from rk.server.platform.jobs.claim import Claim
from rk.server.platform.jobs.engine import JobQueue
from rk.server.platform.jobs.job_result import JobDone, JobNotDone

KIND: Final = "media_cleanup"


class MediaCleanup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The payload of a media cleanup job."""

    article_id: int


async def enqueue_media_cleanup(queue: JobQueue, article_id: int) -> int:
    """Queue the cleanup of a (soft-)deleted article's objects; the job id."""
    payload = msgspec.json.encode(MediaCleanup(article_id=article_id)).decode()
    return await queue.enqueue(KIND, payload)


class MediaCleanupService:
    """Runs ``media_cleanup`` jobs against one storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def run(self, job: Job, claim: Claim) -> JobDone:
        """Delete the objects of the job's article that no live article shares."""
        try:
            article_id = msgspec.json.decode(job.payload, type=MediaCleanup).article_id
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise JobNotDone(f"payload is not a media cleanup request: {exc}") from None
        deleted_at = await article_deleted_at(article_id)
        if deleted_at is None:
            return JobDone(outcome="noop", note=f"article {article_id} does not exist")
        if not deleted_at:
            note = f"article {article_id} is not deleted; its media stay"
            return JobDone(outcome="noop", note=note, article_id=article_id)
        keys = await article_object_keys(article_id)
        deleted = kept = 0
        for key in keys:
            if await self.storage.head(key) is None:
                continue
            if await delete_if_unreferenced(
                self.storage, key, live_only=True, skip_article=article_id
            ):
                deleted += 1
            else:
                kept += 1
        if not deleted:
            note = f"article {article_id}: nothing left to delete ({kept} objects shared)"
            return JobDone(outcome="noop", note=note, article_id=article_id)
        note = f"article {article_id}: deleted {deleted} objects, kept {kept} shared"
        return JobDone(outcome="cleaned", note=note, article_id=article_id)
