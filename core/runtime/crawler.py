"""Crawl one brand, one season or one listing of posts: list → fetch → upload → hand to a sink.

Shared by ``rk spider serve`` (the sink POSTs to the backend) and the one-shot commands
(the sink may print JSON Lines instead). One show failing never stops the others; a show
that failed for a passing reason (the site answered 429 or 5xx, or could not be reached) is
fetched again ``show_retry_s`` later, twice at most, before it counts as failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Protocol, TypedDict, Unpack

import httpx
import msgspec
from msgspec import Struct

from rk.core.api.errors import ShowSkipped, SourceError, SourceUnavailable, caused_by
from rk.core.api.sources import BrandTarget, SeasonSource, ShowSummary, Source
from rk.core.api.wire import BrandRef, ShowIngest
from rk.core.runtime import worker_metrics
from rk.core.runtime.client import BackendRejected
from rk.core.runtime.robots import RobotsUnreachable, refused_by_robots
from rk.core.runtime.robots_shows import RobotsCheck, without_refused

log = logging.getLogger("rk.crawl")

SHOW_RETRIES = 2
"""Times a show that failed for a passing reason is fetched again within one crawl."""

ShowSink = Callable[[ShowIngest], Awaitable[None]]
BrandFor = Callable[[ShowSummary], Awaitable[BrandTarget | None]]


class CrawlStats(Struct, kw_only=True):
    """Running totals of one crawl, for progress bars, logs and the task result."""

    listed: int = 0
    shows: int = 0
    skipped: int = 0
    failed: int = 0
    images: int = 0
    uploaded: int = 0
    fell_back: int = 0
    image_failures: int = 0
    refused: int = 0
    images_refused: int = 0
    errors: list[str] = []

    def add(self, other: CrawlStats) -> None:
        """Accumulate another crawl's totals into this one."""
        for field in self.__struct_fields__:
            value = getattr(other, field)
            setattr(self, field, getattr(self, field) + value)

    def robots_note(self) -> str:
        """What robots.txt refused ("2 shows and 5 images refused by robots.txt"), or ""."""
        counts = [(self.refused, "show"), (self.images_refused, "image")]
        parts = [f"{n} {noun}{'s' if n != 1 else ''}" for n, noun in counts if n]
        return f"{' and '.join(parts)} refused by robots.txt" if parts else ""

    def result_text(self) -> str:
        """The task result's error text: what robots.txt refused, then each error."""
        note = self.robots_note()
        return "; ".join([note, *self.errors] if note else self.errors)

    def summary(self, printed: bool = False) -> str:
        """The one-line sum-up printed at the end of a crawl (``printed``: nothing submitted)."""
        note = f"; {self.robots_note()}" if self.robots_note() else ""
        if printed:
            return (
                f"printed {self.shows} shows ({self.skipped} skipped, {self.failed} failed), "
                f"{self.images} image URLs (nothing downloaded, uploaded or submitted){note}"
            )
        return (
            f"shows {self.shows} submitted ({self.skipped} skipped, {self.failed} failed), "
            f"images {self.images}: {self.uploaded} uploaded, {self.fell_back} fallen back "
            f"to URL, {self.image_failures} failed{note}"
        )


class ShowUploader(Protocol):
    """What the crawler needs from direct media upload (``core.media_upload``)."""

    async def upload_show(self, show: ShowIngest, kind: str) -> tuple[ShowIngest, object]:
        """The show with keys filled in where upload worked, and upload counts."""
        ...


Progress = Callable[[str, int], None]


def _no_progress(event: str, amount: int) -> None:
    """Default progress callback: nothing to show."""


class CrawlHow(TypedDict, total=False):
    """How shows are crawled once listed, however they were listed (``crawl_listed``'s
    defaults: no uploader, 5 shows at once, no progress, no robots.txt check, passing
    failures fetched again after 30 s)."""

    uploader: ShowUploader | None
    concurrency: int
    progress: Progress
    robots: RobotsCheck | None
    show_retry_s: float


class _Again:
    """A show to fetch again: it failed for a passing reason."""


AGAIN = _Again()


def passing(error: BaseException) -> bool:
    """Whether ``error`` may pass: the site answered 429 or 5xx, or could not be reached."""
    return any(
        caused_by(error, kind) is not None for kind in (SourceUnavailable, httpx.TransportError)
    )


def with_brand(show: ShowIngest, brand: BrandTarget | None) -> ShowIngest:
    """The show carrying the backend's brand uid and name (the backend resolves by uid)."""
    if brand is None or not brand.uid:
        return show
    return msgspec.structs.replace(show, brand=BrandRef(uid=brand.uid, name=brand.name))


async def crawl(
    source: Source,
    brand: BrandTarget | None,
    limit: int | None,
    sink: ShowSink,
    **how: Unpack[CrawlHow],
) -> CrawlStats:
    """Crawl the newest ``limit`` shows (None or 0 = all); return what happened.

    Listing errors propagate (the whole crawl failed), and so does a robots.txt that could not
    be read (``RobotsUnreachable``: no show is given up for it); per-show errors, shows the
    backend refused and what robots.txt refused are counted and logged; any other error raised by
    ``sink`` propagates so nothing is silently lost. With ``robots``, images robots.txt
    refuses are left out of their show (``rk.core.runtime.robots_shows``).
    """
    shows = await source.list_shows(brand, limit or None)

    async def same(summary: ShowSummary) -> BrandTarget | None:
        return brand

    return await crawl_listed(source, shows[:limit] if limit else shows, same, sink, **how)


