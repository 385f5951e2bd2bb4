"""CPU of storing one image, with and without the palette ingest now measures (issue 30).

The store pass decodes each original for its thumbnail (``make_thumbnail``) and its rendition
ladder (``make_ladder``); ingest now also measures the garment's palette from the thumbnail
it has just made (``colours_for_thumbnail``: one small decode, no fetch). Each round runs
the pass on the same flat-colour 1280×1920 garment JPEGs, without and with the palette,
interleaved; the table gives the median CPU per image, and ``--profile`` prints cProfile's
top functions of one round with the palette.

    .venv/bin/python -m bench.ingest_palette [--images 20] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

from rk.core.runtime.ladder import make_ladder
from rk.core.runtime.thumbs import make_thumbnail
from rk.server.colour import colours_for_thumbnail
from tests.support.garments import SHAPES, garment_picture

COLOURS = ("#4a0e1a", "#c19a6b", "#1f2a44", "#046307", "#0047ab", "#e1ad01")
SIZE = (1280, 1920)
THUMB = 256


def originals(count: int) -> list[bytes]:
    """``count`` distinct 1280×1920 JPEG garments."""
    return [
        garment_picture(COLOURS[i % len(COLOURS)], shape=SHAPES[i % 3], seed=i, size=SIZE)
        for i in range(count)
    ]


def store_pass(data: bytes, palette: bool) -> None:
    """What the store pass spends CPU on for one original: thumbnail, ladder, palette."""
    thumb = make_thumbnail(data, THUMB)
    assert thumb is not None
    assert make_ladder(data) is not None
    if palette:
        colours_for_thumbnail(thumb)


def cpu_per_image(images: list[bytes], palette: bool) -> float:
    """Process CPU seconds per image of one round."""
    start = time.process_time()
    for data in images:
        store_pass(data, palette)
    return (time.process_time() - start) / len(images)


def main(args: argparse.Namespace) -> None:
    """Interleaved rounds; the table of medians, then the profile if asked."""
    images = originals(args.images)
    runs: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.repeat):
        for palette in (False, True):
            runs[palette].append(cpu_per_image(images, palette))
    print(f"{args.images} originals {SIZE[0]}×{SIZE[1]}, {args.repeat} rounds, median (min–max)")
    print(f"{'pass':<34} {'CPU ms/image':>24}")
    for palette, label in ((False, "thumbnail + ladder (before)"), (True, "+ palette (after)")):
        values = [v * 1000 for v in runs[palette]]
        spread = f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"
        print(f"{label:<34} {spread:>24}")
    base, after = statistics.median(runs[False]), statistics.median(runs[True])
    print(f"{'palette adds':<34} {(after - base) * 1000:>20.1f} ms ({after / base - 1:+.1%})")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(cpu_per_image, images, True)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.profile_lines)


def cli() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--images", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one round")
    parser.add_argument("--profile-lines", type=int, default=15)
    main(parser.parse_args())


if __name__ == "__main__":
    cli()
