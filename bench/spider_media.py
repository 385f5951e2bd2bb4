"""Direct media upload through a real backend, against a plain GET+PUT loop; spider peak RSS.

Part 1, throughput: images served by a separate local HTTP server process go through
rk's direct-upload path (``MediaUploader``: download → sha1 → ``POST upload-urls`` → PUT,
plus the thumbnail it makes and uploads with the bytes in hand) into the ``file://``
storage of a real ``rk serve-backend`` process. The baseline, in the same run and at the
same concurrency, is a plain httpx loop that GETs each image of a second, same-sized set
and PUTs it to an upload URL fetched beforehand (nothing else). A re-crawl of the first
set (the backend answers ``exists``: nothing PUT) and the thumbnail work alone are shown
too, since they decide what a re-crawl costs. A fourth set goes through the same path with
each image's ``w_360`` rendition named (``ImageRef.thumb_url``, as the Vogue source names
``sm``): the thumbnail is made from that small GET instead of the original, and its PSNR
against the original-made thumbnail is printed. Each path also shows the CPU seconds it took
in all three processes (this one, the backend, the image server): on shared cores the wall
ratio cannot beat the CPU ratio for long. The draft decode of each original, timed alone,
gives a ceiling for the path with thumbnails: the plain loop's CPU over the no-thumbnail
protocol's plus those decodes, as if resizing, encoding and uploading the thumbnail were
free.

Part 2, memory: peak RSS (``VmHWM``) of ``rk spider serve -w 4 -m 5`` crawling every
designer of the local Vogue-like site (runway-sized photos), against the same process
idle before any task was queued.

    .venv/bin/python -m bench.spider_media [--images 80] [--size 1280x1920] [--concurrency 6]
                                           [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.thumb_quality import (
    draft_decode,
    full_decode,
    jpeg_of,
    previous,
    previous_thumbnail,
    psnr,
    rendition_psnr,
)
from rk.core.api.keys import content_key, sha1_hex
from rk.core.api.wire import ImageRef, Look, ShowIngest, UploadUrl, UploadUrlRequest
from rk.core.config import MediaSettings, Settings, SpiderSettings
from rk.core.runtime.client import BackendClient
from rk.core.runtime.http import polite_client
from rk.core.runtime.media_upload import MediaUploader, UploadStats
from rk.core.runtime.thumbs import JPEG_QUALITY, make_thumbnail
from tests.integration.spider.photos import photo_bytes, rendition, serve_photo_site
from tests.integration.spider.procs import Backend, Proc, spider, spider_config
from tests.support.net import free_port, wait_for_port

SECRET = "bench-secret"
MB = 1e6


class Row:
    """One measured path: images moved, bytes, seconds, CPU seconds of all processes."""

    def __init__(self, label: str, images: int, size: int, seconds: float, cpu: float) -> None:
        self.label, self.images, self.size, self.seconds = label, images, size, seconds
        self.cpu = cpu

    def line(self, base: Row) -> str:
        rate = self.images / self.seconds
        ratio = rate / (base.images / base.seconds)
        return (
            f"{self.label:40} {self.images:6d} {self.size / MB:7.1f} {self.seconds:7.2f} "
            f"{rate:7.1f} {self.size / MB / self.seconds:7.1f} {ratio:6.2f}x "
            f"{self.cpu:6.2f} {base.cpu / self.cpu:6.2f}x"
        )


def process_cpu_s(pid: int) -> float:
    """CPU seconds (user and system, all threads) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_s(pids: list[int]) -> float:
    """CPU seconds used so far by this process (all threads) and ``pids``."""
    return time.process_time() + sum(process_cpu_s(pid) for pid in pids)


