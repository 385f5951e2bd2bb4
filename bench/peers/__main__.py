"""``python -m bench.peers [--quick] [--only media|queue|vectors|path]``: the peers' tables."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from bench.job_queue import DEFAULT_PG
from bench.peers import jobs, media, vectors
from bench.vector_data import start_server

PAIRS = ("media", "queue", "vectors", "path")
NOT_BUILT = (
    "path: the whole-path table (rk spider serve into a backend at 4, 16 and 64 shows) is "
    "not built yet (issue 31, item 4): no figures"
)


async def main() -> None:
    """Parse options, run each chosen pair, print its table as soon as it is done."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short pass: smaller sizes")
    parser.add_argument("--only", choices=PAIRS, help="run one pair")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each tool (≥ 3)")
    parser.add_argument("--images", type=int, help="media: photos (1,000; --quick 120)")
    parser.add_argument("--media-concurrency", type=int, default=6, help="rk media.concurrency")
    parser.add_argument("--jobs", type=int, help="queue: jobs a round (20,000; --quick 2,000)")
    parser.add_argument("--workers", type=int, default=16, help="queue: workers")
    parser.add_argument("--pg-dsn", default=DEFAULT_PG, help="queue: where to make databases")
    parser.add_argument("--vectors", type=int, help="vectors: how many (1M; --quick 100k)")
    parser.add_argument("--queries", type=int, help="vectors: queries a round (200; --quick 100)")
    parser.add_argument(
        "--exact-only",
        action="store_true",
        help="vectors: the exact table alone (no pgvector HNSW build: 1M takes ~30 min)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("/work/bench-data/pgvector"),
        help="vectors: the pgvector server and hnswlib graphs, kept for later runs",
    )
    args = parser.parse_args()
    if args.rounds < 3:
        parser.error("--rounds must be at least 3: the spread needs them")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    chosen = [args.only] if args.only else list(PAIRS)
    with tempfile.TemporaryDirectory(prefix="rk-peers-") as tmp:
        root = Path(tmp)
        if "media" in chosen:
            images = args.images or (120 if args.quick else 1000)
            table = await media.run(root / "media", images, args.rounds, args.media_concurrency)
            print(f"\n{table}\n", flush=True)
        if "queue" in chosen:
            count = args.jobs or (2000 if args.quick else 20_000)
            table = await jobs.run(args.pg_dsn, count, args.workers, args.rounds)
            print(f"\n{table}\n", flush=True)
        if "vectors" in chosen:
            size = args.vectors or (100_000 if args.quick else 1_000_000)
            admin = start_server(args.data_dir / "server")
            queries = args.queries or (100 if args.quick else 200)
            tables = await vectors.run(
                size, queries, args.rounds, admin, args.data_dir, not args.exact_only
            )
            for table in tables:
                print(f"\n{table}\n", flush=True)
    if "path" in chosen:
        print(NOT_BUILT, flush=True)
        if args.only == "path":
            raise SystemExit(1)


if __name__ == "__main__":
    asyncio.run(main())
