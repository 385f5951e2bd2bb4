"""Ingest-worker throughput: 40-image shows per second and MB/s into ``file://`` storage.

A local image server (its own process, images held in memory) serves ``--shows`` shows of
40 distinct JPEGs. Each round fetches the same URLs three times, one show after another,
``--concurrency`` images at a time:

- plain loop: httpx download-and-write, each body written to a file. It makes no
  thumbnail, which rk must (every image gets one; DESIGN, Storage and keys), so it does
  less work than rk and its ratio is shown only for comparison with older figures;
- same-work loop (the judged baseline): the same download loop that also hashes each
  body, makes its thumbnail with rk's ``thumbnail`` (the shared pool of one thread per
  core) and writes both files: the work ingest cannot skip, so the gap between this row
  and rk is what rk itself costs;
- rk: a backend (in this process, SQLite + ``file://`` in a temp dir, ``--workers`` ingest
  workers with ``media.concurrency`` = ``--concurrency``) given every show by signed POST;
  timed from the first POST until every job is done. This includes what the loops do not:
  the SSRF checks, the storage checks, the media claims and the article transaction;
- rk with renditions: the same, each image naming its ``w_360`` rendition
  (``ImageRef.thumb_url``, as the Vogue source names ``sm``), which the worker fetches and
  makes the thumbnail from instead of decoding the original. The PSNR of those thumbnails
  against the ones made from the originals is printed under the table.

``--rounds`` rounds run the four rows in turn (other jobs on shared cores slow every row
alike), and each row's median is printed with the spread of the per-round ratios.
Everything runs on uvloop when it is installed, as ``rk serve-backend`` (uvicorn) does;
``--loop asyncio`` runs on asyncio's own loop instead.

    .venv/bin/python -m bench.ingest_worker [--shows 5] [--size 1280x1920] [--concurrency 6]
                                            [--workers 1] [--rounds 3] [--loop uvloop|asyncio]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import httpx
import msgspec
import uvicorn

from bench.ingest_photos import (
    LOOKS,
    RENDITION_WIDTH,
    image_server,
    make_images,
    rendition_psnr,
    show_refs,
    show_urls,
)
from bench.thumb_quality import SIDE as THUMB_SIDE
from rk.core.api.signing import signed_headers
from rk.core.api.wire import Look, ShowIngest
from rk.core.config import (
    IngestSettings,
    MediaSettings,
    QueueSettings,
    SecuritySettings,
    ServerSettings,
    Settings,
)
from rk.core.runtime.thumbs import thumbnail
from rk.server.app import create_app
from rk.server.platform.db.tables import IngestJob
from tests.support.net import free_port, wait_for_port

SECRET = "bench-secret"
T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]  # the bench's own servers start as -m from here


class Timing(NamedTuple):
    """Wall-clock seconds and this process's CPU seconds (every thread)."""

    wall: float
    cpu: float

    @classmethod
    def now(cls) -> Timing:
        """The two clocks now."""
        return cls(time.perf_counter(), time.process_time())

    def since(self) -> Timing:
        """The time from this start until now."""
        now = Timing.now()
        return Timing(now.wall - self.wall, now.cpu - self.cpu)


def use_uvloop(loop: str) -> bool:
    """Whether ``--loop`` asks for uvloop and it is installed."""
    return loop == "uvloop" and importlib.util.find_spec("uvloop") is not None


def run(main: Coroutine[Any, Any, T], loop: str) -> T:
    """Run ``main`` on uvloop when asked and installed (as uvicorn does), else on asyncio's."""
    if not use_uvloop(loop):
        return asyncio.run(main)
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


async def write_plain(out: Path, data: bytes) -> None:
    """The plain loop's work per image: write the body (on the event loop)."""
    (out / f"{hashlib.sha1(data).hexdigest()}.jpg").write_bytes(data)


def _hash_and_write(out: Path, data: bytes) -> str:
    sha1 = hashlib.sha1(data).hexdigest()
    (out / f"{sha1}.jpg").write_bytes(data)
    return sha1


