"""Search by photo at a URL that can be reloaded and shared: ``/search?photo=<sha1>``.

An uploaded photo is checked and re-encoded once (upright, a JPEG no larger than
``KEPT_SIDE`` pixels a side, its metadata dropped), kept under the SHA-1 of those bytes
with the vector its search used, and the upload answers with a redirect to its page. The
page shows the photo and its results for ``KEEP_S``; after that it says the photo is gone.
Whenever a photo is kept the expired ones are deleted, and at most ``MAX_KEPT`` are kept.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import time
from typing import Any

import numpy as np
from msgspec import Struct
from PIL import Image, ImageOps

from rk.core.api.embedders import Embedder
from rk.core.api.storage import Storage
from rk.server.platform.http.errors import Gone, NotFound
from rk.server.similarity import ModelIndex, reduce_photo
from rk.server.site.looks import ScoredLook
from rk.server.site.repository.search_photos import (
    drop_expired,
    keep_photo,
    kept_photo,
    set_vector,
)
from rk.server.site.search import SearchOff, ability, check_picture, looks_near, photo_vector

KEEP_S = 7 * 86400
KEPT_SIDE = 768
MAX_KEPT = 10_000
SHA1 = re.compile(r"^[0-9a-f]{40}$")


class PhotoGone(Gone):
    """The photo of a search is no longer kept (or never was)."""


class KeptPhoto(Struct, frozen=True, kw_only=True):
    """A kept search photo as its page shows it: ``/search/photos/<sha1>.jpg`` and its size."""

    sha1: str
    width: int
    height: int

    @property
    def url(self) -> str:
        """Where the page loads the photo from."""
        return f"/search/photos/{self.sha1}.jpg"


def kept_jpeg(data: bytes, max_pixels: int) -> tuple[bytes, int, int]:
    """The photo as kept: upright, within ``KEPT_SIDE`` pixels a side, flattened on white,
    as a JPEG without metadata; with its width and height.

    Raises:
        BadPicture: not an image. PictureTooLarge: over the pixel caps.
    """
    reduced = reduce_photo(data, max_pixels, side=KEPT_SIDE)
    with Image.open(io.BytesIO(reduced)) as opened:
        image = ImageOps.exif_transpose(opened)
        if image.mode in ("RGBA", "LA", "PA"):
            ground = Image.new("RGB", image.size, (255, 255, 255))
            ground.paste(image, mask=image.convert("RGBA").getchannel("A"))
            image = ground
        rgb = image.convert("RGB")
        rgb.thumbnail((KEPT_SIDE, KEPT_SIDE), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        rgb.save(out, format="JPEG", quality=88, optimize=True)
        return out.getvalue(), rgb.width, rgb.height


def packed(vector: list[float]) -> bytes:
    """A vector as stored: float32 little-endian."""
    return np.asarray(vector, dtype="<f4").tobytes()


async def keep_search_photo(embedder: Embedder | None, data: bytes, max_pixels: int) -> str:
    """Check, re-encode, embed and keep an uploaded photo; the SHA-1 its page is named by.

    Raises:
        BadSearch: empty. BadPicture / PictureTooLarge: not a usable picture. SearchOff: no
            model.
    """
    check_picture(data, max_pixels)
    if embedder is None:
        raise SearchOff(ability(embedder).note)
    jpeg, width, height = await asyncio.to_thread(kept_jpeg, data, max_pixels)
    vector = await asyncio.to_thread(photo_vector, embedder, jpeg, max_pixels)
    sha1 = hashlib.sha1(jpeg).hexdigest()
    now = int(time.time())
    await drop_expired(now, MAX_KEPT)
    await keep_photo(
        sha1, jpeg, (width, height), (embedder.model_id, packed(vector)), now, now + KEEP_S
    )
    return sha1


async def kept_row(sha1: str) -> dict[str, Any]:
    """The kept photo named ``sha1``; PhotoGone when it is not kept (any more)."""
    row = await kept_photo(sha1, int(time.time())) if SHA1.match(sha1) else None
    if row is None:
        raise PhotoGone(
            f"this photo search is no longer kept (photos are kept {KEEP_S // 86400} days):"
            " search with the photo again"
        )
    return row


async def photo_bytes(name: str) -> bytes:
    """The JPEG of ``<sha1>.jpg`` while it is kept; NotFound otherwise."""
    try:
        row = await kept_row(name.removesuffix(".jpg"))
    except PhotoGone:
        raise NotFound(f"no kept search photo {name[:60]!r}") from None
    return bytes(row["data"])


async def photo_looks(
    storage: Storage, embedder: Embedder | None, index: ModelIndex | None, sha1: str
) -> tuple[KeptPhoto, list[ScoredLook]]:
    """The kept photo named ``sha1`` and the published looks nearest it.

    Raises:
        PhotoGone: not kept. SearchOff: no model.
    """
    photo, vector, index = await kept_vector(embedder, index, sha1)
    return photo, await looks_near(storage, vector, index, None)


async def kept_vector(
    embedder: Embedder | None, index: ModelIndex | None, sha1: str
) -> tuple[KeptPhoto, list[float], ModelIndex]:
    """The kept photo named ``sha1``, its vector under the backend's model (made again, and
    kept, when the model changed since) and the index to search it in.

    Raises:
        PhotoGone: not kept. SearchOff: no model.
    """
    row = await kept_row(sha1)
    if embedder is None or index is None:
        raise SearchOff(ability(embedder).note)
    if row["model"] == embedder.model_id and row["vector"]:
        vector = np.frombuffer(bytes(row["vector"]), dtype="<f4").tolist()
    else:
        data = bytes(row["data"])
        vector = await asyncio.to_thread(photo_vector, embedder, data, KEPT_SIDE * KEPT_SIDE)
        await set_vector(sha1, embedder.model_id, packed(vector))
    photo = KeptPhoto(sha1=sha1, width=int(str(row["width"])), height=int(str(row["height"])))
    return photo, vector, index
