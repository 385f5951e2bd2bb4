"""Sweep storage: delete orphans (objects nothing references), count what is missing.

An object is referenced by an image of a live (not deleted) article (a rendition by an image
of its original), by a live claim of a running ingest job, or by the payload of an ingest
job still waiting to run (a spider's upload before its show is ingested). Anything else
older than the grace period is an orphan, left by a crash or a killed worker; each is
deleted through the same locked re-check as every other delete (``media_refs``), so a job
that claims it meanwhile keeps it. Objects younger than the grace period are left alone:
an upload in flight. ``missing`` are referenced keys storage does not hold (rungs of a
rendition ladder included, as ``image_renditions`` records them). Image rows still
0×0 (stored before sizes were taken from the original's header) get their size on the way.

The sweep runs inside a serving backend, so it works in batches of ``BATCH``: listed keys
are checked against the image rows a batch at a time, and the images' distinct keys are
compared with the listing a batch at a time in key order, never loading every key of a
million-image archive into one set in one step of the event loop.
"""

from __future__ import annotations

import time

import msgspec
from msgspec import Struct

from rk.core.api.keys import THUMB_KEY, is_media_key, parse_content_key, thumb_key
from rk.core.api.storage import ObjectInfo, Storage
from rk.core.api.wire import ShowIngest
from rk.server.media.refs import delete_if_unreferenced
from rk.server.media.renditions import rendition_keys_of
from rk.server.media.repository_refs import drop_dead_claims
from rk.server.media.repository_sweep import (
    keys_claimed_by_running_jobs,
    keys_named_by_live_images,
    live_image_keys_after,
    live_renditions_after,
    set_image_size,
    unsized_image_keys,
    waiting_show_payloads,
)
from rk.server.media.thumb_check import image_info

SAMPLE = 5
SIZE_BATCH = 500
BATCH = 2000


class GcReport(Struct, kw_only=True):
    """What one sweep found and did; ``orphans`` lists up to SAMPLE of them."""

    listed: int = 0
    referenced: int = 0
    young: int = 0
    orphans: int = 0
    deleted: int = 0
    missing: int = 0
    sized: int = 0
    orphan_sample: list[str] = []
    missing_sample: list[str] = []
    dry_run: bool = False

    def lines(self) -> list[str]:
        """The report for an operator, one fact per line."""
        verb = "would delete" if self.dry_run else "deleted"
        out = [
            f"objects: {self.listed} listed, {self.referenced} referenced, "
            f"{self.young} within the grace period",
            f"orphans: {self.orphans} ({verb} {self.orphans if self.dry_run else self.deleted})",
            f"missing: {self.missing} referenced objects not in storage",
            f"sizes: {self.sized} image rows given their width and height",
        ]
        out += [f"  orphan {key}" for key in self.orphan_sample]
        out += [f"  missing {key}" for key in self.missing_sample]
        return out


async def _missing(seen: set[str], report: GcReport, batch: int) -> None:
    """Count the keys live images name that are not in ``seen``: each column's distinct keys
    in key order, ``batch`` at a time (a key many images share counts once, and no set of
    missing keys is built however many there are), then the rungs their ladders list."""
    sample: list[str] = []

    def count(keys: list[str]) -> None:
        gone = [key for key in keys if key not in seen]
        report.missing += len(gone)
        sample.extend(gone[: max(0, SAMPLE - len(sample))])

    for column in ("key", "thumb_key"):
        last = ""
        while keys := await live_image_keys_after(column, last, batch):
            last = keys[-1]
            count(keys)
    last = ""
    while ladders := await live_renditions_after(last, batch):
        last = ladders[-1][0]
        count([k for key, widths in ladders for k in rendition_keys_of(key, widths)])
    report.missing_sample = sorted(sample)[:SAMPLE]


async def _waiting_keys() -> set[str]:
    """Keys named by shows still waiting to be ingested (spider uploads), with thumbnails."""
    keys: set[str] = set()
    for payload in await waiting_show_payloads():
        try:
            show = msgspec.json.decode(payload, type=ShowIngest)
        except (msgspec.ValidationError, msgspec.DecodeError):
            continue
        for ref in show.images():
            if ref.key and is_media_key(ref.key) and not THUMB_KEY.match(ref.key):
                keys |= {ref.key, thumb_key(parse_content_key(ref.key)[1])}
    return keys


async def fill_sizes(storage: Storage, limit: int = SIZE_BATCH) -> int:
    """Give up to ``limit`` 0×0 image rows the size in their original's header; rows sized."""
    sized = 0
    for key in await unsized_image_keys(limit):
        try:
            info = image_info(await storage.get(key))
        except FileNotFoundError:
            continue
        if info is None:
            continue
        sized += await set_image_size(key, info[0], info[1])
    return sized


async def sweep(
    storage: Storage,
    *,
    grace_s: int,
    dry_run: bool = False,
    now: int | None = None,
    batch_size: int = BATCH,
) -> GcReport:
    """One pass over storage; deletes orphans older than ``grace_s`` unless ``dry_run``.
    Works ``batch_size`` keys at a time."""
    current = int(time.time()) if now is None else now
    report = GcReport(dry_run=dry_run)
    if not dry_run:
        await drop_dead_claims()
    pending = await keys_claimed_by_running_jobs() | await _waiting_keys()
    seen: set[str] = set()
    batch: list[ObjectInfo] = []

    async def check() -> None:
        keep = pending | await keys_named_by_live_images([info.key for info in batch])
        for info in batch:
            if info.key in keep:
                report.referenced += 1
            elif current - info.modified < grace_s:
                report.young += 1
            else:
                report.orphans += 1
                if len(report.orphan_sample) < SAMPLE:
                    report.orphan_sample.append(info.key)
                if not dry_run and await delete_if_unreferenced(storage, info.key, live_only=True):
                    report.deleted += 1
        batch.clear()

    async for info in storage.list_objects():
        if not is_media_key(info.key):
            continue
        report.listed += 1
        seen.add(info.key)
        batch.append(info)
        if len(batch) >= batch_size:
            await check()
    await check()
    await _missing(seen, report, batch_size)
    if not dry_run:
        report.sized = await fill_sizes(storage)
    return report
