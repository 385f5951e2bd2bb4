"""Direct media upload through a real backend, against a plain GET+PUT loop; spider peak RSS.

Part 1, throughput: images served by a separate local HTTP server process go through
rk's direct-upload path (``MediaUploader``: download → sha1 → ``POST upload-url`` → PUT,
plus the thumbnail it makes and uploads with the bytes in hand) into the ``file://``
storage of a real ``rk serve-backend`` process. The baseline, in the same run and at the
same concurrency, is a plain httpx loop that GETs each image of a second, same-sized set
and PUTs it to an upload URL fetched beforehand (nothing else). A re-crawl of the first
set (the backend answers ``exists``: nothing PUT) and the thumbnail work alone are shown
too, since they decide what a re-crawl costs.

Part 2, memory: peak RSS (``VmHWM``) of ``rk spider serve -w 4 -m 5`` crawling every
designer of the local Vogue-like site (runway-sized photos), against the same process
idle before any task was queued.

    .venv/bin/python bench/spider_media.py [--images 80] [--size 1280x1920] [--concurrency 6]
                                           [--repeat 3]
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder leads sys.path, and bench/queue.py would shadow the stdlib
# ``queue`` module that asyncio's thread pool imports: take the folder out.
if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import argparse
import asyncio
import shutil
import subprocess
import tempfile
import time

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from integration.spider.photos import photo_bytes, serve_photo_site
from integration.spider.procs import Backend, Proc, spider, spider_config
from support.net import free_port, wait_for_port

from rk.core.client import BackendClient
from rk.core.config import MediaSettings, Settings, SpiderSettings
from rk.core.http import polite_client
from rk.core.keys import content_key, sha1_hex
from rk.core.media_upload import MediaUploader, UploadStats
from rk.core.thumbs import make_thumbnail
from rk.core.wire import ImageRef, Look, ShowIngest, UploadUrl, UploadUrlRequest

SECRET = "bench-secret"
MB = 1e6


class Row:
    """One measured path: images moved, bytes, seconds."""

    def __init__(self, label: str, images: int, size: int, seconds: float) -> None:
        self.label, self.images, self.size, self.seconds = label, images, size, seconds

    def line(self, base: Row) -> str:
        rate = self.images / self.seconds
        ratio = rate / (base.images / base.seconds)
        return (
            f"{self.label:40} {self.images:6d} {self.size / MB:7.1f} {self.seconds:7.2f} "
            f"{rate:7.1f} {self.size / MB / self.seconds:7.1f} {ratio:6.2f}x"
        )


def write_set(root: Path, prefix: str, count: int, size: tuple[int, int]) -> dict[str, bytes]:
    """``count`` distinct photos as files under ``root``; name → bytes."""
    images = {f"{prefix}{n:04d}.jpg": photo_bytes(f"{prefix}/{n}", size) for n in range(count)}
    for name, data in images.items():
        (root / name).write_bytes(data)
    return images


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


async def direct(endpoint: str, urls: list[str], concurrency: int) -> tuple[float, UploadStats]:
    """rk's direct-upload path over one show holding every image."""
    settings = spider_settings(concurrency)
    looks = [Look(number=n, image=ImageRef(url=url)) for n, url in enumerate(urls, start=1)]
    show = ShowIngest(
        source="vogue", kind="runway", show_key="bench/show", title="bench", looks=looks
    )
    async with BackendClient(endpoint, SECRET) as client, polite_client(settings.spider) as http:
        uploader = MediaUploader(client, http, settings)
        start = time.perf_counter()
        _, stats = await uploader.upload_show(show, "runway")
        return time.perf_counter() - start, stats


async def plain(endpoint: str, base_url: str, images: dict[str, bytes], concurrency: int) -> float:
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

        start = time.perf_counter()
        await asyncio.gather(*(one(name) for name in images))
        return time.perf_counter() - start


async def protocol(
    endpoint: str, base_url: str, images: dict[str, bytes], concurrency: int
) -> float:
    """The upload protocol without the thumbnail: GET → sha1 → upload-url → PUT, rk's client."""
    settings = spider_settings(concurrency)
    gate = asyncio.Semaphore(concurrency)
    async with BackendClient(endpoint, SECRET) as client, polite_client(settings.spider) as http:

        async def one(name: str) -> None:
            async with gate:
                response = await http.get(f"{base_url}/{name}")
                response.raise_for_status()
                data = response.content
                sha1 = sha1_hex(data)
                key = content_key("runway", sha1)
                request = UploadUrlRequest(key=key, size=len(data), sha1=sha1)
                await client.put_object(await client.upload_url(request), data)

        start = time.perf_counter()
        await asyncio.gather(*(one(name) for name in images))
        return time.perf_counter() - start


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
    backend: Backend, base_url: str, sets: dict[str, dict[str, bytes]], c: int
) -> dict[str, float]:
    """Seconds of every path once, on empty storage (each path has its own image set)."""
    shutil.rmtree(backend.data_dir / "media", ignore_errors=True)
    times = {"plain": await plain(backend.endpoint, base_url, sets["b"], c)}
    times["protocol"] = await protocol(backend.endpoint, base_url, sets["c"], c)
    urls = [f"{base_url}/{name}" for name in sets["a"]]
    times["direct"], stats = await direct(backend.endpoint, urls, c)
    assert stats.uploaded == stats.thumbs == len(urls), stats
    times["recrawl"], stats = await direct(backend.endpoint, urls, c)
    assert stats.already_stored == len(urls), stats
    start = time.perf_counter()
    for data in sets["a"].values():
        make_thumbnail(data, 256)
    times["thumb"] = time.perf_counter() - start
    return times


LABELS = {
    "plain": ("plain httpx GET + PUT (baseline)", "b"),
    "protocol": ("GET, sha1, upload-url, PUT (no thumb)", "c"),
    "direct": ("rk direct upload (+ thumbnail)", "a"),
    "recrawl": ("rk re-crawl: upload-url says exists", "a"),
    "thumb": ("thumbnail decode+encode alone, 1 thread", "a"),
}


async def run(args: argparse.Namespace) -> None:
    width, height = (int(v) for v in args.size.split("x"))
    c = args.concurrency
    with tempfile.TemporaryDirectory(prefix="rk-bench-") as tmp:
        root = Path(tmp)
        files = root / "images"
        files.mkdir()
        sets = {p: write_set(files, p, args.images, (width, height)) for p in ("a", "b", "c")}
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
            await protocol(backend.endpoint, base_url, warm, c)  # warm up, untimed
            rounds = [await one_round(backend, base_url, sets, c) for _ in range(args.repeat)]
            idle, peak, crawled, crawl_s = await crawl_rss(root, backend)
        finally:
            backend.stop()
            server.terminate()
            server.wait()
    rows = [
        Row(label, args.images, sum(map(len, sets[which].values())), min(r[key] for r in rounds))
        for key, (label, which) in LABELS.items()
    ]
    size = rows[0].size
    print(
        f"{args.images} images of {width}x{height} ({size / args.images / 1e3:.0f} kB each), "
        f"concurrency {c}, file:// storage behind rk serve-backend (SQLite), "
        f"best of {args.repeat}"
    )
    print(f"{'path':40} {'images':>6} {'MB':>7} {'s':>7} {'img/s':>7} {'MB/s':>7} {'ratio':>7}")
    for row in rows:
        print(row.line(rows[0]))
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
