"""The whole system under faults: start it as operators do, queue every brand, inject the
seeded faults, wait for it to settle, then read what it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx

from tests.integration.storage.helpers import new_bucket, run_moto, s3_url
from tests.support.net import free_port
from tests.system import archive_state, invariants
from tests.system.balancer import Balancer, Exchange
from tests.system.faults import SKEW_OUT_S, FaultRecord, Supervisor, World, inject, schedule
from tests.system.fleet import SECRET, Fleet
from tests.system.gate import TcpGate
from tests.system.invariants import Check
from tests.system.netloop import NetLoop
from tests.system.pgcluster import PgCluster
from tests.system.site import FaultySite, GroundTruth, draw

FAILURE_CAP = 3
SETTLE_S = 360.0
RETRY_S = 90.0
"""A worker retries the backend with full-jitter backoff of at most 60 s."""
PREFIX = "media"


@dataclass
class Outcome:
    """What a run did and found."""

    seed: int
    truth: GroundTruth
    faults: list[FaultRecord]
    checks: list[Check]
    snap: archive_state.Snapshot
    requests: list[Exchange]
    unplanned: list[str]
    rounds: int
    run_s: float
    settle_s: float | None
    last_progress: dict[str, int] = field(default_factory=dict)


@contextlib.asynccontextmanager
async def _parts(root: Path, truth: GroundTruth) -> AsyncIterator[tuple[Fleet, World, str, str]]:
    """Site, S3 (behind its gate), PostgreSQL, balancer, backends: up, and down on exit."""
    net = NetLoop()
    site = FaultySite(truth).start()
    cluster = PgCluster(free_port())
    with run_moto() as moto, contextlib.ExitStack() as stack:
        stack.callback(net.close)
        stack.callback(site.stop)
        stack.callback(cluster.destroy)
        bucket = new_bucket(moto)
        gate = TcpGate(net, free_port(), int(moto.rsplit(":", 1)[1]))
        gate.up()
        await asyncio.to_thread(cluster.init)
        ports = [free_port(), free_port()]
        balancer = Balancer(net, free_port(), ports)
        balancer.start()
        stack.callback(balancer.stop)
        fleet = Fleet(
            root=root,
            dsn=cluster.dsn,
            storage=s3_url(f"http://127.0.0.1:{gate.port}", bucket),
            site_url=site.base_url,
            balancer_url=f"http://127.0.0.1:{balancer.port}",
            backend_ports=ports,
        )
        stack.callback(fleet.stop)
        for n in range(2):  # one after the other: the first applies the migrations
            await asyncio.to_thread(fleet.start_backend, n)
            await _ready(ports[n])
        supervisor = Supervisor(procs=[])
        world = World(fleet, cluster, gate, site, supervisor, balancer, time.monotonic())
        yield fleet, world, moto, bucket


async def _ready(port: int) -> None:
    async with httpx.AsyncClient(timeout=5) as http:
        for _ in range(240):
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                    return
            await asyncio.sleep(0.5)
    raise RuntimeError(f"backend on port {port} never became ready")


async def queue_every_brand(fleet: Fleet, truth: GroundTruth, over_s: float) -> None:
    """Queue a crawl of each brand, spread over ``over_s`` so work overlaps the faults."""
    for name in truth.brands:
        for attempt in range(60):  # as an operator would: again, while the database is down
            try:
                await asyncio.to_thread(fleet.operator, "crawl", "add", name, "--max-shows", "0")
                break
            except RuntimeError as exc:
                if "cannot open the database" not in str(exc) or attempt == 59:
                    raise
                await asyncio.sleep(1.0)
        await asyncio.sleep(over_s / len(truth.brands))


async def settle(
    fleet: Fleet, world: World, moto: str, bucket: str
) -> tuple[float | None, dict[str, int]]:
    """Seconds until nothing is left to do (None: not within ``SETTLE_S``), then up to
    ``RETRY_S`` more for every 5xx a worker got to be retried to success; the last counts."""
    began = time.monotonic()
    counts: dict[str, int] = {}
    settled: float | None = None
    while time.monotonic() - began < SETTLE_S:
        with contextlib.suppress(OSError, asyncpg.PostgresError):
            counts = await archive_state.progress(fleet.dsn, FAILURE_CAP)
            if not any(counts.values()):
                settled = time.monotonic() - began
                break
        await asyncio.sleep(1.0)
    if settled is None:
        return None, counts
    for _ in range(int(RETRY_S / 2)):
        snap = await archive_state.snapshot(fleet.dsn, moto, bucket, PREFIX, FAILURE_CAP)
        killed = world.supervisor.killed_pids
        if invariants.no_unretried_5xx(list(world.balancer.log), snap, killed).ok:
            break
        await asyncio.sleep(2.0)
    return settled, counts


async def run_system(root: Path, seed: int, window_s: float, soak_s: float = 0) -> Outcome:
    """One run: a round of crawls under faults (more rounds while ``soak_s`` lasts)."""
    rng = random.Random(seed)
    truth = draw(rng)
    started = time.monotonic()
    async with _parts(root, truth) as (fleet, world, moto, bucket):
        for name, slug in truth.brands.items():
            fleet.operator("brands", "add", name, "--slug", f"vogue={slug}")
        fleet.spiders = [fleet.spider("spider-a").start(), fleet.spider("spider-b").start()]
        fleet.start_embedder()
        world.supervisor.procs = fleet.all()
        watcher = asyncio.create_task(world.supervisor.run())
        rounds = 0
        try:
            while True:
                rounds += 1  # from the second round on, a re-crawl that must change nothing
                await asyncio.gather(
                    queue_every_brand(fleet, truth, window_s / 2),
                    inject(world, schedule(rng, window_s)),
                )
                if time.monotonic() - started >= soak_s:
                    break
            settle_s, counts = await settle(fleet, world, moto, bucket)
        finally:
            watcher.cancel()
        requests = list(world.balancer.log)  # stopping the fleet below cuts calls in flight
        snap = await archive_state.snapshot(fleet.dsn, moto, bucket, PREFIX, FAILURE_CAP)
        unreadable = await archive_state.unreadable(
            f"http://127.0.0.1:{fleet.backend_ports[0]}", SECRET, snap.images
        )
        fleet.stop()
        checks = evaluate(truth, snap, unreadable, requests, world)
        return Outcome(
            seed=seed,
            truth=truth,
            faults=world.records,
            checks=checks,
            snap=snap,
            requests=requests,
            unplanned=list(world.supervisor.unplanned),
            rounds=rounds,
            run_s=time.monotonic() - started,
            settle_s=settle_s,
            last_progress=counts,
        )


def evaluate(
    truth: GroundTruth,
    snap: archive_state.Snapshot,
    unreadable: list[str],
    log: list[Exchange],
    world: World,
) -> list[Check]:
    orphans, missing = invariants.objects_match_rows(snap)
    vectors, neighbours = invariants.vectors(snap)
    skew = [r for r in world.records if r.name.endswith(f"clock +{SKEW_OUT_S} s") and r.outcome]
    skewed_in = world.fleet.spiders[-1]
    refused = [
        line for line in skewed_in.log().splitlines() if "rejected the signature" in line
    ] + [u for u in world.supervisor.unplanned if u.startswith(skewed_in.name)]
    return [
        invariants.shows_exactly_once(truth, snap),
        invariants.images_as_served(truth, snap),
        invariants.missing_named(truth, snap),
        invariants.no_duplicate_rows(snap),
        Check(
            "every image readable under its key, with its thumbnail",
            not unreadable,
            invariants.sample(unreadable) or f"{len(snap.images)} images and thumbnails read",
        ),
        orphans,
        missing,
        vectors,
        neighbours,
        invariants.nothing_stuck(snap),
        invariants.attempts_explained(snap, world.interruptions),
        invariants.no_unretried_5xx(log, snap, world.supervisor.killed_pids),
        Check(
            "a clock inside the window (+200 s) is accepted",
            not refused,
            invariants.sample(refused) or f"{skewed_in.name}: no signature refused, no exit",
        ),
        Check(
            "a clock outside the window: says so and stops",
            bool(skew) and all(r.outcome.startswith("ok") for r in skew),
            f"{sum(r.outcome.startswith('ok') for r in skew)} of {len(skew)} runs: "
            + (skew[-1].outcome if skew else "none"),
        ),
    ]
