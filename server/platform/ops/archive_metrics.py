"""Archive-wide metrics, read from the database when ``/metrics`` is scraped.

Queues, jobs, images, embeddings and spiders are shared by every backend process, so they
are counted where they live — the database — rather than in one process's memory: any
backend answers the same figures, however many there are (aggregate them with ``max``,
never ``sum``). Each is one grouped query through the piccolo tables; the costly ones (the
census of images and embeddings) are re-read within a time budget (``ArchiveMetrics``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from rk.server.platform.ops.repository import (
    crawl_task_counts,
    done_job_durations,
    embeddings_failed_at_cap,
    ingest_job_counts,
    oldest_unplaced_vector_at,
    pending_embeddings_by_kind,
    spiders_seen_since,
    stored_image_totals,
)

JOB_BUCKETS_S = (1, 2, 5, 10, 30, 60, 120, 300, 600)
"""Job duration buckets; times are whole seconds in the database."""
SPIDER_SEEN_S = 300
"""A spider counts as alive when it claimed or heartbeated a task this recently."""
QUEUE_OF_KIND = {"crawl": "ingest"}
"""``rk_queue_depth``'s queue label for each ingest job kind (crawl tasks are ``crawl_tasks``)."""
CENSUS_BUDGET = 0.05
"""At most this share of wall time goes to re-reading the census (see ArchiveMetrics)."""
Family = GaugeMetricFamily | CounterMetricFamily | HistogramMetricFamily


class Snapshot(Collector):
    """A prometheus collector that yields metric families read beforehand."""

    def __init__(self, families: Sequence[Family]) -> None:
        self.families = families

    def collect(self) -> Iterable[Family]:
        """The families, as read."""
        return iter(self.families)


async def queue_families() -> list[Family]:
    """Queue depth by queue and status, crawl tasks by status, finished jobs and durations."""
    depth = GaugeMetricFamily(
        "rk_queue_depth",
        "Jobs waiting or running, by queue and status.",
        labels=["queue", "status"],
    )
    finished = CounterMetricFamily(
        "rk_jobs_finished",
        "Ingest jobs finished, by kind and outcome (failed = failed for good).",
        labels=["kind", "outcome"],
    )
    jobs = await ingest_job_counts()
    waiting: dict[tuple[str, str], int] = {}
    for row in jobs:
        if row["status"] in ("pending", "processing"):
            key = (row["kind"], row["status"])
            waiting[key] = waiting.get(key, 0) + row["n"]
        else:
            outcome = row["outcome"] or row["status"]
            finished.add_metric([row["kind"], outcome], row["n"])
    for (kind, status), n in sorted(waiting.items()):
        depth.add_metric([QUEUE_OF_KIND.get(kind, kind), status], n)
    tasks = GaugeMetricFamily("rk_crawl_tasks", "Crawl tasks by status.", labels=["status"])
    for row in await crawl_task_counts():
        tasks.add_metric([row["status"]], row["n"])
        if row["status"] in ("queued", "running"):
            depth.add_metric(["crawl_tasks", row["status"]], row["n"])
    return [depth, finished, tasks, await job_durations()]


async def job_durations() -> HistogramMetricFamily:
    """Seconds from claim to completion of every job done, by kind, as a histogram."""
    rows = await done_job_durations(JOB_BUCKETS_S)
    family = HistogramMetricFamily(
        "rk_job_duration_seconds", "Claim-to-done time of finished ingest jobs.", labels=["kind"]
    )
    for row in rows:
        buckets = [(str(float(b)), row[f"le_{b}"]) for b in JOB_BUCKETS_S]
        buckets.append(("+Inf", row["n"]))
        family.add_metric([row["kind"]], buckets, sum_value=float(row["total"]))
    return family


@dataclass(frozen=True)
class Census:
    """The archive's slow-changing figures: one scan of images and embeddings each."""

    images: int
    image_bytes: int
    pending: dict[str, int]
    capped: int
    oldest_unplaced: int


