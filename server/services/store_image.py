"""Get one image of a show into storage: reuse a spider-uploaded key, else download it.

Every stored image gets its thumbnail, made once by whoever holds the bytes. Keys this
job writes are recorded in ``Written`` *before* the write, so a rollback (or a cancel in
the middle of a put) knows every object it may have to delete. Keys a spider uploaded
are never recorded: a rollback never deletes them.

Storage errors (``OSError``) propagate: the whole job fails and is retried. A problem with
this one image (download refused or failed, not an image) is an ``ImageFailure``.
"""

from __future__ import annotations

import asyncio
import io
import warnings

import msgspec
from msgspec import Struct
from PIL import Image, UnidentifiedImageError

from rk.core.errors import InvalidKey
from rk.core.keys import Kind, content_key, parse_content_key, sha1_hex, thumb_key
from rk.core.storage import Storage
from rk.core.thumbs import make_thumbnail, pixel_problem
from rk.core.wire import ImageRef
from rk.server.services.fetch import Fetcher, FetchError


class ImageFailure(Exception):
    """This image could not be stored; ``reason`` is short, ``transient`` says retry."""

    def __init__(self, reason: str, *, transient: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.transient = transient


class StoredImage(Struct, frozen=True, kw_only=True):
    """An image in storage, ready to be written as an ``images`` row."""

    key: str
    thumb_key: str
    sha1: str
    size: int
    width: int = 0
    height: int = 0
    uploaded_by_spider: bool = False
    fell_back: str = ""


class Written:
    """The keys one job wrote (or was about to write) to storage."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def add(self, key: str) -> None:
        """Record ``key`` before writing it."""
        if key not in self.keys:
            self.keys.append(key)


def probe(data: bytes) -> tuple[int, int, str]:
    """``(width, height, MIME type)`` of an image, from its header; ImageFailure otherwise.

    An image with more pixels than ``MAX_PIXELS`` fails here, before anything decodes it.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                width, height = img.size
                mime = Image.MIME.get(img.format or "", "application/octet-stream")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        raise ImageFailure("not an image") from None
    problem = pixel_problem(width, height)
    if problem:
        raise ImageFailure(problem)
    return width, height, mime


class ImageStorer:
    """Stores images for ingest jobs into one storage."""

    def __init__(self, storage: Storage, fetcher: Fetcher, thumb_size: int) -> None:
        self.storage = storage
        self.fetcher = fetcher
        self.thumb_size = thumb_size

    async def _thumbnail(self, data: bytes, sha1: str, written: Written) -> str:
        """Make and store ``thumb/<sha1>.jpg`` unless it exists; ImageFailure if undecodable."""
        key = thumb_key(sha1)
        if await self.storage.head(key) is not None:
            return key
        thumb = await asyncio.to_thread(make_thumbnail, data, self.thumb_size)
        if thumb is None:
            raise ImageFailure("image does not decode")
        written.add(key)
        await self.storage.put(key, thumb, "image/jpeg")
        return key

    async def _uploaded(self, ref: ImageRef, key: str, written: Written) -> StoredImage | str:
        """The uploaded object at ``key``, or why it cannot be used (then the URL is fetched)."""
        try:
            _, sha1 = parse_content_key(key)
        except InvalidKey:
            return "uploaded key is not content-addressed"
        info = await self.storage.head(key)
        if info is None:
            return "uploaded key missing"
        if ref.size is not None and info.size != ref.size:
            return f"uploaded key has {info.size} bytes, not {ref.size}"
        width = height = 0
        thumb = thumb_key(sha1)
        if await self.storage.head(thumb) is None:
            try:
                data = await self.storage.get(key)
            except FileNotFoundError:
                return "uploaded key missing"
            try:
                width, height, _ = probe(data)
            except ImageFailure as exc:
                return f"uploaded object: {exc.reason}"
            made = await asyncio.to_thread(make_thumbnail, data, self.thumb_size)
            if made is None:
                return "uploaded object does not decode"
            written.add(thumb)
            await self.storage.put(thumb, made, "image/jpeg")
        return StoredImage(
            key=key,
            thumb_key=thumb,
            sha1=sha1,
            size=info.size,
            width=width,
            height=height,
            uploaded_by_spider=True,
        )

    async def _downloaded(self, url: str, kind: Kind, written: Written) -> StoredImage:
        try:
            fetched = await self.fetcher.fetch(url)
        except FetchError as exc:
            raise ImageFailure(exc.reason, transient=exc.transient) from None
        data = fetched.data
        try:
            width, height, mime = probe(data)
        except ImageFailure as exc:
            if exc.reason != "not an image":
                raise
            got = fetched.content_type.split(";")[0].strip() or "unknown type"
            raise ImageFailure(f"not an image ({got})") from None
        sha1 = sha1_hex(data)
        thumb = await self._thumbnail(data, sha1, written)
        key = content_key(kind, sha1)
        existing = await self.storage.head(key)
        if existing is None or existing.size != len(data):
            written.add(key)
            await self.storage.put(key, data, mime)
        return StoredImage(
            key=key, thumb_key=thumb, sha1=sha1, size=len(data), width=width, height=height
        )

    async def store(self, ref: ImageRef, kind: Kind, written: Written) -> StoredImage:
        """The stored image for ``ref``: its uploaded key when usable, else a download."""
        fell_back = ""
        if ref.key is not None:
            uploaded = await self._uploaded(ref, ref.key, written)
            if isinstance(uploaded, StoredImage):
                return uploaded
            fell_back = uploaded
        stored = await self._downloaded(ref.url, kind, written)
        return msgspec.structs.replace(stored, fell_back=fell_back) if fell_back else stored