async def same_work(out: Path, data: bytes) -> None:
    """What ingest cannot skip: hash and write the body, make its thumbnail and write it.

    The thumbnail comes from rk's own ``thumbnail`` (its pool of one thread per core, as
    the worker uses); hashing and writing run in a thread, off the event loop.
    """
    sha1, thumb = await asyncio.gather(
        asyncio.to_thread(_hash_and_write, out, data), thumbnail(data, THUMB_SIDE)
    )
    if thumb is None:
        raise SystemExit("a bench image does not decode")
    await asyncio.to_thread((out / f"thumb-{sha1}.jpg").write_bytes, thumb)


def fresh(folder: Path) -> Path:
    """``folder``, made empty."""
    folder.mkdir()
    return folder


async def baseline(
    port: int,
    shows: int,
    concurrency: int,
    out: Path,
    work: Callable[[Path, bytes], Awaitable[None]],
) -> Timing:
    """Seconds and CPU seconds for the download loop over every show, ``work`` on each body."""
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=60) as client:

        async def one(url: str) -> None:
            async with gate:
                response = await client.get(url)
                response.raise_for_status()
                await work(out, response.content)

        started = Timing.now()
        for show in range(shows):
            await asyncio.gather(*(one(url) for url in show_urls(port, show)))
        return started.since()


async def wait_finished(jobs: int, timeout_s: float = 900) -> None:
    """Return once ``jobs`` ingest jobs are done or failed."""
    deadline = time.monotonic() + timeout_s
    finished = IngestJob.status.is_in(["done", "failed"])
    while time.monotonic() < deadline:
        if await IngestJob.count().where(finished) >= jobs:
            return
        await asyncio.sleep(0.05)
    raise SystemExit(f"ingest jobs not finished after {timeout_s} s")


async def rk_ingest(
    port: int, shows: int, concurrency: int, workers: int, data: Path, renditions: bool = False
) -> Timing:
    """Seconds and CPU seconds from the first signed POST until every ingest job is done."""
    backend_port = free_port()
    settings = Settings(
        data_dir=str(data),
        server=ServerSettings(port=backend_port, workers=workers),
        ingest=IngestSettings(secret=SECRET),
        media=MediaSettings(concurrency=concurrency),
        security=SecuritySettings(allow_private_hosts=[f"127.0.0.1:{port}"]),
        queues=QueueSettings(poll_interval_s=0.05),
    )
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=backend_port,
            log_level="warning",
            access_log=False,
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{backend_port}") as client:
            started = Timing.now()
            for show in range(shows):
                payload = ShowIngest(
                    source="vogue",
                    kind="runway",
                    show_key=f"bench/show-{show}",
                    title=f"Bench show {show}",
                    looks=[
                        Look(number=n, image=ref)
                        for n, ref in enumerate(show_refs(port, show, renditions), start=1)
                    ],
                )
                body = msgspec.json.encode(payload)
                path = "/admin/internal/ingest"
                response = await client.post(
                    path, content=body, headers=signed_headers(SECRET, "POST", path, body)
                )
                response.raise_for_status()
            await wait_finished(shows)
            elapsed = started.since()
            failed = await IngestJob.select(IngestJob.id, IngestJob.last_error).where(
                IngestJob.status == "failed"
            )
            notes = await IngestJob.select(IngestJob.note).where(IngestJob.status == "done")
            note = f"created, {LOOKS} images"
            note += f"; thumbnails: {LOOKS} from renditions" if renditions else ""
            if failed or any(n["note"] != note for n in notes):
                raise SystemExit(f"ingest did not store every image: {failed or notes}")
            return elapsed
    finally:
        server.should_exit = True
        await task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shows", type=int, default=5)
    parser.add_argument("--size", default="1280x1920", help="image size WxH")
    parser.add_argument("--concurrency", type=int, default=6)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--loop", choices=["uvloop", "asyncio"], default="uvloop")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--image-server", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.image_server:
        image_server(args.image_server[0], int(args.image_server[1]))
        return
    width, height = (int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="rk-bench-worker-") as tmp:
        root = Path(tmp)
        (root / "images").mkdir()
        total = make_images(root / "images", args.shows, (width, height))
        port = free_port()
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.ingest_worker",
                "--image-server",
                str(root / "images"),
                str(port),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        rounds: list[tuple[Timing, Timing, Timing, Timing]] = []
        try:
            wait_for_port(port)
            for n in range(args.rounds):
                loop_t = run(
                    baseline(
                        port, args.shows, args.concurrency, fresh(root / f"loop-{n}"), write_plain
                    ),
                    args.loop,
                )
                thumbs_t = run(
                    baseline(
                        port, args.shows, args.concurrency, fresh(root / f"thumbs-{n}"), same_work
                    ),
                    args.loop,
                )
                rk_t = run(
                    rk_ingest(port, args.shows, args.concurrency, args.workers, root / f"rk-{n}"),
                    args.loop,
                )
                rendition_t = run(
                    rk_ingest(
                        port,
                        args.shows,
                        args.concurrency,
                        args.workers,
                        root / f"rk-renditions-{n}",
                        renditions=True,
                    ),
                    args.loop,
                )
                rounds.append((loop_t, thumbs_t, rk_t, rendition_t))
        finally:
            server.terminate()
            server.wait(timeout=30)
        psnr = rendition_psnr(root / "images")
    report(args, width, height, total / 1e6, rounds, psnr)


