"""Neighbours placement: seconds to place 100 new 512-d vectors among N existing ones.

For each N, in the same run:

- ``floor``: one numpy matrix product of the same shapes, ``new @ existing.T``
  (100 x 512 times 512 x N, float32) — the least any exact method must spend;
- ``place``: ``rk.server.services.neighbours.Placement`` fed the existing vectors in
  blocks of ``--block`` rows, as the neighbours job streams them from the database:
  exact top-K of every new vector plus the reverse candidates for existing lists.

Times are the best of ``--repeat`` interleaved runs. Memory is the peak of numpy
allocations (tracemalloc) made by each step, not counting the existing matrix itself,
which stands in for the database. The existing lists' thresholds are the median exact
K-th score of 64 sampled existing vectors (computed before timing), so the reverse side
sees a realistic number of candidates.

``--job N`` adds the whole neighbours job on SQLite: N stored vectors with full lists,
``--new`` unplaced ones, one ``NeighboursJob.run()`` — block reads from the database,
the placement, the list rewrites and the marking, as the backend runs it. Seeding 100k
takes minutes, so ``--keep DIR`` keeps the seeded file (named after its sizes) and each
pass runs on a fresh copy of it; ``--passes`` runs the job that many times (best kept).

pgvector's rows (HNSW search and placement, recall against exact, build time, RSS) are
measured by ``bench.vectors`` on the same kind of data, next to the exact index.

    .venv/bin/python -m bench.neighbours [--sizes 100000,1000000] [--new 100] [--dim 512]
        [--job 100000] [--keep DIR] [--passes 3]
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

import numpy as np

from rk.server.services.neighbours import BLOCK_ROWS, SKIP, Placement, normalised

MiB = 1024 * 1024


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


async def run_job(dsn: str, k: int) -> tuple[float, int]:
    """(seconds, vectors placed) of one neighbours job pass."""
    from rk.server.db.engine import close, connect
    from rk.server.services.job_lock import JobLease
    from rk.server.workers.neighbours import NeighboursJob

    engine = await connect(dsn)
    try:
        job = NeighboursJob("bench", k=k, lease=JobLease("neighbours", "bench", 60), batch=1000)
        start = time.perf_counter()
        placed = await job.run()
        return time.perf_counter() - start, placed or 0
    finally:
        await close(engine)


async def run_phases(dsn: str, k: int) -> dict[str, float]:
    """Seconds of each phase of one batch, run as ``NeighboursJob.place`` runs them."""
    from rk.server.db.engine import close, connect
    from rk.server.services import neighbour_lists as nl
    from rk.server.services.neighbours import merge_list

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

    try:
        batch = await nl.next_batch("bench", 1000)
        assert batch is not None
        placement = Placement(batch.ids, batch.vectors, k)
        start, cpu[0] = time.perf_counter(), time.process_time()
        thresholds = await nl.Thresholds.load("bench", k)
        start = lap("thresholds", start)
        async for block_ids, block in nl.blocks("bench", batch.kind, batch.dim):
            start = lap("read blocks", start)
            limits = thresholds.of(block_ids)
            limits[np.isin(block_ids, batch.ids)] = SKIP
            await asyncio.to_thread(placement.add_block, block_ids, block, limits)
            start = lap("matrix", start)
        lists, reverse = placement.lists(), placement.reverse()
        start = lap("matrix", start)
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
        await close(engine)
    return times


def seed_job(path: Path, count: int, new: int, dim: int, k: int) -> None:
    """A migrated SQLite archive at ``path``: ``count`` placed vectors with full lists and
    ``new`` unplaced ones."""
    from rk.server.db.migrate import migrate

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
    db.executemany(
        "INSERT INTO image_neighbors (image_id, model, neighbor_id, rank, score)"
        " VALUES (?, 'bench', ?, ?, ?)",
        (
            (i, int(n), rank + 1, scores[rank])
            for i in range(1, count + 1)
            for rank, n in enumerate(rng.integers(1, count + 1, k))
        ),
    )
    db.commit()
    db.close()


def fresh_copy(seeded: Path, copy: Path) -> None:
    """``copy`` made from the seeded file and migrated (a file kept from an older rk runs
    this rk's later migrations, untimed)."""
    from rk.server.db.migrate import migrate

    shutil.copyfile(seeded, copy)
    asyncio.run(migrate(f"sqlite:///{copy}"))


def bench_job(
    count: int, new: int, dim: int, k: int, keep: Path | None, passes: int
) -> tuple[list[float], int, float, list[dict[str, float]]]:
    """(seconds of each pass, placed, seed seconds, per-phase seconds of each pass) of the
    job on SQLite with ``count`` placed vectors; every pass starts from a copy of the same
    seeded file, and so does each phase-timed pass after it."""
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
        times, placed = [], 0
        phases: list[dict[str, float]] = []
        for _ in range(passes):
            copy = Path(tmp) / "pass.sqlite3"
            fresh_copy(seeded_file, copy)
            seconds, placed = asyncio.run(run_job(f"sqlite:///{copy}", k))
            times.append(seconds)
            fresh_copy(seeded_file, copy)
            phases.append(asyncio.run(run_phases(f"sqlite:///{copy}", k)))
            copy.unlink()
    return times, placed, seeded, phases


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
    parser.add_argument("--passes", type=int, default=1, help="job passes (fresh copy each)")
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
        times, placed, seeded, phases = bench_job(
            args.job, args.new, args.dim, args.k, args.keep, args.passes
        )
        print(
            f"\nneighbours job on SQLite: {placed} new among {args.job:,} stored (full lists):"
            f" best {min(times):.2f} s of {' '.join(f'{t:.2f}' for t in times)}"
            f" (seeding took {seeded:.0f} s, not counted)"
        )
        for name in phases[0]:
            values = " ".join(f"{phase[name]:.2f}" for phase in phases)
            print(f"  {name:>18}: best {min(phase[name] for phase in phases):.2f} of {values}")


if __name__ == "__main__":
    main()
