"""Neighbours placement: seconds to place 100 new 512-d vectors among N existing ones.

For each N, in the same run:

- ``floor``: one numpy matrix product of the same shapes, ``new @ existing.T``
  (100 x 512 times 512 x N, float32) — the least any exact method must spend;
- ``place``: ``rk.server.similarity.neighbours.Placement`` fed the existing vectors in
  blocks of ``--block`` rows, as the neighbours job streams them from the database:
  exact top-K of every new vector plus the reverse candidates for existing lists.

Times are the best of ``--repeat`` interleaved runs. Memory is the peak of numpy
allocations (tracemalloc) made by each step, not counting the existing matrix itself,
which stands in for the database. The existing lists' thresholds are the median exact
K-th score of 64 sampled existing vectors (computed before timing), so the reverse side
sees a realistic number of candidates.

``--job N`` adds the whole neighbours job on SQLite: N stored vectors with full lists,
``--new`` unplaced ones, and ``NeighboursJob.run()`` as the backend runs it — the placement
(the exact index reads every stored vector on a process's first job and keeps them; later
jobs read only what changed), the list rewrites and the marking. One process runs the
first job, then ``--later`` more, each after ``--new`` more unplaced vectors were written
through a connection of their own (untimed), as another process's saves are: wall and CPU
seconds (every thread) of each, and whether it read the lists' thresholds (the first job
does; a later one holds them from its own writes, ``neighbour_thresholds``). Seeding 100k
takes a minute (1M about ten), so ``--keep DIR`` keeps the seeded file (named after its
sizes) and each pass runs on a fresh copy of it; ``--passes`` runs that many processes.
``--phases`` adds, per pass, the seconds of each phase of one batch on another fresh copy.

pgvector's rows (HNSW search and placement, recall against exact, build time, RSS) are
measured by ``bench.vectors`` on the same kind of data, next to the exact index.

    .venv/bin/python -m bench.neighbours [--sizes 100000,1000000] [--new 100] [--dim 512]
        [--job 100000] [--later 3] [--keep DIR] [--passes 3] [--phases]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import shutil
import sqlite3
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from rk.server.similarity.neighbours import BLOCK_ROWS, SKIP, Placement, normalised

MiB = 1024 * 1024


class Job(NamedTuple):
    """One neighbours job: wall and CPU seconds (every thread), vectors placed, and how many
    times it read the lists' thresholds from the database (not when it held them)."""

    wall: float
    cpu: float
    placed: int
    reads: int


def measure(step: Callable[[], object]) -> tuple[float, float]:
    """(seconds, peak MiB of new allocations) of one call."""
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    step()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / MiB


