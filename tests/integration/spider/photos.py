"""The synthetic Vogue site with a distinct real JPEG behind every ``/photos/…`` path.

The captured-shape pages under ``tests/sites/vogue`` link their photos but ship no image
files; end-to-end tests need every image to be different bytes (content keys would
collapse identical ones), so each photo answers a small noise JPEG seeded by its path
without the transform segment. A ``w_N,c_limit`` transform narrower than the photo answers
it scaled to N wide, as the CDN does (``c_limit`` never upscales), so thumbnail renditions
(``sm`` is ``w_360``) are the same photo, smaller. Show pages can be slowed down so a test
can act while a brand is mid-crawl.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PIL import Image

from tests.support.sites import SiteServer

SITES = Path(__file__).parents[2] / "sites"
PHOTOS = "/photos/"
TRANSFORM = re.compile(r"^(/photos/[^/]+/[^/]+/)([^/]+)(/[^/]+)$")
LIMIT = re.compile(r"w_(\d{1,5})(?:,|%2[Cc])c_limit")


def photo_bytes(path: str, size: tuple[int, int] = (48, 72)) -> bytes:
    """A JPEG seeded by ``path``: the same path always gives the same bytes.

    Small images are pure noise; large ones (benchmarks) are coarse noise scaled up, which
    compresses about like a runway photo (~400 KB at 1280×1920).
    """
    width, height = size
    seed = int.from_bytes(hashlib.sha1(path.encode()).digest()[:8], "big")
    rng = np.random.default_rng(seed)
    if width < 256:
        img = Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8))
    else:
        coarse = rng.integers(0, 256, (height // 16, width // 16, 3), dtype=np.uint8)
        img = Image.fromarray(coarse).resize(size, Image.Resampling.BILINEAR)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=85)
    return out.getvalue()


def rendition(data: bytes, width: int) -> bytes:
    """``data`` scaled to ``width`` (height in proportion), as an image CDN serves it."""
    with Image.open(io.BytesIO(data)) as img:
        size = (width, max(1, round(img.height * width / img.width)))
        small = img.convert("RGB").resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    small.save(out, "JPEG", quality=85)
    return out.getvalue()


class PhotoSite(SiteServer):
    """``SiteServer`` over the Vogue pages; photos answered with ``photo_bytes``.

    ``slow_pages`` delays every ``/fashion-shows/<season>/<designer>`` page by that many
    seconds (a show page, not the designer index), so a crawl takes a predictable time.
    """

    def __init__(
        self, root: Path = SITES / "vogue", photo_size: tuple[int, int] = (48, 72)
    ) -> None:
        super().__init__(root)
        self.photo_size = photo_size
        self.slow_pages = 0.0
        self._photos: dict[str, bytes] = {}
        self._photo_lock = threading.Lock()

    def photo(self, path: str) -> bytes:
        """The bytes a photo path answers (cached): its rendition when the transform is a
        ``w_N,c_limit`` narrower than the photo."""
        match = TRANSFORM.match(path)
        width = LIMIT.fullmatch(match.group(2)) if match else None
        full = f"{match.group(1)}_{match.group(3)}" if match else path
        with self._photo_lock:
            data = self._photos.get(full)
            if data is None:
                data = self._photos[full] = photo_bytes(full, self.photo_size)
        if width is None or int(width.group(1)) >= self.photo_size[0]:
            return data
        with self._photo_lock:
            small = self._photos.get(path)
            if small is None:
                small = self._photos[path] = rendition(data, int(width.group(1)))
            return small

    def photo_gets(self) -> int:
        """How many photo downloads were answered so far."""
        return len(self.paths(PHOTOS))

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """A photo for ``/photos/…`` (unless a test routed it), else the page as usual."""
        with self._lock:
            routed = any(route.matches(path, query) for route in self.routes)
        if path.startswith(PHOTOS) and not routed:
            return 200, {"Content-Type": "image/jpeg"}, self.photo(path)
        if self.slow_pages and _is_show_page(path):
            time.sleep(self.slow_pages)
        return super().answer(path, query)


def _is_show_page(path: str) -> bool:
    parts = path.strip("/").split("/")
    return len(parts) == 3 and parts[0] == "fashion-shows" and parts[1] != "designer"


@contextmanager
def serve_photo_site(photo_size: tuple[int, int] = (48, 72)) -> Iterator[PhotoSite]:
    """A started PhotoSite, stopped on exit."""
    site = PhotoSite(photo_size=photo_size)
    site.start()
    try:
        yield site
    finally:
        site.stop()
