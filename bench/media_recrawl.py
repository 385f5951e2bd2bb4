"""What a re-crawl costs per already-stored image: ask first (``exists``) vs re-PUT.

Both strategies start with the same spider → backend ``POST upload-url``; they differ in
what follows for an image storage already holds:

- ask first (``UploadUrl.exists``): the backend HEADs the key in storage; nothing else.
- idempotent PUT: the spider decodes the image into its thumbnail, PUTs the original
  again, asks for the thumbnail's upload URL (not timed here) and PUTs the thumbnail.

Storage is moto's S3 server on 127.0.0.1 through obstore, the production path; loopback
hides network cost, so the bytes sent per image are printed too. The HEAD row is the
baseline measured in the same run.

    .venv/bin/python -m bench.media_recrawl [--images 20] [--size 1280x1920]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import numpy as np
from obstore.store import S3Store
from PIL import Image

from rk.core.api.keys import sha1_hex
from rk.core.runtime.thumbs import make_thumbnail
from tests.support.net import free_port, wait_for_port


def photo(width: int, height: int, seed: int) -> bytes:
    """A JPEG with photo-like entropy (a gradient plus noise), quality 90."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 200, width)[None, :, None]
    pixels = (rng.random((height, width, 3)) * 40 + ramp).astype("uint8")
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "JPEG", quality=90)
    return out.getvalue()


async def timed(
    label: str, images: list[bytes], step: Callable[[bytes], Awaitable[int]]
) -> tuple[str, float, float]:
    """``(label, ms per image, bytes sent per image)`` of running ``step`` on each image."""
    sent = 0
    start = time.perf_counter()
    for data in images:
        sent += await step(data)
    elapsed = time.perf_counter() - start
    return label, elapsed / len(images) * 1000, sent / len(images)


async def run(count: int, width: int, height: int, endpoint: str) -> list[tuple[str, float, float]]:
    store = S3Store(
        "rk-bench",
        endpoint=endpoint,
        access_key_id="bench",
        secret_access_key="bench",
        region="us-east-1",
        client_options={"allow_http": True},
    )
    images = [photo(width, height, seed) for seed in range(count)]
    for data in images:
        await store.put_async(f"runway/{sha1_hex(data)}.jpg", data)

    async def head(data: bytes) -> int:
        await store.head_async(f"runway/{sha1_hex(data)}.jpg")
        return 0

    async def reput(data: bytes) -> int:
        sha1 = sha1_hex(data)
        thumb = await asyncio.to_thread(make_thumbnail, data, 256)
        assert thumb is not None
        await store.put_async(f"runway/{sha1}.jpg", data)
        await store.put_async(f"thumb/{sha1}.jpg", thumb)
        return len(data) + len(thumb)

    async def thumb_only(data: bytes) -> int:
        await asyncio.to_thread(make_thumbnail, data, 256)
        return 0

    return [
        await timed("ask first: storage HEAD", images, head),
        await timed("re-PUT: thumbnail decode only", images, thumb_only),
        await timed("re-PUT: decode + PUT original + thumb", images, reput),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=20)
    parser.add_argument("--size", default="1280x1920", help="WIDTHxHEIGHT of each image")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    port = free_port()
    moto_server = Path(sys.executable).with_name("moto_server")
    server = subprocess.Popen(
        [str(moto_server), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        endpoint = f"http://127.0.0.1:{port}"
        httpx.put(f"{endpoint}/rk-bench").raise_for_status()
        rows = asyncio.run(run(args.images, width, height, endpoint))
    finally:
        server.terminate()
        server.wait()
    base = rows[0][1]
    print(f"{args.images} images of {width}x{height}, moto S3 on loopback")
    print(f"{'strategy, per already-stored image':42} {'ms':>8} {'bytes sent':>11} {'vs HEAD':>8}")
    for label, ms, sent in rows:
        print(f"{label:42} {ms:8.2f} {sent:11.0f} {ms / base:7.1f}x")


if __name__ == "__main__":
    main()
