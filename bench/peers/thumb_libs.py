"""Thumbnail decoders against Pillow (issue 31): CPU a thumbnail, thumbnails/s, bytes, PSNR.

``python -m bench.peers.thumb_libs [--quick] [--images N] [--rounds R]``, and a table of
``python -m bench.peers --only media``. The media bench's photos (``write_set``, 1280×1920)
go through each maker of ``thumb_makers`` each round, the makers taken in turn: once on
one thread (CPU ms a thumbnail from ``time.process_time``, every thread of the process,
libvips' included; thumbnails/s) and once in a pool of rk's size (one thread per core).
Every thumbnail must have the size Pillow's has; PSNR is against ``full_decode`` (full
decode, Lanczos). A maker "clearly wins" at ≥ 20 % less CPU a thumbnail than Pillow's and a
PSNR within 0.3 dB of Pillow's.
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from bench.peers.thumb_makers import PILLOW, Maker, makers
from bench.spider_media import write_set
from bench.thumb_quality import SIDE, full_decode, psnr_db
from rk.core.runtime.thumbs import pool_size

SIZE = (1280, 1920)
LESS_CPU = 0.20
"""The CPU a thumbnail a maker must save over Pillow's to clearly win."""
PSNR_SLACK_DB = 0.3
"""How far below Pillow's PSNR a maker may be and still clearly win."""


@dataclass
class Row:
    """One maker's rounds: CPU ms a thumbnail, thumbnails/s on one thread and in the pool."""

    label: str
    cpu_ms: list[float] = field(default_factory=list)
    one_thread: list[float] = field(default_factory=list)
    pooled: list[float] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)
    mean_bytes: float = 0.0
    psnr_db: float = 0.0

    def cpu(self) -> float:
        """The median round's CPU ms a thumbnail."""
        return statistics.median(self.cpu_ms)


def one_pass(make: Maker, photos: list[bytes]) -> tuple[list[bytes], float, float]:
    """Every photo's thumbnail on this thread: (thumbnails, CPU ms each, thumbnails/s)."""
    wall, cpu = time.perf_counter(), time.process_time()
    made = [make(data) for data in photos]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return made, cpu / len(photos) * 1e3, len(photos) / wall


def pool_pass(make: Maker, photos: list[bytes], pool: ThreadPoolExecutor) -> float:
    """Every photo's thumbnail in ``pool``: thumbnails/s."""
    wall = time.perf_counter()
    list(pool.map(make, photos))
    return len(photos) / (time.perf_counter() - wall)


def size_of(made: bytes) -> tuple[int, int]:
    """A JPEG's width and height."""
    with Image.open(io.BytesIO(made)) as img:
        return img.size


def measure(photos: list[bytes], rounds: int, threads: int) -> dict[str, Row | None]:
    """Each installed maker's rounds, taken in turn, and its output's sizes, bytes and PSNR
    against ``full_decode``; None for a maker whose library is not installed."""
    chosen = makers()
    rows = {label: Row(label) if make else None for label, make in chosen.items()}
    outputs: dict[str, list[bytes]] = {}
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="thumb-libs") as pool:
        for _ in range(rounds):
            for label, make in chosen.items():
                row = rows[label]
                if make is None or row is None:
                    continue
                made, cpu_ms, rate = one_pass(make, photos)
                row.cpu_ms.append(cpu_ms)
                row.one_thread.append(rate)
                row.pooled.append(pool_pass(make, photos, pool))
                outputs[label] = made
    references = [full_decode(data, SIDE) for data in photos]
    for label, made in outputs.items():
        row = rows[label]
        assert row is not None
        row.sizes = [size_of(thumb) for thumb in made]
        row.mean_bytes = statistics.mean(map(len, made))
        row.psnr_db = statistics.mean(map(psnr_db, made, references))
    pillow = rows[PILLOW]
    assert pillow is not None
    for row in rows.values():
        assert row is None or row.sizes == pillow.sizes, f"{row.label}: not Pillow's sizes"
    return rows


def wins(row: Row, pillow: Row) -> bool:
    """≥ 20 % less CPU a thumbnail than Pillow's, the same sizes, PSNR within 0.3 dB."""
    return (
        row.cpu() <= (1 - LESS_CPU) * pillow.cpu()
        and row.sizes == pillow.sizes
        and row.psnr_db >= pillow.psnr_db - PSNR_SLACK_DB
    )


def verdict(rows: dict[str, Row | None]) -> str:
    """Which makers clearly win over Pillow, if any."""
    pillow = rows[PILLOW]
    assert pillow is not None
    winners = [row for row in rows.values() if row and row is not pillow and wins(row, pillow)]
    rule = "≥ 20 % less CPU a thumbnail, same size, PSNR within 0.3 dB of Pillow's"
    if not winners:
        return f"verdict: none clearly wins ({rule}): keep Pillow"
    best = min(winners, key=Row.cpu)
    saved = 1 - best.cpu() / pillow.cpu()
    return (
        f"verdict: {best.label} clearly wins ({rule}): "
        f"{saved:.0%} less CPU, PSNR {best.psnr_db - pillow.psnr_db:+.2f} dB"
    )


def render(title: str, rows: dict[str, Row | None], threads: int) -> str:
    """The table as Markdown, then the verdict line."""
    head = [
        "maker",
        "CPU ms/thumb (median)",
        "min–max",
        "thumbs/s, 1 thread",
        f"thumbs/s, pool of {threads}",
        "size as Pillow's",
        "mean kB",
        "PSNR dB vs full decode",
        "CPU ÷ Pillow's",
    ]
    lines = [title, "", "| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    pillow = rows[PILLOW]
    assert pillow is not None
    for label, row in rows.items():
        if row is None:
            lines.append(f"| {label} | not installed |" + " |" * (len(head) - 2))
            continue
        cells = [
            label,
            f"{row.cpu():.2f}",
            f"{min(row.cpu_ms):.2f}–{max(row.cpu_ms):.2f}",
            f"{statistics.median(row.one_thread):.0f}",
            f"{statistics.median(row.pooled):.0f}",
            "yes" if row.sizes == pillow.sizes else "NO",
            f"{row.mean_bytes / 1e3:.1f}",
            f"{row.psnr_db:.2f}",
            f"{row.cpu() / pillow.cpu():.2f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", verdict(rows)]
    return "\n".join(lines)


def run(root: Path, count: int, rounds: int, size: tuple[int, int] = SIZE) -> str:
    """The media bench's ``count`` photos of ``size`` through every maker; the table."""
    root.mkdir(parents=True, exist_ok=True)
    photos = list(write_set(root, "p", count, size).values())
    threads = pool_size()
    rows = measure(photos, rounds, threads)
    mean_kb = statistics.mean(map(len, photos)) / 1e3
    title = (
        f"thumbnail makers: {count} JPEGs {size[0]}×{size[1]} (mean {mean_kb:.0f} kB) → "
        f"{SIDE} px shortest side, {rounds} rounds, makers in turn; libvips concurrency 1, "
        "cache off"
    )
    return render(title, rows, threads)


def main() -> None:
    """Parse options, run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="60 photos instead of 200")
    parser.add_argument("--images", type=int, help="photos (200; --quick 60)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each maker (≥ 3)")
    args = parser.parse_args()
    count = args.images or (60 if args.quick else 200)
    with tempfile.TemporaryDirectory(prefix="rk-thumb-libs-") as tmp:
        print(run(Path(tmp), count, args.rounds), flush=True)


if __name__ == "__main__":
    main()
