"""The photos ``bench.ingest_worker`` ingests: made once, served from memory over HTTP.

Each show has ``LOOKS`` noisy JPEGs of the asked size and, beside each, its ``w_360``
rendition (the size the sites serve), so a row can name renditions as ``thumb_url``.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import uvicorn
from PIL import Image

from bench import thumb_quality
from rk.core.api.wire import ImageRef

LOOKS = 40
RENDITION_WIDTH = 360


def make_images(folder: Path, shows: int, size: tuple[int, int]) -> int:
    """Write shows × 40 distinct photo-like JPEGs; their total size in bytes."""
    rng = np.random.default_rng(7)
    width, height = size
    yy, xx = np.mgrid[0:height, 0:width]
    base = np.stack(
        [xx * 255 // width, yy * 255 // height, (xx + yy) * 255 // (width + height)], -1
    )
    total = 0
    for show in range(shows):
        for look in range(LOOKS):
            noise = rng.integers(-24, 24, size=(height, width, 3))
            pixels = np.clip(base + noise + (show * LOOKS + look) % 50, 0, 255).astype(np.uint8)
            img = Image.fromarray(pixels, "RGB")
            out = io.BytesIO()
            img.save(out, "JPEG", quality=85)
            path = folder / f"{show}-{look}.jpg"
            path.write_bytes(out.getvalue())
            total += path.stat().st_size
            small = (RENDITION_WIDTH, round(height * RENDITION_WIDTH / width))
            out = io.BytesIO()
            img.resize(small, Image.Resampling.LANCZOS).save(out, "JPEG", quality=85)
            (folder / f"{show}-{look}-w{RENDITION_WIDTH}.jpg").write_bytes(out.getvalue())
    return total


def rendition_psnr(folder: Path) -> tuple[float, float]:
    """(mean, worst) PSNR of thumbnails made from the renditions (at the original's
    thumbnail size, as the worker makes them) against rk's thumbnails of the originals."""
    smalls = {
        path.with_name(path.name.replace(f"-w{RENDITION_WIDTH}", "")).read_bytes(): (
            path.read_bytes()
        )
        for path in sorted(folder.glob("*-w*.jpg"))
    }
    return thumb_quality.rendition_psnr(smalls)


def image_server(folder: str, port: int) -> None:
    """Serve every file of ``folder`` from memory at ``/<name>``."""
    files = {f"/{p.name}": p.read_bytes() for p in Path(folder).iterdir()}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = files.get(scope["path"])
        status = 200 if body is not None else 404
        headers = [
            (b"content-type", b"image/jpeg"),
            (b"content-length", str(len(body or b"")).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body or b""})

    uvicorn.run(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")


def show_urls(port: int, show: int) -> list[str]:
    return [f"http://127.0.0.1:{port}/{show}-{look}.jpg" for look in range(LOOKS)]


def show_refs(port: int, show: int, renditions: bool) -> list[ImageRef]:
    """The show's images, each naming its ``w_360`` rendition when ``renditions``."""
    return [
        ImageRef(url=url, thumb_url=url.replace(".jpg", f"-w{RENDITION_WIDTH}.jpg"))
        if renditions
        else ImageRef(url=url)
        for url in show_urls(port, show)
    ]
