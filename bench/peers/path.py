"""The whole path at N shows: crawl a Vogue-shaped site through ``rk spider serve`` into a
backend until every image is stored with its thumbnail and renditions and embedded (its
neighbours placed), at each N; images/s end to end and where the time went.

Where the time went comes from what the parts already expose: the CPU each process used
(``/proc``: the spider's covers crawling, downloading, thumbnails and uploads, which it
does not time apart; the backend's covers the upload route, the ingest jobs, the renditions,
the embed API and the neighbours), and the database rows' own times (unix seconds): when
the crawl tasks, ingest jobs, rendition ladders, embeddings and neighbours were done,
counted from the workers' start. A cost that grows with N shows as a CPU s/image that grows
down its column.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from bench.peers.path_fleet import (
    Parts,
    bench_truth,
    load_average,
    queue_crawls,
    start_workers,
    started,
)

SETTLE_S = 3600.0
"""Bounds a stuck run only."""

SETTLED = """
    SELECT
      (SELECT COUNT(*) FROM crawl_tasks WHERE status IN ('queued', 'running')) AS tasks,
      (SELECT COUNT(*) FROM ingest_jobs WHERE status IN ('pending', 'processing')) AS jobs,
      (SELECT COUNT(*) FROM images WHERE key <> '' AND thumb_key <> '') AS stored,
      (SELECT COUNT(DISTINCT i.key) FROM images i WHERE i.key <> '' AND NOT EXISTS
         (SELECT 1 FROM image_renditions r WHERE r.key = i.key)) AS no_ladder,
      (SELECT COUNT(*) FROM images i WHERE i.key <> '' AND NOT EXISTS
         (SELECT 1 FROM image_embeddings e WHERE e.image_id = i.id)) AS unembedded,
      (SELECT COUNT(*) FROM image_embeddings WHERE neighbours_at = 0) AS unplaced"""

STAGES = {
    "crawl task (claim → shows sent)": (
        "SELECT MIN(locked_at) AS first, MAX(updated_at) AS last,"
        " SUM(updated_at - locked_at) AS busy FROM crawl_tasks"
    ),
    "ingest job (claim → done)": (
        "SELECT MIN(locked_at) AS first, MAX(updated_at) AS last,"
        " SUM(updated_at - locked_at) AS busy FROM ingest_jobs"
    ),
    "ingest job wait (queued → claimed)": (
        "SELECT MIN(created_at) AS first, MAX(locked_at) AS last,"
        " SUM(locked_at - created_at) AS busy FROM ingest_jobs"
    ),
    "renditions (ladder made)": (
        "SELECT MIN(made_at) AS first, MAX(made_at) AS last, NULL AS busy FROM image_renditions"
    ),
    "embedding (vector saved)": (
        "SELECT MIN(created_at) AS first, MAX(created_at) AS last, NULL AS busy"
        " FROM image_embeddings"
    ),
    "neighbours (placed)": (
        "SELECT MIN(neighbours_at) AS first, MAX(neighbours_at) AS last, NULL AS busy"
        " FROM image_embeddings"
    ),
}


@dataclass
class Size:
    """One N's run: images, wall seconds, CPU seconds by role, stage times, load."""

    shows: int
    images: int = 0
    seconds: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    stages: dict[str, tuple[float, float, float | None]] = field(default_factory=dict)
    load: tuple[float, float] = (0.0, 0.0)

    @property
    def rate(self) -> float:
        """Images per second, end to end."""
        return self.images / self.seconds


async def _counts(dsn: str) -> dict[str, int]:
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        row = await conn.fetchrow(SETTLED)
    finally:
        await conn.close()
    return {key: int(value) for key, value in row.items()}


async def _stages(dsn: str, t0: int) -> dict[str, tuple[float, float, float | None]]:
    """Each stage's first and last time (s after ``t0``) and summed busy seconds."""
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        found = {name: await conn.fetchrow(sql) for name, sql in STAGES.items()}
    finally:
        await conn.close()
    return {
        name: (
            float(row["first"] - t0),
            float(row["last"] - t0),
            None if row["busy"] is None else float(row["busy"]),
        )
        for name, row in found.items()
    }


