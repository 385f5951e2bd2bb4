"""The whole path's parts for one size: a Vogue-shaped site of N shows, a fresh PostgreSQL,
one ``rk serve-backend`` on file storage, one ``rk spider serve`` and one embed worker.

The site is the system test's (``tests.system.site``) with none of its faults: one show per
brand, every photo served at once. The processes are started as operators start them
(``tests.system.fleet``), with the tiny CLIP the tests build (nothing downloaded).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.job_queue import proc_cpu_s
from tests.integration.spider.photos import PhotoSite
from tests.support.net import free_port, wait_for_port
from tests.system.fleet import Fleet, RkProc
from tests.system.pgcluster import PgCluster
from tests.system.site import SEASONS, FaultySite, GroundTruth, ShowTruth

PREFIX = "Bench House"
"""Every brand's name starts with it (``rk crawl batch --prefix``)."""


def bench_truth(shows: int, looks: int, details: int) -> GroundTruth:
    """``shows`` brands of one show each, ``looks`` looks and ``details`` details a show."""
    season = SEASONS[0][0]
    brands = {f"{PREFIX} {n:03d}": f"bench-house-{n:03d}" for n in range(shows)}
    return GroundTruth(
        brands=brands,
        shows=[
            ShowTruth(f"{season}/{slug}", name, looks, details) for name, slug in brands.items()
        ],
        slow=set(),
    )


class RunwaySite(FaultySite):
    """The system test's site with no fault, answering a narrower ``w_N,c_limit`` transform
    with a real smaller rendition, as an image CDN does (the system site answers every
    rendition with the original's bytes, which would make the spider fetch twice)."""

    def photo(self, path: str) -> bytes:
        """The photo, or its rendition when the path asks for a narrower one."""
        return PhotoSite.photo(self, path)


@dataclass
class Parts:
    """The started parts of one size and the pids whose CPU is counted, by role."""

    fleet: Fleet
    site: RunwaySite
    cluster: PgCluster
    metrics: dict[str, int] = field(default_factory=dict)
    """Each worker's ``--metrics-port``, by process name."""

    def pids(self) -> dict[str, list[int]]:
        """Role → live pids: backend, spider, embed worker, PostgreSQL (every process)."""
        roles = {
            "backend": [p.pid for p in self.fleet.backends],
            "spider (crawl, download, thumbnail, upload)": [p.pid for p in self.fleet.spiders],
            "embed worker": [self.fleet.embedder.pid] if self.fleet.embedder else [],
        }
        return roles | {"PostgreSQL": postgres_pids(self.cluster)}

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far by role; the site is this process (its server threads)."""
        used = {role: sum(proc_cpu_s(pids).values()) for role, pids in self.pids().items()}
        return used | {"site (this process)": time.process_time()}


def postgres_pids(cluster: PgCluster) -> list[int]:
    """The postmaster of ``cluster`` and its children, from ``/proc``."""
    master = int((cluster.data / "postmaster.pid").read_text().split()[0])
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == master:
                children.append(int(stat.parent.name))
    return [master, *children]


async def _ready(port: int) -> None:
    """Wait until the backend answers ``/readyz``."""
    async with httpx.AsyncClient(timeout=5) as http:
        for _ in range(480):
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                    return
            await asyncio.sleep(0.5)
    raise RuntimeError(f"backend on port {port} never became ready")


def add_brands(fleet: Fleet, truth: GroundTruth) -> None:
    """Add every brand with its Vogue slug (one ``rk brands import``), as an operator would."""
    listing = fleet.root / "brands.txt"
    listing.write_text(
        "".join(f"{name} | vogue={slug}\n" for name, slug in truth.brands.items()), "utf-8"
    )
    fleet.operator("brands", "import", str(listing))


def queue_crawls(fleet: Fleet, truth: GroundTruth) -> None:
    """Queue a crawl of every show of every brand: one ``rk crawl batch``."""
    count = str(len(truth.brands))
    fleet.operator("crawl", "batch", "--prefix", PREFIX, "--max-shows", "0", "-n", count)


@contextlib.asynccontextmanager
async def started(root: Path, truth: GroundTruth, photo: tuple[int, int]) -> AsyncIterator[Parts]:
    """Site, PostgreSQL and backend up and every brand added; no worker started, no crawl
    queued. Everything is stopped and removed on exit."""
    site = RunwaySite(truth)
    site.photo_size = photo
    site.start()
    cluster = PgCluster(free_port())
    port = free_port()
    fleet = Fleet(
        root=root,
        dsn=cluster.dsn,
        storage=f"file://{root / 'store'}",
        site_url=site.base_url,
        balancer_url=f"http://127.0.0.1:{port}",
        backend_ports=[port],
    )
    try:
        await asyncio.to_thread(cluster.init)
        await asyncio.to_thread(fleet.start_backend, 0)
        await _ready(port)
        await asyncio.to_thread(add_brands, fleet, truth)
        yield Parts(fleet, site, cluster)
    finally:
        fleet.stop()
        site.stop()
        shutil.rmtree(site.dir, ignore_errors=True)
        cluster.destroy()


def start_workers(parts: Parts) -> None:
    """Start the serving spider and the embed worker, each with its metrics port, and wait
    until both serve it (started, imports done: their start-up is not the path's)."""
    fleet = parts.fleet
    spider = fleet.spider("spider")
    embed_args = ["spider", "embed", "--kind", "runway", "--loop", "--interval", "1", "-l", "32"]
    embed_args += ["--config", str(fleet.worker_config("embed"))]
    embedder = RkProc("embed", embed_args, fleet.root)
    for proc in (spider, embedder):
        proc.args += ["--metrics-port", str(parts.metrics.setdefault(proc.name, free_port()))]
        proc.start()
    fleet.spiders, fleet.embedder = [spider], embedder
    for port in parts.metrics.values():
        wait_for_port(port, 120)


def load_average() -> float:
    """The one-minute load average."""
    return os.getloadavg()[0]
