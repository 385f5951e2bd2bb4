"""``python -m bench.peers [--quick] [--only media|queue|vectors|path]``: the peers' tables."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from bench.job_queue import DEFAULT_PG
from bench.peers import jobs, media, path, thumb_libs, vectors
from bench.vector_data import add_server_options, server_of

PAIRS = ("media", "queue", "vectors", "path")


def sizes(text: str) -> list[int]:
    """``4,16,64`` → [4, 16, 64]."""
    return [int(part) for part in text.split(",")]


def photo_size(text: str) -> tuple[int, int]:
    """``640x960`` → (640, 960)."""
    width, height = text.lower().split("x")
    return int(width), int(height)


async def main() -> None:
    """Parse options, run each chosen pair, print its table as soon as it is done."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short pass: smaller sizes")
    parser.add_argument("--only", choices=PAIRS, help="run one pair")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each tool (≥ 3)")
    parser.add_argument("--images", type=int, help="media: photos (1,000; --quick 120)")
    parser.add_argument("--media-concurrency", type=int, default=6, help="rk media.concurrency")
    parser.add_argument(
        "--thumb-images", type=int, help="media: photos for the thumbnail makers (200; --quick 60)"
    )
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
    add_server_options(parser)
    parser.add_argument("--path-shows", type=sizes, help="path: Ns (4,16,64; --quick 4,16)")
    parser.add_argument("--path-looks", type=int, default=12, help="path: looks a show")
    parser.add_argument("--path-details", type=int, default=2, help="path: details a show")
    parser.add_argument(
        "--path-photo", type=photo_size, default=(640, 960), help="path: photo size WxH"
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
            thumbs = args.thumb_images or (60 if args.quick else 200)
            table = thumb_libs.run(root / "thumb-libs", thumbs, args.rounds)
            print(f"\n{table}\n", flush=True)
        if "queue" in chosen:
            count = args.jobs or (2000 if args.quick else 20_000)
            table = await jobs.run(args.pg_dsn, count, args.workers, args.rounds)
            print(f"\n{table}\n", flush=True)
        if "vectors" in chosen:
            size = args.vectors or (100_000 if args.quick else 1_000_000)
            admin = server_of(args, args.data_dir)
            queries = args.queries or (100 if args.quick else 200)
            tables = await vectors.run(
                size, queries, args.rounds, admin, args.data_dir, not args.exact_only
            )
            for table in tables:
                print(f"\n{table}\n", flush=True)
        if "path" in chosen:
            shows = args.path_shows or ([4, 16] if args.quick else [4, 16, 64])
            table = await path.run(
                root / "path", shows, args.path_looks, args.path_details, args.path_photo
            )
            print(f"\n{table}\n", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
