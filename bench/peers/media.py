"""The media pair: rk's spider media path against img2dataset, the same photos, one run.

A separate local HTTP server process (``photo_server``) serves ``count`` generated
runway-shaped JPEGs (1280×1920, ~375 kB) to both. Rows, taken in turn each round:

- rk to the file store: ``MediaUploader`` into a real ``rk serve-backend`` (download, sha1,
  ``upload-urls`` once per show, 256 px thumbnail, PUT of both);
- rk to S3: the same against a backend whose storage is a local moto S3 server, so the
  PUTs go to presigned URLs;
- the same work as a plain loop (download, sha1, the same thumbnail, both files written);
- img2dataset: 256 px keep-ratio resize, files output, one process per core, its default
  threads; timed once its processes have started (``media_img2dataset``).

CPU counts each tool's own processes: the bench process and the backend for rk, every
img2dataset process for it; the image server and moto (standing in for the site and S3)
are left out of every row. A line splits rk's CPU per photo into its spider side and the
backend, beside the loop's.
"""

from __future__ import annotations

import asyncio
import os
import statistics
from contextlib import ExitStack
from pathlib import Path

from bench.peers import media_rk
from bench.peers.media_img2dataset import img2dataset_round
from bench.peers.photo_server import serve
from bench.peers.rounds import Round, Sample, Side, alternate
from bench.peers.table import render
from bench.spider_media import write_set
from tests.integration.storage.helpers import new_bucket, run_moto, s3_url
from tests.support.net import free_port, wait_for_port

SIZE = (1280, 1920)
WARM_IMAGES = 12


def _peer_round(urls: list[str], work: Path, processes: int) -> Round:
    """A round of img2dataset, in a thread so the event loop stays free."""

    async def one() -> Sample:
        return await asyncio.to_thread(img2dataset_round, urls, work, processes)

    return one


def cpu_split(rk: Side, loop: Side) -> str:
    """Where rk's CPU per photo goes, beside the loop's: the steadier figure on shared cores."""
    backend = rk.extra(media_rk.BACKEND_CPU)
    spider = rk.cpu_per_item() - backend
    return (
        f"CPU ms/photo: rk file store {rk.cpu_per_item() * 1e3:.2f} (spider side "
        f"{spider * 1e3:.2f}, backend {backend * 1e3:.2f}); same-work loop "
        f"{loop.cpu_per_item() * 1e3:.2f}; loop ÷ rk {loop.cpu_per_item() / rk.cpu_per_item():.2f}"
    )


async def run(
    root: Path, count: int, rounds: int, concurrency: int, size: tuple[int, int] = SIZE
) -> str:
    """Every side's ``rounds`` rounds over ``count`` photos of ``size``; the table."""
    files = root / "images"
    files.mkdir(parents=True)
    photos = write_set(files, "p", count, size)
    warm = write_set(files, "w", WARM_IMAGES, size)
    processes = os.cpu_count() or 1
    port = free_port()
    server = serve(files, port)
    with ExitStack() as stack:
        stack.callback(server.wait)
        stack.callback(server.terminate)
        wait_for_port(port)
        moto = stack.enter_context(run_moto())
        bucket = new_bucket(moto)
        file_backend = media_rk.backend(root / "file-backend")
        stack.callback(file_backend.stop)
        s3_backend = media_rk.backend(root / "s3-backend", s3_url(moto, bucket))
        stack.callback(s3_backend.stop)
        base = f"http://127.0.0.1:{port}"
        urls = [f"{base}/{name}" for name in photos]
        warm_urls = [f"{base}/{name}" for name in warm]
        for made in (file_backend, s3_backend):
            await media_rk.warm_up(made, warm_urls, concurrency)

        async def to_files() -> Sample:
            media_rk.empty_file_store(file_backend)
            return await media_rk.stored_round(file_backend, urls, concurrency)

        async def to_s3() -> Sample:
            media_rk.empty_s3(moto, bucket)
            return await media_rk.stored_round(s3_backend, urls, concurrency)

        async def loop() -> Sample:
            return await media_rk.loop_round(urls, root / "loop-out", concurrency)

        rk_files = Side("rk, spider media path → file store")
        rk_s3 = Side("rk, presigned upload → S3 (moto)")
        same_work = Side("same-work loop, no protocol")
        peer = Side("img2dataset")
        await alternate(
            [
                (rk_files, to_files),
                (rk_s3, to_s3),
                (same_work, loop),
                (peer, _peer_round(urls, root / "img2dataset", processes)),
            ],
            rounds,
        )
    mean_kb = statistics.mean(map(len, photos.values())) / 1e3
    title = (
        f"media: {count} JPEGs {size[0]}×{size[1]} (mean {mean_kb:.0f} kB) from a local HTTP "
        f"server, 256 px thumbnails; rk media.concurrency {concurrency}, "
        f"{media_rk.SHOWS_AT_ONCE} shows of {media_rk.SHOW_LOOKS} at once; img2dataset "
        f"{processes} processes, default threads"
    )
    table = render(title, [rk_files, rk_s3, same_work], peer, "img2dataset")
    ceiling = rk_files.rate() / same_work.rate()
    return (
        f"{table}\n"
        f"rk file store ÷ same-work loop: {ceiling:.2f} (goal ≥ 0.9)\n"
        f"{cpu_split(rk_files, same_work)} (medians over the rounds)\n"
        f"load average at the end: {os.getloadavg()[0]:.1f}\n"
        f"img2dataset's row is its shards' download time and its CPU less {processes + 1} "
        f"process starts; whole runs, starts included: {peer.extra('whole items/s'):.3g} "
        f"items/s, {peer.extra('whole CPU s/item'):.2e} CPU s/item"
    )