def existing_vectors(count: int, dim: int, seed: int) -> np.ndarray:
    """``count`` unit vectors, made in chunks so the float64 temporaries stay small."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, dim), dtype=np.float32)
    for lo in range(0, count, 65536):
        hi = min(count, lo + 65536)
        out[lo:hi] = normalised(rng.standard_normal((hi - lo, dim), dtype=np.float32))
    return out


def typical_threshold(base: np.ndarray, k: int, seed: int) -> float:
    """The median exact K-th best score of 64 sampled existing vectors."""
    rng = np.random.default_rng(seed)
    sample = base[rng.choice(len(base), 64, replace=False)]
    scores = sample @ base.T
    kth = np.partition(scores, -(k + 1), axis=1)[:, -(k + 1)]  # +1: each finds itself
    return float(np.median(kth))


def bench_size(count: int, new: int, dim: int, k: int, block: int, repeat: int) -> dict[str, float]:
    """Figures for one size of the existing set."""
    base = existing_vectors(count, dim, seed=count)
    fresh = existing_vectors(new, dim, seed=count + 1)
    fresh_ids = np.arange(count + 1, count + new + 1, dtype=np.int64)
    base_ids = np.arange(1, count + 1, dtype=np.int64)
    threshold = typical_threshold(base, k, seed=7)
    thresholds = np.full(count, threshold, dtype=np.float32)

    result: dict[str, Placement] = {}

    def place() -> None:
        placement = Placement(fresh_ids, fresh, k)
        for lo in range(0, count, block):
            hi = min(count, lo + block)
            placement.add_block(base_ids[lo:hi], base[lo:hi], thresholds[lo:hi])
        placement.add_block(fresh_ids, fresh, np.full(new, SKIP, dtype=np.float32))
        placement.lists()
        result["placement"] = placement

    floors, places = [], []
    for _ in range(repeat):  # interleaved, best of each: the machine is shared
        floors.append(measure(lambda: fresh @ base.T))
        places.append(measure(place))
    floor_s, floor_mib = min(floors)
    place_s, place_mib = min(places)
    reverse = result["placement"].reverse()
    return {
        "floor_s": floor_s,
        "floor_mib": floor_mib,
        "place_s": place_s,
        "place_mib": place_mib,
        "lists_changed": float(len(reverse)),
        "base_mib": base.nbytes / MiB,
    }


def add_unplaced(path: Path, first_id: int, new: int, dim: int) -> None:
    """``new`` more images with unplaced vectors, from ``first_id``, committed through a
    connection of their own."""
    vectors = existing_vectors(new, dim, seed=first_id)
    ids = range(first_id, first_id + new)
    db = sqlite3.connect(path, timeout=30)
    db.executemany(
        "INSERT INTO images (id, article_id, role, position, kind, key)"
        " VALUES (?, 1, 'look', ?, 'runway', ?)",
        ((i, i, f"runway/{i}.jpg") for i in ids),
    )
    db.executemany(
        "INSERT INTO image_embeddings (image_id, model, kind, dim, vector, created_at,"
        " neighbours_at) VALUES (?, 'bench', 'runway', ?, ?, 0, 0)",
        ((i, dim, vectors[n].astype("<f4").tobytes()) for n, i in enumerate(ids)),
    )
    db.commit()
    db.close()


async def run_jobs(path: Path, stored: int, new: int, dim: int, k: int, later: int) -> list[Job]:
    """One process: the first job, then ``later`` jobs each after ``new`` more vectors."""
    from rk.server.platform.db.engine import close, connect
    from rk.server.platform.jobs.job_lock import JobLease
    from rk.server.similarity.neighbour_thresholds import HELD
    from rk.server.similarity.neighbours_job import NeighboursJob

    engine = await connect(f"sqlite:///{path}")
    jobs: list[Job] = []
    try:
        job = NeighboursJob("bench", k=k, lease=JobLease("neighbours", "bench", 60), batch=1000)
        for n in range(later + 1):
            if n:
                add_unplaced(path, stored + n * new + 1, new, dim)
            start, cpu, reads = time.perf_counter(), time.process_time(), HELD.loads
            placed = await job.run() or 0
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            jobs.append(Job(wall, cpu, placed, HELD.loads - reads))
    finally:
        await close(engine)
    return jobs


async def run_phases(dsn: str, k: int) -> dict[str, float]:
    """Seconds of each phase of one batch, run as ``NeighboursJob.place`` runs them; the
    placement twice, the first loading the stored vectors, the second as later jobs run."""
    from rk.core.config import VectorSettings
    from rk.server.platform.db.engine import close, connect
    from rk.server.similarity import neighbour_lists as nl
    from rk.server.similarity.neighbours import merge_list
    from rk.server.similarity.vectors.exact import ExactIndex

    engine = await connect(dsn)
    times: dict[str, float] = {}
    cpu = [time.process_time()]

    def lap(name: str, start: float) -> float:
        """Add the wall seconds since ``start`` and the process CPU seconds (every
        thread: readers, writer, numpy) since the last lap to phase ``name``."""
        now, now_cpu = time.perf_counter(), time.process_time()
        times[name] = times.get(name, 0.0) + now - start
        times[f"{name} cpu"] = times.get(f"{name} cpu", 0.0) + now_cpu - cpu[0]
        cpu[0] = now_cpu
        return now

    index = ExactIndex(VectorSettings())
    try:
        batch = await nl.next_batch("bench", 1000)
        assert batch is not None
        start, cpu[0] = time.perf_counter(), time.process_time()
        await index.place("bench", batch.kind, batch.ids, batch.vectors, k)
        start = lap("place, first", start)
        placed = await index.place("bench", batch.kind, batch.ids, batch.vectors, k)
        start = lap("place, later", start)
        lists, reverse = dict(placed.lists), placed.reverse
        current = await nl.load_lists("bench", sorted(reverse))
        for owner, candidates in reverse.items():
            merged = merge_list(current[owner], candidates, k)
            if merged != current[owner]:
                lists[owner] = merged
        start = lap("load lists", start)
        async with nl.place_transaction():
            await nl.write_lists("bench", lists, current)
            start = lap("write lists", start)
            await nl.mark_placed("bench", batch.rows)
        lap("mark, commit", start)
        times["lists written"] = len(lists)
    finally:
        await index.close()
        await close(engine)
    return times


def seed_job(path: Path, count: int, new: int, dim: int, k: int) -> None:
    """A migrated SQLite archive at ``path``: ``count`` placed vectors with full lists and
    ``new`` unplaced ones."""
    from rk.server.platform.db.migrate import migrate

    base = existing_vectors(count + new, dim, seed=5)
    threshold = typical_threshold(base[:count], k, seed=3)
    rng = np.random.default_rng(9)
    asyncio.run(migrate(f"sqlite:///{path}"))
    db = sqlite3.connect(path)
    # the images the vectors belong to: list rows refer to them (foreign keys)
    db.execute("INSERT INTO articles (id, source, show_key, kind) VALUES (1, 'b', 'b', 'runway')")
    db.executemany(
        "INSERT INTO images (id, article_id, role, position, kind, key)"
        " VALUES (?, 1, 'look', ?, 'runway', ?)",
        ((i, i, f"runway/{i}.jpg") for i in range(1, count + new + 1)),
    )
    db.executemany(
        "INSERT INTO image_embeddings (image_id, model, kind, dim, vector, created_at,"
        " neighbours_at) VALUES (?, 'bench', 'runway', ?, ?, 0, ?)",
        (
            (i + 1, dim, base[i].astype("<f4").tobytes(), 1 if i < count else 0)
            for i in range(count + new)
        ),
    )
    scores = np.linspace(threshold + 0.2, threshold, k).tolist()
    # the list rows go in with their table's indexes dropped and built again after (sorted
    # once instead of 20 × count random B-tree inserts: at 1M it ran past 17 minutes)
    indexes = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
        " AND tbl_name = 'image_neighbors' AND sql IS NOT NULL"
    ).fetchall()
    db.execute("PRAGMA cache_size = -1048576")
    for name, _ in indexes:
        db.execute(f"DROP INDEX {name}")
    db.executemany(
        "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
        " VALUES (?, 'bench', ?, ?, ?)",
        (
            (i, int(n), rank + 1, scores[rank])
            for i in range(1, count + 1)
            for rank, n in enumerate(rng.integers(1, count + 1, k))
        ),
    )
    for _, sql in indexes:
        db.execute(sql)
    db.commit()
    db.close()


def fresh_copy(seeded: Path, copy: Path) -> None:
    """``copy`` made from the seeded file and migrated (a file kept from an older rk runs
    this rk's later migrations, untimed)."""
    from rk.server.platform.db.migrate import migrate

    shutil.copyfile(seeded, copy)
    asyncio.run(migrate(f"sqlite:///{copy}"))


def bench_job(
    count: int, new: int, dim: int, k: int, keep: Path | None, passes: int, later: int, phases: bool
) -> tuple[list[list[Job]], float, list[dict[str, float]]]:
    """(the jobs of each pass, seed seconds, per-phase seconds of each pass) on SQLite with
    ``count`` placed vectors; every pass (and phase-timed pass) starts from a copy of the
    same seeded file."""
    with tempfile.TemporaryDirectory() as tmp:
        seeded_file = (keep or Path(tmp)) / f"neighbours-{count}-{new}-{dim}-{k}.sqlite3"
        seeded = 0.0
        if not seeded_file.exists():
            start = time.perf_counter()
            partial = seeded_file.with_suffix(".partial")
            partial.unlink(missing_ok=True)
            seed_job(partial, count, new, dim, k)
            partial.rename(seeded_file)
            seeded = time.perf_counter() - start
        runs: list[list[Job]] = []
        timed: list[dict[str, float]] = []
        copy = Path(tmp) / "pass.sqlite3"
        for _ in range(passes):
            fresh_copy(seeded_file, copy)
            runs.append(asyncio.run(run_jobs(copy, count, new, dim, k, later)))
            if phases:
                fresh_copy(seeded_file, copy)
                timed.append(asyncio.run(run_phases(f"sqlite:///{copy}", k)))
            copy.unlink()
    return runs, seeded, timed


def main() -> None:
    """Run the sizes asked for and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--new", type=int, default=100)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--block", type=int, default=BLOCK_ROWS)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--job", type=int, default=0, help="also time the job on SQLite")
    parser.add_argument("--keep", type=Path, help="folder keeping the seeded job archive")
    parser.add_argument("--passes", type=int, default=1, help="job processes (fresh copy each)")
    parser.add_argument("--later", type=int, default=3, help="jobs after the first, per process")
    parser.add_argument("--phases", action="store_true", help="also time one batch's phases")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(
        f"new={args.new} dim={args.dim} k={args.k} block={args.block} "
        f"repeat={args.repeat} numpy={np.__version__} float32"
    )
    header = (
        f"{'existing':>10} {'floor s':>8} {'place s':>8} {'ratio':>6} "
        f"{'floor MiB':>10} {'place MiB':>10} {'lists changed':>14} {'vectors MiB':>12}"
    )
    print(header)
    print("-" * len(header))
    for count in sizes:
        row = bench_size(count, args.new, args.dim, args.k, args.block, args.repeat)
        print(
            f"{count:>10,} {row['floor_s']:>8.2f} {row['place_s']:>8.2f} "
            f"{row['place_s'] / row['floor_s']:>6.2f} {row['floor_mib']:>10.1f} "
            f"{row['place_mib']:>10.1f} {int(row['lists_changed']):>14,} "
            f"{row['base_mib']:>12.0f}"
        )

    if args.job:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
        runs, seeded, phases = bench_job(
            args.job, args.new, args.dim, args.k, args.keep, args.passes, args.later, args.phases
        )
        print(
            f"\nneighbours job on SQLite: {args.new} new among {args.job:,} stored (full lists),"
            f" {args.passes} process(es); seeding took {seeded:.0f} s, not counted"
        )
        print(
            f"{'process':>8} {'job':>4} {'placed':>7} {'wall s':>7} {'cpu s':>6}"
            f" {'threshold reads':>16}"
        )
        for n, jobs in enumerate(runs, start=1):
            for number, job in enumerate(jobs, start=1):
                which = "first" if number == 1 else str(number)
                print(
                    f"{n:>8} {which:>5} {job.placed:>7} {job.wall:>7.2f} {job.cpu:>6.2f}"
                    f" {job.reads:>16}"
                )
        for name in phases[0] if phases else []:
            values = " ".join(f"{phase[name]:.2f}" for phase in phases)
            print(f"  {name:>18}: best {min(phase[name] for phase in phases):.2f} of {values}")


if __name__ == "__main__":
    main()
