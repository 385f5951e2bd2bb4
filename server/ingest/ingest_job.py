"""The ingest job: a submitted show becomes one article with its images, or a recorded outcome.

Dedupe by ``(source, show_key)``: an existing article is ``skipped_existing``, a deleted
one ``skipped_deleted`` (deletion is permanent), a rejected one is overwritten
(``reused_rejected``); otherwise the article is ``created``. Images are stored first
(``store_image``), then the article, every image row and the job's completion are written
in one transaction fenced by the job's claim (``Claim.commit``), with the palettes measured
while storing (``save_stored_palettes``): a crash or a lost claim
before it commits leaves no row, and the re-run records the outcome the show deserves.
If anything fails, the objects this job wrote that no image row and no other running
job references are deleted again (``media_refs``), so a failed attempt leaves nothing
half-written and takes nothing from another job.

An image that fails for a reason that may pass (timeout, 5xx) makes the job retry while
attempts remain; on the last attempt, or when the reason is permanent (404, not an image,
refused address), the article is created without it and the note names it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from typing import Any

import asyncpg
import msgspec
import pluggy
from msgspec import Struct

from rk.core.api.keys import CONTENT_KEY, Kind, image_object_keys, rendition_keys, thumb_key
from rk.core.api.queues import Job
from rk.core.api.storage import Storage
from rk.core.api.wire import ImageRef, ShowIngest
from rk.core.config import Settings
from rk.core.runtime.faults import fault_point
from rk.server.colour import Palette, save_palettes
from rk.server.ingest.fetch import Fetcher
from rk.server.ingest.intake import decode_queued, source_kinds
from rk.server.ingest.repository import (
    article_of_show,
    create_article,
    image_ids_by_slot,
    overwrite_rejected_article,
)
from rk.server.ingest.store_image import ImageFailure, ImageStorer, StoredImage, Written
from rk.server.media import delete_unreferenced, release
from rk.server.platform.db.sql_rows import database
from rk.server.platform.jobs.claim import Claim
from rk.server.platform.jobs.job_result import JobDone, JobNotDone

DUPLICATE = (asyncpg.UniqueViolationError, sqlite3.IntegrityError)


class Slot(Struct, frozen=True, kw_only=True):
    """One image of the show: where it goes in the article and how the note names it.

    ``look_number`` is the look the image shows (a detail's linked look, None if unlinked).
    """

    role: str
    position: int
    ref: ImageRef
    look_number: int | None = None
    model_name: str = ""

    @property
    def label(self) -> str:
        """``look 7`` or ``detail 2``."""
        return f"{self.role} {self.position}"


def slots_of(show: ShowIngest) -> list[Slot]:
    """The looks in order, then the details numbered from 1."""
    looks = [
        Slot(
            role="look",
            position=look.number,
            ref=look.image,
            look_number=look.number,
            model_name=look.model_name,
        )
        for look in show.looks
    ]
    details = [
        Slot(role="detail", position=i, ref=ref, look_number=ref.look)
        for i, ref in enumerate(show.details, start=1)
    ]
    return looks + details


def uploaded_keys(slots: list[Slot]) -> list[str]:
    """The keys the spider says it uploaded, with their thumbnails and renditions: claimed in
    one statement."""
    keys: list[str] = []
    for slot in slots:
        match = CONTENT_KEY.match(slot.ref.key or "")
        if match:
            keys += [match.group(0), thumb_key(match.group(2)), *rendition_keys(match.group(2))]
    return keys


def listing(items: list[tuple[Slot, str]]) -> str:
    """``look 7 (HTTP 404), detail 2 (not an image)``."""
    return ", ".join(f"{slot.label} ({reason})" for slot, reason in items)


def compose_note(verb: str, stored: int, missing: list[tuple[Slot, str]], fell_back: str) -> str:
    """``created, 38 images, 2 missing: look 7 (HTTP 404), …``."""
    note = f"{verb}, {stored} image{'s' if stored != 1 else ''}"
    if missing:
        note += f", {len(missing)} missing: {listing(missing)}"
    return note + fell_back


def rendition_note(stored: list[StoredImage]) -> str:
    """``; thumbnails: 38 from renditions, 2 from originals (rendition unfit)``, or ""."""
    made = [image.thumb_from for image in stored]
    fits, unfit = made.count("rendition"), made.count("fallback")
    if not fits and not unfit:
        return ""
    note = f"; thumbnails: {fits} from renditions"
    return note + (f", {unfit} from originals (rendition unfit)" if unfit else "")


class IngestService:
    """Runs ``crawl`` jobs: one ShowIngest payload each."""

    def __init__(
        self, storage: Storage, fetcher: Fetcher, settings: Settings, pm: pluggy.PluginManager
    ) -> None:
        self.storage = storage
        self.storer = ImageStorer(storage, fetcher, settings.media.thumb_size)
        self.concurrency = max(1, settings.media.concurrency)
        self.max_attempts = settings.queues.ingest_max_attempts
        self.pm = pm
        self.kinds = source_kinds(pm)

    def kind_of(self, show: ShowIngest) -> Kind:
        """The storage prefix: the kind the show carries (checked against its source at intake)."""
        return show.kind or "runway"

    async def run(self, job: Job, claim: Claim) -> JobDone:
        """Process one claimed job; JobNotDone (or any error) means retry or fail."""
        try:
            show = decode_queued(job.payload, self.kinds)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise JobNotDone(f"payload is not a ShowIngest: {exc}", permanent=True) from None
        existing = await article_of_show(show.source, show.show_key)
        if existing is not None:
            article_id = int(existing["id"])
            if existing["deleted_at"]:
                note = f"article {article_id} was deleted; deletion is permanent"
                return JobDone(
                    outcome="skipped_deleted", note=note, article_id=article_id, show=show
                )
            if existing["status"] != "rejected":
                note = f"article {article_id} already exists ({existing['status']})"
                return JobDone(
                    outcome="skipped_existing", note=note, article_id=article_id, show=show
                )
        written = Written(job.id)
        try:
            return await self._ingest(job, claim, show, existing, written)
        except BaseException:
            await asyncio.shield(delete_unreferenced(self.storage, written.keys, job_id=job.id))
            raise
        finally:
            await asyncio.shield(release(job.id))

    async def _store_all(
        self, slots: list[Slot], kind: Kind, written: Written
    ) -> list[StoredImage | ImageFailure]:
        gate = asyncio.Semaphore(self.concurrency)

        async def one(slot: Slot) -> StoredImage | ImageFailure:
            async with gate:
                try:
                    return await self.storer.store(slot.ref, kind, written)
                except ImageFailure as failure:
                    return failure

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(slot)) for slot in slots]
        except BaseExceptionGroup as eg:
            raise eg.exceptions[0] from None
        return [task.result() for task in tasks]

    async def _ingest(
        self,
        job: Job,
        claim: Claim,
        show: ShowIngest,
        existing: dict[str, Any] | None,
        written: Written,
    ) -> JobDone:
        slots = slots_of(show)
        await written.claim(*uploaded_keys(slots))
        results = await self._store_all(slots, self.kind_of(show), written)
        stored = [(s, r) for s, r in zip(slots, results, strict=True) if isinstance(r, StoredImage)]
        failed = [
            (s, r) for s, r in zip(slots, results, strict=True) if isinstance(r, ImageFailure)
        ]
        missing = [(slot, failure.reason) for slot, failure in failed]
        last = job.attempts >= self.max_attempts
        if any(failure.transient for _, failure in failed) and not last:
            raise JobNotDone(f"{len(failed)} of {len(slots)} images failed: {listing(missing)}")
        if not stored:
            permanent = not any(failure.transient for _, failure in failed)
            raise JobNotDone(f"no image could be stored: {listing(missing)}", permanent=permanent)
        fell = [(slot, image.fell_back) for slot, image in stored if image.fell_back]
        fell_back = (
            f"; {len(fell)} uploaded keys unusable, downloaded: {listing(fell)}" if fell else ""
        ) + rendition_note([image for _, image in stored])
        if existing is None:

            async def create() -> JobDone:
                return await self._create_done(show, job.brand_id, stored, missing, fell_back)

            done = await claim.commit(create)
            if done.outcome == "skipped_existing":
                await delete_unreferenced(self.storage, written.keys, job_id=job.id)
            return done
        article_id = int(existing["id"])
        old_keys: list[str] = []

        async def reuse() -> JobDone:
            old_keys.extend(await self._reuse(show, job.brand_id, article_id, stored))
            verb = f"reused rejected article {article_id}"
            return JobDone(
                outcome="reused_rejected",
                note=compose_note(verb, len(stored), missing, fell_back),
                article_id=article_id,
                show=show,
                status_change=("rejected", "pending"),
            )

        done = await claim.commit(reuse)
        await delete_unreferenced(self.storage, old_keys, job_id=job.id)
        return done

    async def _create_done(
        self,
        show: ShowIngest,
        brand_id: int,
        stored: list[tuple[Slot, StoredImage]],
        missing: list[tuple[Slot, str]],
        fell_back: str,
    ) -> JobDone:
        """Write the article and its images (inside the job's commit); the job's result."""
        article_id = await self._create(show, brand_id, stored)
        if article_id is None:
            row = await article_of_show(show.source, show.show_key)
            found = int(row["id"]) if row else 0
            note = f"article {found} was created meanwhile by another job"
            return JobDone(outcome="skipped_existing", note=note, article_id=found, show=show)
        await save_stored_palettes(article_id, stored)
        fault_point("ingest.article_written")
        note = compose_note("created", len(stored), missing, fell_back)
        return JobDone(outcome="created", note=note, article_id=article_id, show=show)

    def _article_values(self, show: ShowIngest, brand_id: int, now: int) -> dict[str, Any]:
        return {
            "kind": self.kind_of(show),
            "brand_id": brand_id,
            "title": show.title,
            "season": show.season,
            "city": show.city,
            "date": show.date,
            "url": show.url,
            "designer": show.designer,
            "author": show.author,
            "status": "pending",
            "updated_at": now,
        }

    async def _create(
        self, show: ShowIngest, brand_id: int, stored: list[tuple[Slot, StoredImage]]
    ) -> int | None:
        """Insert the article and its images; None when the show exists already (a race)."""
        now = int(time.time())
        values = self._article_values(show, brand_id, now)
        images = image_rows(self.kind_of(show), stored, now)
        try:
            return await create_article(show.source, show.show_key, now, values, images)
        except DUPLICATE:
            return None

    async def _reuse(
        self,
        show: ShowIngest,
        brand_id: int,
        article_id: int,
        stored: list[tuple[Slot, StoredImage]],
    ) -> list[str]:
        """Overwrite a rejected article; the keys its old images used that the new ones don't."""
        now = int(time.time())
        values = self._article_values(show, brand_id, now)
        images = image_rows(self.kind_of(show), stored, now)
        old = await overwrite_rejected_article(article_id, values, images)
        if old is None:
            raise JobNotDone(f"article {article_id} changed while it was being re-ingested")
        await save_stored_palettes(article_id, stored)
        new = {k for _, image in stored for k in image_object_keys(image.key, image.thumb_key)}
        return [k for k in old if k not in new]


async def save_stored_palettes(article_id: int, stored: list[tuple[Slot, StoredImage]]) -> None:
    """Write the palettes measured at ingest for ``article_id``'s new image rows; called
    inside the job's commit, so the rows and their palettes commit (or roll back) together."""
    ids = await image_ids_by_slot(article_id)
    palettes: dict[int, Palette] = {
        ids[(slot.role, slot.position)]: image.palette
        for slot, image in stored
        if image.palette is not None and (slot.role, slot.position) in ids
    }
    await save_palettes(database(), palettes)


def image_rows(
    kind: Kind, stored: list[tuple[Slot, StoredImage]], now: int
) -> list[dict[str, Any]]:
    """The image rows of the stored images, by column (the article id is added on insert)."""
    return [
        dict(
            role=slot.role,
            position=slot.position,
            kind=kind,
            key=image.key,
            thumb_key=image.thumb_key,
            sha1=image.sha1,
            size=image.size,
            width=image.width,
            height=image.height,
            source_url=slot.ref.url,
            uploaded_by_spider=int(image.uploaded_by_spider),
            created_at=now,
            look_number=slot.look_number,
            model_name=slot.model_name,
        )
        for slot, image in stored
    ]