def report(
    args: argparse.Namespace,
    width: int,
    height: int,
    mb: float,
    rounds: list[tuple[Timing, Timing, Timing, Timing]],
    psnr: tuple[float, float],
) -> None:
    """The median of each row over the rounds, and the spread of the per-round ratios.

    CPU seconds are this process's (the image server's are the same for every row): a
    figure that other jobs on shared cores move far less than the wall clock.
    """
    loop_name = "uvloop" if use_uvloop(args.loop) else "asyncio loop"
    print(
        f"ingest worker: {args.shows} shows × {LOOKS} JPEGs of {width}×{height} "
        f"({mb / (args.shows * LOOKS):.2f} MB each, {mb:.1f} MB), concurrency "
        f"{args.concurrency}, {args.workers} ingest worker(s), file:// storage, {loop_name}, "
        f"median of {len(rounds)} interleaved round(s)"
    )
    print(f"{'target':<44}{'seconds':>9}{'shows/s':>9}{'MB/s':>8}{'CPU s':>8}")
    names = (
        "httpx download-and-write loop (no thumbnail)",
        "same work: + sha1 + thumbnail, both written",
        "rk ingest worker (+ checks, claims, DB)",
        f"rk ingest worker, thumbs from w_{RENDITION_WIDTH}",
    )
    for i, name in enumerate(names):
        wall = statistics.median(r[i].wall for r in rounds)
        cpu = statistics.median(r[i].cpu for r in rounds)
        print(f"{name:<44}{wall:>9.2f}{args.shows / wall:>9.2f}{mb / wall:>8.1f}{cpu:>8.2f}")
    for row, rk in ((2, "rk"), (3, f"rk with w_{RENDITION_WIDTH}")):
        for label, i in (("same-work loop (judged)", 1), ("plain loop (does less than rk)", 0)):
            for clock in ("wall", "cpu"):
                ratios = sorted(getattr(r[i], clock) / getattr(r[row], clock) for r in rounds)
                spread = f" (rounds {ratios[0]:.2f}–{ratios[-1]:.2f})" if len(ratios) > 1 else ""
                print(f"ratio {rk} / {label}, {clock}: {statistics.median(ratios):.2f}{spread}")
    print(
        f"thumbnails from w_{RENDITION_WIDTH} renditions vs from the originals: PSNR mean "
        f"{psnr[0]:.1f} dB, worst {psnr[1]:.1f} dB"
    )


if __name__ == "__main__":
    main()
