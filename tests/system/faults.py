"""Seeded faults and the supervisor that restarts what they kill (as systemd's
``Restart=always`` would), recording every fault and every exit nobody asked for.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import asyncpg
from asyncpg.exceptions import InternalClientError

from tests.system.balancer import Balancer
from tests.system.fleet import Fleet, RkProc
from tests.system.gate import TcpGate
from tests.system.pgcluster import PgCluster
from tests.system.site import FaultySite

RESTART_AFTER_S = 3.0
PG_DOWN_S = 10.0
S3_DOWN_S = 20.0
SITE_DOWN_S = 8.0
SKEW_IN_S = 200
SKEW_OUT_S = 400


@dataclass
class FaultRecord:
    """One injected fault: when (seconds from the start of the run) and what became of it."""

    at: float
    name: str
    lasted: float = 0.0
    outcome: str = ""


@dataclass
class Supervisor:
    """Restarts a dead supervised process ``RESTART_AFTER_S`` after it went."""

    procs: list[RkProc]
    unplanned: list[str] = field(default_factory=list)
    killed: set[str] = field(default_factory=set)
    killed_pids: set[int] = field(default_factory=set)
    _dead_since: dict[str, float] = field(default_factory=dict)

    async def run(self) -> None:
        """Watch every process until cancelled; restart the dead, note the unasked exits."""
        while True:
            now = time.monotonic()
            for proc in self.procs:
                if proc.alive():
                    self._dead_since.pop(proc.name, None)
                    continue
                if proc.name not in self._dead_since:
                    self._dead_since[proc.name] = now
                    if proc.name in self.killed:
                        self.killed.discard(proc.name)
                    else:
                        self.unplanned.append(f"{proc.name} exited: {last_line(proc)}")
                if now - self._dead_since[proc.name] >= RESTART_AFTER_S:
                    proc.start()
                    self._dead_since.pop(proc.name, None)
            await asyncio.sleep(0.25)

    def kill(self, proc: RkProc) -> None:
        """kill -9 as a fault: its exit is expected, its restart due."""
        self.killed.add(proc.name)
        if proc.alive():
            self.killed_pids.add(proc.pid)
        proc.kill9()


def last_line(proc: RkProc) -> str:
    """The last line a process wrote (its one-line error, when it exited on one)."""
    lines = [line for line in proc.log().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


@dataclass
class World:
    """Everything a fault can act on."""

    fleet: Fleet
    cluster: PgCluster
    gate: TcpGate
    site: FaultySite
    supervisor: Supervisor
    balancer: Balancer
    started: float
    records: list[FaultRecord] = field(default_factory=list)
    interruptions: int = 0

    def now(self) -> float:
        """Seconds since the system was up."""
        return time.monotonic() - self.started


Fault = Callable[[World, FaultRecord], Awaitable[None]]
AIM_S = 15.0
BUSY = {
    "spider": "SELECT COUNT(*) FROM crawl_tasks WHERE status = 'running'",
    "backend": "SELECT COUNT(*) FROM ingest_jobs WHERE status = 'processing'",
    "embed": "SELECT COUNT(*) FROM images i WHERE embed_leased_until > $1 AND NOT EXISTS"
    " (SELECT 1 FROM image_embeddings e WHERE e.image_id = i.id)",
}


async def busy(dsn: str, what: str) -> bool:
    """Whether work of this kind is in flight (a crawl, an ingest job, an embedding lease)."""
    sql = BUSY[what]
    try:
        conn = await asyncpg.connect(dsn, timeout=2)
    except (OSError, asyncpg.PostgresError):
        return False
    try:
        args = (int(time.time()),) if "$1" in sql else ()
        return bool(await conn.fetchval(sql, *args))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, InternalClientError):
        return False  # the database went away mid-question (the PostgreSQL fault): not busy
    finally:
        conn.terminate()  # never raises, even on a connection the outage broke


def kill(pick: Callable[[World], RkProc]) -> Fault:
    """kill -9, aimed: up to ``AIM_S`` later, at a moment the process has work in hand."""

    async def fault(world: World, record: FaultRecord) -> None:
        proc = pick(world)
        kind = proc.name.split("-")[0]
        aimed = False
        for _ in range(int(AIM_S / 0.2)):
            if await busy(world.fleet.dsn, kind):
                aimed = True
                break
            await asyncio.sleep(0.2)
        record.name = f"kill -9 {proc.name}, restarted after {RESTART_AFTER_S:g} s"
        record.at = world.now()
        record.outcome = (
            "killed with work in hand" if aimed else f"killed idle (none in {AIM_S:g} s)"
        )
        world.supervisor.kill(proc)
        if proc.name.startswith("spider"):
            world.interruptions += 1

    return fault


async def pg_stop(world: World, record: FaultRecord) -> None:
    record.name = f"PostgreSQL stopped for {PG_DOWN_S:g} s"
    world.interruptions += 2
    await asyncio.to_thread(world.cluster.stop, "fast")
    await asyncio.sleep(PG_DOWN_S)
    await asyncio.to_thread(world.cluster.start)
    record.outcome = "stopped, started again"


async def s3_down(world: World, record: FaultRecord) -> None:
    record.name = f"S3 unreachable for {S3_DOWN_S:g} s"
    world.gate.down()
    await asyncio.sleep(S3_DOWN_S)
    world.gate.up()
    record.outcome = "connections refused, then let through again"


def site_outage(status: int) -> Fault:
    async def fault(world: World, record: FaultRecord) -> None:
        extra = " with Retry-After: 2" if status == 429 else ""
        record.name = f"site answers {status}{extra} for {SITE_DOWN_S:g} s"
        before = world.site.outage_answers
        world.site.outage(status, SITE_DOWN_S)
        await asyncio.sleep(SITE_DOWN_S)
        record.outcome = f"{world.site.outage_answers - before} requests answered {status}"

    return fault


async def skew_in_window(world: World, record: FaultRecord) -> None:
    """Restart the second spider with its clock +200 s (inside the signature window)."""
    proc = world.fleet.spiders[-1]
    record.name = f"{proc.name} restarted with its clock +{SKEW_IN_S} s"
    world.interruptions += 1
    proc.skew_s = SKEW_IN_S
    world.supervisor.kill(proc)
    record.outcome = "restarted skewed (its signatures are checked among the invariants)"


CLOCK_LINE = re.compile(r"this machine.s clock is [+-]\d+ s off")


async def skew_out_of_window(world: World, record: FaultRecord) -> None:
    """A third spider, clock +400 s: it must say its clock is off and stop, not loop."""
    record.name = f"a spider started with its clock +{SKEW_OUT_S} s"
    proc = world.fleet.spider("spider-skewed", skew_s=SKEW_OUT_S).start()
    for _ in range(240):  # 60 s
        if not proc.alive():
            break
        await asyncio.sleep(0.25)
    if proc.alive():
        proc.kill9()
        record.outcome = "FAIL: still running after 60 s"
        return
    said = last_line(proc)
    claimed = "claimed task" in proc.log()
    verdict = "ok" if CLOCK_LINE.search(said) and not claimed and proc.popen else "FAIL"
    code = proc.popen.returncode if proc.popen else None
    record.outcome = f"{verdict}: exit {code}: {said}"


def embedder(world: World) -> RkProc:
    """The embed worker (started before any fault)."""
    assert world.fleet.embedder is not None
    return world.fleet.embedder


def schedule(rng: random.Random, window_s: float) -> list[tuple[float, Fault]]:
    """Every fault once, each at a random moment of the window."""
    backend = rng.randrange(2)
    faults: list[Fault] = [
        kill(lambda w: w.fleet.spiders[0]),
        kill(lambda w: w.fleet.backends[backend]),
        kill(embedder),
        pg_stop,
        s3_down,
        site_outage(429),
        site_outage(503),
        skew_in_window,
        skew_out_of_window,
    ]
    return sorted(((rng.uniform(2, window_s), f) for f in faults), key=lambda p: p[0])


async def inject(world: World, plan: list[tuple[float, Fault]]) -> None:
    """Run the plan: each fault at its moment (from now), recorded as it happens."""
    base = time.monotonic()

    async def one(at: float, fault: Fault) -> None:
        await asyncio.sleep(max(0.0, base + at - time.monotonic()))
        record = FaultRecord(at=world.now(), name="")
        world.records.append(record)
        await fault(world, record)
        record.lasted = world.now() - record.at  # an aimed kill moves ``at`` to the kill

    await asyncio.gather(*(one(at, fault) for at, fault in plan))