async def crawl_season(
    source: SeasonSource,
    season: str,
    brand_for: BrandFor,
    sink: ShowSink,
    *,
    limit: int | None = None,
    **how: Unpack[CrawlHow],
) -> CrawlStats:
    """Crawl every show of ``season`` (at most ``limit``), each under its own brand.

    ``brand_for`` names each show's brand: the one-shot spider without ``-d`` finds or
    creates it in the backend, with ``-d`` it is just the name the season page gives.
    """
    shows = await source.list_season(season)
    return await crawl_listed(source, shows[:limit] if limit else shows, brand_for, sink, **how)


async def crawl_listed(
    source: Source,
    shows: list[ShowSummary],
    brand_for: BrandFor,
    sink: ShowSink,
    *,
    uploader: ShowUploader | None = None,
    concurrency: int = 5,
    progress: Progress = _no_progress,
    robots: RobotsCheck | None = None,
    show_retry_s: float = 30.0,
) -> CrawlStats:
    """Fetch, upload and sink each listed show; see ``crawl`` for what is counted."""
    stats = CrawlStats()
    stats.listed = len(shows)
    progress("listed", len(shows))
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(summary: ShowSummary, last: bool) -> ShowSummary | None:
        """Crawl one show; the summary back when it is to be fetched again."""
        async with gate:
            show = await _fetch(source, summary, brand_for, stats, last)
            if isinstance(show, _Again):
                return summary
            if show is not None and robots is not None:
                show = await _obey_robots(show, robots, stats)
            if show is None:
                progress("show", 1)
                return None
            stats.images += len(show.images())
            if uploader is not None:
                show, counts = await uploader.upload_show(show, source.kind)
                stats.uploaded += int(getattr(counts, "uploaded", 0))
                stats.fell_back += int(getattr(counts, "fell_back", 0))
                stats.image_failures += int(getattr(counts, "failed", 0))
            progress("images", len(show.images()))
        try:
            await sink(show)
        except BackendRejected as exc:
            stats.failed += 1
            stats.errors.append(f"{show.show_key}: backend refused it: {exc}")
            log.warning("backend refused %s: %s", show.show_key, exc)
            worker_metrics.SPIDER_ERRORS.labels("backend_refused").inc()
            worker_metrics.SHOWS.labels("failed").inc()
        else:
            stats.shows += 1
            worker_metrics.SHOWS.labels("submitted").inc()
            if uploader is None:
                worker_metrics.IMAGES.labels("url_only").inc(len(show.images()))
        progress("show", 1)
        return None

    pending = shows
    for again in range(SHOW_RETRIES + 1):
        if again:
            log.warning(
                "%d shows failed for a passing reason (HTTP 429 or 5xx, or no connection); "
                "fetching them again in %g s (%d of %d)",
                len(pending),
                show_retry_s,
                again,
                SHOW_RETRIES,
            )
            await asyncio.sleep(show_retry_s)
        last = again == SHOW_RETRIES
        pending = [s for s in await _all([one(s, last) for s in pending]) if s is not None]
        if not pending:
            break
    return stats


async def _all(
    steps: list[Coroutine[None, None, ShowSummary | None]],
) -> list[ShowSummary | None]:
    """Run ``steps`` at once; an error that ends the crawl (or a cancel) cancels the rest, so
    no show is still submitting after it."""
    jobs = [asyncio.create_task(step) for step in steps]
    try:
        return await asyncio.gather(*jobs)
    finally:
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)


async def _fetch(
    source: Source, summary: ShowSummary, brand_for: BrandFor, stats: CrawlStats, last: bool
) -> ShowIngest | _Again | None:
    """One show, or None (counted and logged) when it is skipped or broken, or AGAIN when it
    failed for a passing reason and this is not the ``last`` try."""
    try:
        brand = await brand_for(summary)
        return with_brand(await source.fetch_show(summary, brand), brand)
    except BackendRejected as exc:
        stats.failed += 1
        stats.errors.append(f"{summary.url}: backend refused its brand: {exc}")
        log.warning("backend refused the brand of %s: %s", summary.url, exc)
    except ShowSkipped as exc:
        stats.skipped += 1
        log.info("skipped %s: %s", summary.url, exc)
        worker_metrics.SHOWS.labels("skipped").inc()
    except (SourceError, httpx.HTTPError, ValueError) as exc:
        if caused_by(exc, RobotsUnreachable):
            raise  # refused for now, not for good: the whole crawl waits (spider serve)
        if not last and passing(exc):
            log.info("show %s: %s; fetched again later", summary.url, str(exc).splitlines()[0])
            return AGAIN
        if refused_by_robots(exc):
            stats.refused += 1
            worker_metrics.SHOWS.labels("refused").inc()
            log.warning("show %s not fetched: %s", summary.url, exc)
            return None
        stats.failed += 1
        worker_metrics.SHOWS.labels("failed").inc()
        worker_metrics.SPIDER_ERRORS.labels("show").inc()
        reason = f"{summary.url}: {type(exc).__name__}: {exc}".splitlines()[0]
        stats.errors.append(reason)
        log.warning("show failed: %s", reason)
    return None


async def _obey_robots(
    show: ShowIngest, robots: RobotsCheck, stats: CrawlStats
) -> ShowIngest | None:
    """The show without the images robots.txt refuses (counted); None when it refuses all."""
    kept, refused = await without_refused(show, robots)
    if refused:
        stats.images_refused += refused
        worker_metrics.ROBOTS_REFUSED.labels("image").inc(refused)
        log.warning("%s: %d images refused by robots.txt, left out", show.show_key, refused)
    if kept is None:
        stats.refused += 1
        worker_metrics.SHOWS.labels("refused").inc()
        log.warning("%s: robots.txt refuses every image; the show is not sent", show.show_key)
    return kept
