"""rk's side of the media pair: the spider's real media path, and the same work without it.

``stored_round`` runs ``MediaUploader`` (what ``rk spider serve`` runs for every show) over
the image set cut into shows of ``SHOW_LOOKS`` looks, ``SHOWS_AT_ONCE`` shows at once as the
crawler takes them, against a real ``rk serve-backend`` whose storage is the file store or
an S3 server (presigned PUTs). ``loop_round`` is the same work with no protocol and no
backend: download, sha1, the same thumbnail in the same pool, both files written.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import httpx
import yaml

from bench.peers.rounds import Sample
from bench.spider_media import SECRET, Timer, direct, process_cpu_s, spider_settings
from rk.core.api.keys import sha1_hex
from rk.core.api.wire import ImageRef, Look, ShowIngest
from rk.core.runtime.client import BackendClient
from rk.core.runtime.http import polite_client
from rk.core.runtime.media_upload import MediaUploader
from rk.core.runtime.thumbs import thumbnail
from tests.integration.spider.procs import Backend

BACKEND_CPU = "backend CPU s/item"
"""``Sample.extra``: the backend's part of an rk round's CPU per photo (the rest is the
spider side: download, sha1, thumbnail, the signed requests and PUTs)."""
SHOW_LOOKS = 40
"""Looks per show: a runway show's size (one ``upload-urls`` round trip per show)."""
SHOWS_AT_ONCE = 5
"""Shows in flight at once: the crawler's default concurrency."""
THUMB_SIDE = 256


def backend(root: Path, storage: str | None = None) -> Backend:
    """A started ``rk serve-backend`` (SQLite, one worker), on the file store or ``storage``."""
    made = Backend(
        root, f"sqlite:///{root / 'rk.sqlite3'}", ingest={"secret": SECRET}, server={"workers": 1}
    )
    if storage is not None:
        config = yaml.safe_load(made.config.read_text(encoding="utf-8"))
        made.config.write_text(yaml.safe_dump({**config, "storage": storage}), encoding="utf-8")
    return made.start()


def shows(urls: list[str]) -> list[ShowIngest]:
    """The images cut into runway shows of ``SHOW_LOOKS`` looks."""
    out = []
    for first in range(0, len(urls), SHOW_LOOKS):
        part = urls[first : first + SHOW_LOOKS]
        looks = [Look(number=n, image=ImageRef(url=u)) for n, u in enumerate(part, start=1)]
        key = f"bench/show-{first // SHOW_LOOKS}"
        out.append(ShowIngest(source="vogue", kind="runway", show_key=key, title=key, looks=looks))
    return out


async def stored_round(server: Backend, urls: list[str], concurrency: int) -> Sample:
    """Every image through ``MediaUploader`` into ``server``'s storage, which starts empty."""
    settings = spider_settings(concurrency)
    gate = asyncio.Semaphore(SHOWS_AT_ONCE)
    timer = Timer([server.pid])
    async with (
        BackendClient(server.endpoint, SECRET) as client,
        polite_client(settings.spider) as http,
    ):
        uploader = MediaUploader(client, http, settings)

        async def one(show: ShowIngest) -> int:
            async with gate:
                _, stats = await uploader.upload_show(show, "runway")
                return stats.uploaded + stats.thumbs

        timer.start()
        backend_before = process_cpu_s(server.pid)
        stored = await asyncio.gather(*(one(show) for show in shows(urls)))
        backend_cpu = process_cpu_s(server.pid) - backend_before
        seconds, cpu = timer.stop()
    if sum(stored) != 2 * len(urls):
        raise RuntimeError(f"rk stored {sum(stored)} of {2 * len(urls)} originals and thumbnails")
    return Sample(len(urls), seconds, cpu, {BACKEND_CPU: backend_cpu / len(urls)})


async def warm_up(server: Backend, urls: list[str], concurrency: int) -> None:
    """One untimed show through the path (connections, imports, the thumbnail pool)."""
    await direct(server.endpoint, urls, concurrency, Timer([]))


async def loop_round(urls: list[str], out: Path, concurrency: int) -> Sample:
    """Download, sha1, the same thumbnail, both files written; nothing else (``out`` emptied
    first)."""
    fresh_folder(out)
    gate = asyncio.Semaphore(concurrency)
    held = asyncio.Semaphore(SHOW_LOOKS * SHOWS_AT_ONCE)  # as many images as rk's path holds
    timer = Timer([])
    async with httpx.AsyncClient(timeout=60) as http:

        async def one(url: str) -> None:
            async with held:
                async with gate:
                    response = await http.get(url)
                    response.raise_for_status()
                data = response.content
                name = sha1_hex(data)
                small = await thumbnail(data, THUMB_SIDE)
                if small is None:
                    raise RuntimeError(f"{url} did not decode")
                await asyncio.to_thread(_write_both, out, name, data, small)

        timer.start()
        await asyncio.gather(*(one(url) for url in urls))
        seconds, cpu = timer.stop()
    return Sample(len(urls), seconds, cpu)


def fresh_folder(path: Path) -> None:
    """``path`` as an empty folder."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)


def _write_both(out: Path, name: str, original: bytes, small: bytes) -> None:
    (out / f"{name}.jpg").write_bytes(original)
    (out / f"{name}.thumb.jpg").write_bytes(small)


def empty_file_store(server: Backend) -> None:
    """Remove every stored object, so the next round stores everything again."""
    shutil.rmtree(server.data_dir / "media", ignore_errors=True)


def empty_s3(endpoint: str, bucket: str) -> None:
    """Reset moto's whole state and make the bucket again (same name, empty)."""
    httpx.post(f"{endpoint}/moto-api/reset").raise_for_status()
    httpx.put(f"{endpoint}/{bucket}").raise_for_status()