class Timer:
    """Wall and CPU seconds (this process and ``pids``) of one timed region."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.seconds = self.cpu = 0.0

    def start(self) -> None:
        self.seconds, self.cpu = time.perf_counter(), cpu_s(self.pids)

    def stop(self) -> tuple[float, float]:
        self.seconds, self.cpu = time.perf_counter() - self.seconds, cpu_s(self.pids) - self.cpu
        return self.seconds, self.cpu


def write_set(root: Path, prefix: str, count: int, size: tuple[int, int]) -> dict[str, bytes]:
    """``count`` distinct photos as files under ``root``; name → bytes."""
    images = {f"{prefix}{n:04d}.jpg": photo_bytes(f"{prefix}/{n}", size) for n in range(count)}
    for name, data in images.items():
        (root / name).write_bytes(data)
    return images


RENDITION_WIDTH = 360


def rendition_name(name: str) -> str:
    """The file of ``name``'s ``w_360`` rendition."""
    return name.replace(".jpg", f"-w{RENDITION_WIDTH}.jpg")


def write_renditions(root: Path, images: dict[str, bytes]) -> dict[bytes, bytes]:
    """Each image's ``w_360`` rendition (as the CDN makes it) beside it; original → rendition."""
    out = {}
    for name, data in images.items():
        out[data] = rendition(data, RENDITION_WIDTH)
        (root / rendition_name(name)).write_bytes(out[data])
    return out