async def settle(parts: Parts, expected: int) -> None:
    """Return once every expected image is stored, laddered, embedded and placed, with no
    task nor job left open."""
    began = time.perf_counter()
    while time.perf_counter() - began < SETTLE_S:
        counts = await _counts(parts.fleet.dsn)
        done = counts.pop("stored") >= expected and not any(counts.values())
        if done:
            return
        for proc in parts.fleet.all():
            if not proc.alive():
                raise RuntimeError(f"{proc.name} exited; see {proc.log_path}")
        await asyncio.sleep(0.25)
    raise RuntimeError(f"not settled within {SETTLE_S:.0f} s: {counts}")


async def one_size(
    root: Path, shows: int, looks: int, details: int, photo: tuple[int, int]
) -> Size:
    """Everything of ``shows`` shows through the path, timed from the operator's one
    ``rk crawl batch`` (the workers already up and idle) until settled."""
    truth = bench_truth(shows, looks, details)
    expected = shows * (looks + details)
    async with started(root, truth, photo) as parts:
        size = Size(shows, images=expected)
        await asyncio.to_thread(start_workers, parts)
        load0 = load_average()
        cpu0 = parts.cpu()
        t0, began = int(time.time()), time.perf_counter()
        await asyncio.to_thread(queue_crawls, parts.fleet, truth)
        await settle(parts, expected)
        size.seconds = time.perf_counter() - began
        cpu1 = parts.cpu()
        size.cpu = {role: cpu1[role] - cpu0.get(role, 0.0) for role in cpu1}
        size.stages = await _stages(parts.fleet.dsn, t0)
        size.load = (load0, load_average())
    return size


def render(sizes: list[Size], looks: int, details: int, photo: tuple[int, int]) -> str:
    """The two tables: throughput and CPU per image by process, then the stages' times."""
    head = " | ".join(f"N = {s.shows}" for s in sizes)
    rule = "|---|" + "---:|" * len(sizes)
    lines = [
        f"path: N shows of {looks} looks + {details} details ({photo[0]}×{photo[1]} JPEGs) "
        "crawled by one `rk spider serve` into one backend (file storage, PostgreSQL), "
        "embedded by one `rk spider embed` (tiny CLIP)",
        "",
        f"| | {head} |",
        rule,
        "| images | " + " | ".join(f"{s.images:,}" for s in sizes) + " |",
        "| seconds, crawls queued → settled | "
        + " | ".join(f"{s.seconds:.1f}" for s in sizes)
        + " |",
        "| images/s end to end | " + " | ".join(f"{s.rate:.2f}" for s in sizes) + " |",
        "| load average, start–end | "
        + " | ".join(f"{s.load[0]:.1f}–{s.load[1]:.1f}" for s in sizes)
        + " |",
    ]
    for role in sizes[0].cpu:
        cells = " | ".join(f"{s.cpu[role] / s.images * 1e3:.1f}" for s in sizes)
        lines.append(f"| CPU ms/image: {role} | {cells} |")
    total = " | ".join(f"{sum(s.cpu.values()) / s.images * 1e3:.1f}" for s in sizes)
    lines += [f"| CPU ms/image: all | {total} |", "", f"| stage (s after start) | {head} |", rule]
    for stage in STAGES:
        cells = []
        for s in sizes:
            first, last, busy = s.stages[stage]
            spent = "" if busy is None else f", {busy / s.images * 1e3:.0f} ms/img busy"
            cells.append(f"{first:.0f}–{last:.0f}{spent}")
        lines.append(f"| {stage} | {' | '.join(cells)} |")
    per_image = [sum(s.cpu.values()) / s.images for s in sizes]
    lines += ["", f"CPU per image, largest N ÷ smallest: {per_image[-1] / per_image[0]:.2f}x"]
    return "\n".join(lines)


async def run(
    root: Path, shows: list[int], looks: int, details: int, photo: tuple[int, int]
) -> str:
    """Each N in turn (a fresh database and fleet each), then the tables."""
    sizes = [await one_size(root / f"n{n}", n, looks, details, photo) for n in shows]
    return render(sizes, looks, details, photo)
