"""img2dataset's side of the media pair: its own ``download`` in a process of its own.

``python -m bench.peers.media_img2dataset URLS OUT PROCESSES`` imports img2dataset first
(untimed, as rk's backend start is), then times ``img2dataset.download`` with a 256 px
keep-ratio resize to files, ``PROCESSES`` processes and its default threads, and prints one
JSON line: wall seconds and the CPU seconds of this process and every process it started
(its pool and its logger, all waited for before ``download`` returns), and the CPU its own
import took. ``img2dataset_round`` runs it and reads img2dataset's per-shard
``*_stats.json``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from bench.peers.photo_server import ROOT
from bench.peers.rounds import Sample

log = logging.getLogger(__name__)

IMAGE_SIZE = 256


def settings(urls: Path, out: Path, processes: int, count: int) -> dict[str, object]:
    """``download``'s arguments: one shard per process (its default, 10,000 a shard, would
    leave all but one process idle on a bench-sized list), everything else its default."""
    return {
        "url_list": str(urls),
        "output_folder": str(out),
        "output_format": "files",
        "image_size": IMAGE_SIZE,
        "resize_mode": "keep_ratio",
        "processes_count": processes,
        "number_sample_per_shard": max(1, math.ceil(count / processes)),
    }


def environment() -> dict[str, str]:
    """This environment, with albumentations' update check (a network call) off."""
    return {**os.environ, "NO_ALBUMENTATIONS_UPDATE": "1"}


class Written(NamedTuple):
    """What img2dataset's per-shard ``*_stats.json`` say: images written, the seconds from
    the first shard's start to the last one's end, and its reasons for the others."""

    count: int
    seconds: float
    reasons: Counter[str]


def written(out: Path) -> Written:
    """img2dataset's own account of a run, summed over its shards' stats files."""
    stats = [json.loads(path.read_text()) for path in sorted(out.glob("*_stats.json"))]
    if not stats:
        raise RuntimeError(f"img2dataset wrote no *_stats.json under {out}")
    reasons: Counter[str] = Counter()
    for shard in stats:
        reasons.update({k: int(v) for k, v in shard["status_dict"].items() if k != "success"})
    window = max(s["end_time"] for s in stats) - min(s["start_time"] for s in stats)
    return Written(sum(int(shard["successes"]) for shard in stats), float(window), reasons)


def img2dataset_round(urls: list[str], work: Path, processes: int) -> Sample:
    """One run of img2dataset over ``urls`` into a fresh folder under ``work``.

    Its rate is over its shards' download time (from their stats: after its processes have
    started, as rk's rows start with the backend up); its CPU is the whole run's less its
    processes' start, counted as one import of img2dataset (timed in the run) for each
    pool process and its logger. Images it failed to fetch (its 10 s timeout, on a loaded
    machine) are logged, not counted. The whole run's figures ride along as extras.
    """
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    listing = work / "urls.txt"
    listing.write_text("".join(f"{url}\n" for url in urls), encoding="utf-8")
    out = work / "out"
    args = [sys.executable, "-m", __name__, str(listing), str(out), str(processes)]
    done = subprocess.run(
        args,
        capture_output=True,
        text=True,
        env=environment(),
        timeout=3600,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"img2dataset failed ({done.returncode}): {done.stderr[-2000:]}")
    shards = written(out)
    if shards.reasons:
        log.warning("img2dataset wrote %d of %d: %s", shards.count, len(urls), shards.reasons)
    timing = json.loads(done.stdout.strip().splitlines()[-1])
    whole_s, whole_cpu = float(timing["seconds"]), float(timing["cpu_s"])
    start_cpu = (processes + 1) * float(timing["import_cpu_s"])
    whole = {"whole items/s": shards.count / whole_s, "whole CPU s/item": whole_cpu / shards.count}
    return Sample(shards.count, shards.seconds, whole_cpu - start_cpu, whole)


def _cpu_s() -> float:
    """CPU seconds of this process and of every child it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    """Time one ``img2dataset.download``; print its wall and CPU seconds as JSON."""
    urls, out, processes = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    count = len(urls.read_text(encoding="utf-8").split())
    before_import = _cpu_s()
    from img2dataset import download

    cpu, started = _cpu_s(), time.perf_counter()
    download(**settings(urls, out, processes, count))
    seconds = time.perf_counter() - started
    timing = {"seconds": seconds, "cpu_s": _cpu_s() - cpu, "import_cpu_s": cpu - before_import}
    print(json.dumps(timing))


if __name__ == "__main__":
    main()