def serve_files(directory: Path, port: int) -> subprocess.Popen[bytes]:
    """A separate image server process, so serving does not share this process's GIL."""
    args = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    return subprocess.Popen(
        [*args, "--directory", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def spider_settings(concurrency: int) -> Settings:
    return Settings(
        media=MediaSettings(upload=True, concurrency=concurrency),
        spider=SpiderSettings(min_interval_s=0, per_host_concurrency=concurrency, retries=0),
    )


async def direct(
    endpoint: str,
    urls: list[str],
    concurrency: int,
    timer: Timer,
    thumb_urls: list[str] | None = None,
) -> UploadStats:
    """rk's direct-upload path over one show holding every image (with its rendition URL)."""
    settings = spider_settings(concurrency)
    thumbs: list[str | None] = list(thumb_urls) if thumb_urls else [None] * len(urls)
    refs = [ImageRef(url=url, thumb_url=t) for url, t in zip(urls, thumbs, strict=True)]
    looks = [Look(number=n, image=ref) for n, ref in enumerate(refs, start=1)]
    show = ShowIngest(
        source="vogue", kind="runway", show_key="bench/show", title="bench", looks=looks
    )
    async with BackendClient(endpoint, SECRET) as client, polite_client(settings.spider) as http:
        uploader = MediaUploader(client, http, settings)
        timer.start()
        _, stats = await uploader.upload_show(show, "runway")
        timer.stop()
        return stats


async def plain(
    endpoint: str, base_url: str, images: dict[str, bytes], concurrency: int, timer: Timer
) -> None:
    """GET each image and PUT it to an upload URL asked for beforehand (not timed)."""
    uploads: dict[str, UploadUrl] = {}
    async with BackendClient(endpoint, SECRET) as client:
        for name, data in images.items():
            sha1 = sha1_hex(data)
            request = UploadUrlRequest(key=content_key("runway", sha1), size=len(data), sha1=sha1)
            uploads[name] = await client.upload_url(request)
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=60) as http:

        async def one(name: str) -> None:
            async with gate:
                response = await http.get(f"{base_url}/{name}")
                response.raise_for_status()
                target = uploads[name]
                put = await http.put(target.url, content=response.content, headers=target.headers)
                put.raise_for_status()

        timer.start()
        await asyncio.gather(*(one(name) for name in images))
        timer.stop()


async def protocol(
    endpoint: str, base_url: str, images: dict[str, bytes], concurrency: int, timer: Timer
) -> None:
    """rk's upload protocol without the thumbnail: GET + sha1 each image, one ``upload-urls``
    for the lot, PUT each, with rk's client."""
    settings = spider_settings(concurrency)
    gate = asyncio.Semaphore(concurrency)
    async with BackendClient(endpoint, SECRET) as client, polite_client(settings.spider) as http:

        async def get(name: str) -> bytes:
            async with gate:
                response = await http.get(f"{base_url}/{name}")
                response.raise_for_status()
                return response.content

        async def put(upload: UploadUrl, data: bytes) -> None:
            async with gate:
                await client.put_object(upload, data)

        timer.start()
        bodies = await asyncio.gather(*(get(name) for name in images))
        requests = []
        for data in bodies:
            sha1 = sha1_hex(data)
            requests.append(
                UploadUrlRequest(key=content_key("runway", sha1), size=len(data), sha1=sha1)
            )
        grants = await client.upload_urls(requests)
        await asyncio.gather(*(put(g, d) for g, d in zip(grants, bodies, strict=True)))
        timer.stop()


def vm_hwm_mb(pid: int) -> float:
    """Peak resident set size of ``pid`` in MB, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / MB
    raise RuntimeError(f"no VmHWM for pid {pid}")


async def crawl_rss(root: Path, backend: Backend) -> tuple[float, float, int, float]:
    """(idle MB, peak MB, images crawled, seconds) of ``rk spider serve -w 4 -m 5``."""
    brands = root / "brands.txt"
    brands.write_text(
        "Halden & Co.\nKestrel & Vine\nMaison Aurèle\nOdalys North\nPaloma Quintero\n",
        encoding="utf-8",
    )
    with serve_photo_site((1280, 1920)) as site:
        config = spider_config(root, "rss", backend.endpoint, SECRET, site.base_url)
        proc: Proc = spider(root, "rss", config, "-w", "4", "-i", "1", "-m", "5").start()
        try:
            await proc.wait_for(r"workers on vogue")
            await asyncio.sleep(2)
            idle = vm_hwm_mb(proc.pid)
            backend.ok("brands", "import", str(brands))
            start = time.perf_counter()
            backend.ok("crawl", "batch", "--prefix", "", "--max-shows", "0", "--count", "10")
            while True:
                listing = backend.ok("crawl", "list")
                if " queued " not in listing and " running " not in listing:
                    break
                await asyncio.sleep(0.5)
            seconds = time.perf_counter() - start
            peak = vm_hwm_mb(proc.pid)
        finally:
            proc.stop()
        return idle, peak, site.photo_gets(), seconds


async def one_round(
    backend: Backend, base_url: str, sets: dict[str, dict[str, bytes]], c: int, pids: list[int]
) -> dict[str, tuple[float, float]]:
    """(seconds, CPU seconds) of every path once, on empty storage (each path has its own
    image set)."""
    shutil.rmtree(backend.data_dir / "media", ignore_errors=True)
    timers = {key: Timer(pids) for key in LABELS}
    await plain(backend.endpoint, base_url, sets["b"], c, timers["plain"])
    await protocol(backend.endpoint, base_url, sets["c"], c, timers["protocol"])
    urls = [f"{base_url}/{name}" for name in sets["a"]]
    stats = await direct(backend.endpoint, urls, c, timers["direct"])
    assert stats.uploaded == stats.thumbs == len(urls), stats
    stats = await direct(backend.endpoint, urls, c, timers["recrawl"])
    assert stats.already_stored == len(urls), stats
    urls = [f"{base_url}/{name}" for name in sets["r"]]
    smalls = [f"{base_url}/{rendition_name(name)}" for name in sets["r"]]
    stats = await direct(backend.endpoint, urls, c, timers["rendition"], smalls)
    assert stats.thumbs_from_rendition == len(urls), stats
    makers = (
        ("thumb", make_thumbnail),
        ("thumb_before", previous_thumbnail),
        ("decode", draft_decode),
    )
    for key, make in makers:
        timers[key].start()
        for data in sets["a"].values():
            make(data, 256)
        timers[key].stop()
    return {key: (timer.seconds, timer.cpu) for key, timer in timers.items()}


LABELS = {
    "plain": ("plain httpx GET + PUT (baseline)", "b"),
    "protocol": ("GET, sha1, upload-urls, PUT (no thumb)", "c"),
    "direct": ("rk direct upload (+ thumbnail)", "a"),
    "rendition": ("rk direct upload, thumb from w_360", "r"),
    "recrawl": ("rk re-crawl: upload-urls says exists", "a"),
    "thumb": ("thumbnail decode+encode alone, 1 thread", "a"),
    "thumb_before": ("  the previous recipe (Lanczos, optimize)", "a"),
    "decode": ("  its draft decode alone (the least)", "a"),
}


async def run(args: argparse.Namespace) -> None:
    width, height = (int(v) for v in args.size.split("x"))
    c = args.concurrency
    with tempfile.TemporaryDirectory(prefix="rk-bench-") as tmp:
        root = Path(tmp)
        files = root / "images"
        files.mkdir()
        sets = {p: write_set(files, p, args.images, (width, height)) for p in ("a", "b", "c", "r")}
        smalls = write_renditions(files, sets["r"])
        warm = write_set(files, "w", 12, (width, height))
        port = free_port()
        server = serve_files(files, port)
        backend = Backend(
            root / "backend",
            f"sqlite:///{root / 'rk.sqlite3'}",
            ingest={"secret": SECRET},
            server={"workers": 1},
        )
        try:
            wait_for_port(port)
            backend.start()
            base_url = f"http://127.0.0.1:{port}"
            await protocol(backend.endpoint, base_url, warm, c, Timer([]))  # warm-up
            pids = [server.pid, backend.pid]
            rounds = [await one_round(backend, base_url, sets, c, pids) for _ in range(args.repeat)]
            idle, peak, crawled, crawl_s = await crawl_rss(root, backend)
        finally:
            backend.stop()
            server.terminate()
            server.wait()
    rows = [
        Row(
            label,
            args.images,
            sum(map(len, sets[which].values())),
            min(r[key][0] for r in rounds),
            min(r[key][1] for r in rounds),
        )
        for key, (label, which) in LABELS.items()
    ]
    size = rows[0].size
    print(
        f"{args.images} images of {width}x{height} ({size / args.images / 1e3:.0f} kB each), "
        f"concurrency {c}, file:// storage behind rk serve-backend (SQLite), "
        f"best of {args.repeat}"
    )
    print(
        f"{'path':40} {'images':>6} {'MB':>7} {'s':>7} {'img/s':>7} {'MB/s':>7} {'ratio':>7} "
        f"{'CPU s':>6} {'ratio':>7}"
    )
    for row in rows:
        print(row.line(rows[0]))
    by_key = dict(zip(LABELS, rows, strict=True))
    ceiling = by_key["plain"].cpu / (by_key["protocol"].cpu + by_key["decode"].cpu)
    print(
        f"ceiling of rk ÷ plain with thumbnails from the originals, by CPU: plain ÷ (no-thumb "
        f"protocol + draft decodes alone, nothing else) = {ceiling:.2f}"
    )
    images = list(sets["a"].values())
    for name, reference in (("the previous recipe's", previous), ("a full decode", full_decode)):
        mean, worst = psnr(images, reference)
        print(f"thumbnails vs {name}: PSNR mean {mean:.1f} dB, worst {worst:.1f} dB")
    mean, worst = psnr(images, full_decode, make=lambda data: jpeg_of(full_decode(data)))
    floor = f"  floor, a full decode's own q{JPEG_QUALITY} JPEG vs itself"
    print(f"{floor}: PSNR mean {mean:.1f} dB, worst {worst:.1f} dB")
    mean, worst = rendition_psnr(smalls)
    print(
        f"thumbnails from w_{RENDITION_WIDTH} renditions vs from the originals: "
        f"PSNR mean {mean:.1f} dB, worst {worst:.1f} dB"
    )
    print()
    print(f"rk spider serve -w 4 -m 5: {crawled} photos of 1280x1920 crawled in {crawl_s:.1f} s")
    print(f"{'process':40} {'VmHWM MB':>9}")
    print(f"{'idle, before any task (baseline)':40} {idle:9.1f}")
    print(f"{'peak during the crawl (target < 200)':40} {peak:9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=80)
    parser.add_argument("--size", default="1280x1920", help="WIDTHxHEIGHT of each image")
    parser.add_argument("--concurrency", type=int, default=6, help="media.concurrency")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best is shown")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
