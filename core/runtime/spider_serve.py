"""``rk spider serve``: claim crawl tasks from the backend, crawl them, report the results.

``workers`` loops run at once, each crawling one brand; the first SIGINT/SIGTERM stops
claiming and lets the brands in hand finish and be reported; a second aborts at once and
leaves the in-hand tasks to their lease. A crawl refused by a robots.txt that could not be read
(429 or 5xx) waits until it is read again and starts over, holding its task, so a site's
passing outage loses no show and burns no attempt.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field

import httpx

from rk.core.api.errors import caused_by
from rk.core.api.sources import BrandTarget, Source
from rk.core.api.wire import CrawlResult, CrawlTask, ShowIngest, printable
from rk.core.logs import log_ids
from rk.core.runtime.client import (
    BackendClient,
    BackendError,
    BackendRejected,
    TaskLost,
    retry_backend,
)
from rk.core.runtime.crawler import CrawlStats, ShowUploader, crawl
from rk.core.runtime.robots import RobotsUnreachable
from rk.core.runtime.robots_shows import RobotsCheck
from rk.core.runtime.unreachable import unreachable_hint

log = logging.getLogger("rk.spider")

CLAIM_GRACE_S = 2.0
ROBOTS_WAITS = 5
"""Times a task waits for a robots.txt that answered 429 or 5xx before it is reported failed."""


def worker_ids(count: int) -> list[str]:
    """``<host>-<pid>-<n>`` for each worker loop."""
    host = socket.gethostname().split(".")[0]
    return [f"{host}-{os.getpid()}-{n}" for n in range(count)]


def heartbeat_every(lease_s: float) -> float:
    """Seconds between heartbeats: three per lease, at most a minute apart."""
    return max(0.5, min(60.0, lease_s / 3))


@dataclass(eq=False)
class SpiderServer:
    """The serve loop for one source.

    Heartbeats go three times per lease the backend states in each claimed task;
    ``heartbeat_s`` is only for a backend that does not say. ``robots`` leaves the images
    robots.txt refuses out of each show.
    """

    client: BackendClient
    http: httpx.AsyncClient
    source_cls: type[Source]
    source_options: dict[str, object]
    _: KW_ONLY
    workers: int
    interval_s: float
    max_concurrency: int
    uploader: ShowUploader | None = None
    heartbeat_s: float = 60.0
    robots: RobotsCheck | None = None
    show_retry_s: float = 30.0
    stopping: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _source: Source | None = field(default=None, init=False, repr=False)

    @property
    def source(self) -> Source:
        """One source object for the whole run, so its caches (Vogue's A–Z map) are shared."""
        if self._source is None:
            self._source = self.source_cls(self.http, self.source_options)
        return self._source

    def install_signals(self, loop: asyncio.AbstractEventLoop, abort: Callable[[], object]) -> None:
        """First SIGINT/SIGTERM: stop claiming; second: ``abort()``."""

        def on_signal(signum: int) -> None:
            if self.stopping.is_set():
                log.warning("[serve] second signal: aborting; in-hand tasks return on lease")
                abort()
                return
            log.warning(
                "[serve] %s: no new tasks; finishing the brands in hand",
                signal.Signals(signum).name,
            )
            self.stopping.set()

        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, on_signal, signum)

    async def run(self) -> None:
        """Run every worker loop until a stop is asked and the in-hand tasks are reported.

        An error that ends one loop (the backend refuses this spider: wrong secret, wrong
        version) stops the others at once and propagates; in-hand tasks return on lease.
        """
        loops = [asyncio.create_task(self._loop(w)) for w in worker_ids(self.workers)]
        try:
            done, _ = await asyncio.wait(loops, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for loop in loops:
                loop.cancel()
        for loop in done:
            error = None if loop.cancelled() else loop.exception()
            if error is not None:
                raise error

    async def _loop(self, worker: str) -> None:
        source = self.source_cls.name
        while not self.stopping.is_set():
            task = await self._claim(worker, source)
            if task is None:
                await self._idle()
                continue
            with log_ids(worker=worker, task=task.id):
                await self._run_task(worker, task)

    async def _claim(self, worker: str, source: str) -> CrawlTask | None:
        """Claim one task, retrying while the backend is down; None when idle or stopping.

        A stop that arrives during a claim waits ``CLAIM_GRACE_S`` for it: a task the
        backend already leased to this worker is in hand and is crawled, not abandoned to
        its lease. A claim still retrying an unreachable backend after that is dropped.
        """
        claim = asyncio.create_task(
            retry_backend(lambda: self.client.claim(worker, source), what=f"{worker} claim")
        )
        stop = asyncio.create_task(self.stopping.wait())
        try:
            await asyncio.wait({claim, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not claim.done():
                await asyncio.wait({claim}, timeout=CLAIM_GRACE_S)
        finally:
            stop.cancel()
            if not claim.done():
                claim.cancel()
            elif not claim.cancelled():
                claim.exception()  # retrieved, even when this loop is being cancelled
        if not claim.done():
            await asyncio.wait({claim})
        return None if claim.cancelled() else claim.result()

    async def _idle(self, seconds: float | None = None) -> None:
        """Sleep ``seconds`` (the poll interval), waking at once when a stop is asked."""
        try:
            await asyncio.wait_for(self.stopping.wait(), timeout=seconds or self.interval_s)
        except TimeoutError:
            return

    async def _run_task(self, worker: str, task: CrawlTask) -> None:
        log.info(
            "[serve] %s claimed task=%d brand=%s (uid=%s) max_shows=%d%s",
            worker,
            task.id,
            task.brand_name,
            task.brand_uid,
            task.max_shows,
            f" season={task.season}" if task.season else "",
        )
        started = time.monotonic()
        brand = BrandTarget(
            id=task.brand_id,
            uid=task.brand_uid,
            name=task.brand_name,
            slug=task.slug,
            season=task.season,
        )
        crawl_job = asyncio.create_task(self._crawl(brand, task.max_shows))
        every = heartbeat_every(task.lease_s) if task.lease_s else self.heartbeat_s
        beat = asyncio.create_task(self._heartbeat(worker, task.id, crawl_job, every))
        detail = ""
        try:
            stats = await crawl_job
            result = CrawlResult(
                worker=worker,
                status="done",
                shows_submitted=stats.shows,
                error=printable(stats.result_text()),
            )
            detail = f" ({stats.summary()})"
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not crawl_job.cancelled() or (current is not None and current.cancelling()):
                raise
            log.warning("[serve] %s task %d: lease lost; another worker has it", worker, task.id)
            return
        except Exception as exc:
            log.exception("[serve] %s task %d failed", worker, task.id)
            hint = unreachable_hint(exc, f"sources.{self.source.name}.base_url")
            result = CrawlResult(
                worker=worker,
                status="failed",
                error=printable(f"{type(exc).__name__}: {exc}{hint}"),
            )
        finally:
            beat.cancel()
        await self._report(worker, task, result, time.monotonic() - started, detail)

    async def _crawl(self, brand: BrandTarget, max_shows: int) -> CrawlStats:
        """The crawl of ``brand``, started over after each wait for an unreadable robots.txt."""
        waits = 0
        while True:
            try:
                return await self._crawl_once(brand, max_shows)
            except Exception as exc:
                unreachable = caused_by(exc, RobotsUnreachable)
                if unreachable is None or waits == ROBOTS_WAITS or self.stopping.is_set():
                    raise
            waits += 1
            wait_s = unreachable.retry_in_s + 0.1
            log.warning(
                "[serve] %s; waiting %.0f s for it, then the brand starts over (wait %d of %d)",
                str(unreachable).removeprefix("refused by "),
                wait_s,
                waits,
                ROBOTS_WAITS,
            )
            await self._idle(wait_s)

    async def _crawl_once(self, brand: BrandTarget, max_shows: int) -> CrawlStats:
        source = self.source

        async def submit(show: ShowIngest) -> None:
            await retry_backend(lambda: self.client.ingest(show), what="ingest")

        return await crawl(
            source,
            brand if source.needs_brand else None,
            max_shows or None,
            submit,
            uploader=self.uploader,
            concurrency=self.max_concurrency,
            robots=self.robots,
            show_retry_s=self.show_retry_s,
        )

    async def _heartbeat(
        self, worker: str, task_id: int, crawl_job: asyncio.Task[CrawlStats], every_s: float
    ) -> None:
        while True:
            await asyncio.sleep(every_s)
            try:
                await self.client.heartbeat(task_id, worker)
            except TaskLost:
                crawl_job.cancel()
                return
            except BackendError as exc:
                log.warning("[serve] %s heartbeat for task %d failed: %s", worker, task_id, exc)

    async def _report(
        self, worker: str, task: CrawlTask, result: CrawlResult, elapsed_s: float, detail: str
    ) -> None:
        try:
            await retry_backend(lambda: self.client.report(task.id, result), what="result")
        except TaskLost:
            log.warning(
                "[serve] %s task %d: result refused, the lease had expired", worker, task.id
            )
            return
        except BackendRejected as exc:
            log.error("[serve] %s task %d: result refused: %s", worker, task.id, exc)
            return
        log.info(
            "[serve] %s task %d done: status=%s submitted %d shows in %.0fs%s",
            worker,
            task.id,
            result.status,
            result.shows_submitted,
            elapsed_s,
            detail,
        )