async def read_census(model: str | None, failure_cap: int) -> Census:
    """Images stored (distinct keys) and their bytes; embeddings pending and failed at the
    cap for ``model``; when the oldest vector still waiting for neighbours was stored."""
    stored = await stored_image_totals()
    pending: dict[str, int] = {}
    capped = 0
    if model:
        pending = await pending_embeddings_by_kind(model, failure_cap)
        capped = await embeddings_failed_at_cap(model, failure_cap)
    oldest_unplaced = await oldest_unplaced_vector_at()
    return Census(
        images=stored["n"],
        image_bytes=stored["bytes"],
        pending=pending,
        capped=capped,
        oldest_unplaced=oldest_unplaced,
    )


def census_families(census: Census, model: str | None, now: int) -> list[Family]:
    """The census as metric families (the neighbours lag measured from ``now``)."""
    images = GaugeMetricFamily("rk_images_stored", "Distinct image objects in storage.")
    images.add_metric([], census.images)
    size = GaugeMetricFamily("rk_image_bytes_stored", "Bytes of the distinct image objects.")
    size.add_metric([], census.image_bytes)
    pending = GaugeMetricFamily(
        "rk_embeddings_pending", "Stored images without a vector yet.", labels=["model", "kind"]
    )
    capped = GaugeMetricFamily(
        "rk_embeddings_failed_at_cap",
        "Images whose embedding failed embed.failure_cap times (no more retries).",
        labels=["model"],
    )
    if model:
        for kind, n in sorted(census.pending.items()):
            pending.add_metric([model, kind], n)
        capped.add_metric([model], census.capped)
    lag = GaugeMetricFamily(
        "rk_neighbours_lag_seconds",
        "Age of the oldest vector not yet placed among its neighbours (0 when none waits).",
    )
    lag.add_metric([], max(0, now - census.oldest_unplaced) if census.oldest_unplaced else 0)
    return [images, size, pending, capped, lag]


async def spider_families(now: int) -> list[Family]:
    """Spiders (worker names) that claimed or heartbeated a task in the last 5 minutes."""
    seen = await spiders_seen_since(now - SPIDER_SEEN_S)
    family = GaugeMetricFamily(
        "rk_spiders_seen", "Distinct spider workers seen (claim or heartbeat) in the last 5 min."
    )
    family.add_metric([], seen)
    return [family]


class ArchiveMetrics:
    """One backend process's reader of the archive-wide metrics.

    Queues, jobs and spiders are read on every scrape. The census (a scan of images and
    embeddings) is re-read only once the time since the last read is at least
    ``1 / CENSUS_BUDGET`` times what that read took: on a small archive that is every
    scrape; on a large one (0.6 s at 100k images on SQLite here) the database spends at
    most 5 % of one connection's time on it, however often Prometheus scrapes.
    ``rk_archive_census_age_seconds`` says how old the census figures are.
    """

    def __init__(self) -> None:
        self._census: Census | None = None
        self._read_at = 0.0
        self._cost_s = 0.0
        self._lock = asyncio.Lock()

    async def census(self, model: str | None, failure_cap: int) -> Census:
        """The census, re-read when the budget allows."""
        async with self._lock:
            due = self._read_at + self._cost_s / CENSUS_BUDGET
            if self._census is None or time.monotonic() >= due:
                started = time.monotonic()
                self._census = await read_census(model, failure_cap)
                self._read_at = time.monotonic()
                self._cost_s = self._read_at - started
            return self._census

    async def snapshot(self, model: str | None, failure_cap: int) -> Snapshot:
        """Every archive-wide family."""
        queues = await queue_families()  # first: a job seen done has its images counted
        census = await self.census(model, failure_cap)
        now = int(time.time())
        age = GaugeMetricFamily(
            "rk_archive_census_age_seconds", "How old the image and embedding figures are."
        )
        age.add_metric([], time.monotonic() - self._read_at)
        families = [
            *queues,
            *census_families(census, model, now),
            *await spider_families(now),
            age,
        ]
        return Snapshot(families)
