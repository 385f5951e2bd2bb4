"""Get one image of a show into storage: reuse a spider-uploaded key, else download it.

Every stored image gets its thumbnail, made once by whoever holds the bytes: from the
site's smaller rendition (``ImageRef.thumb_url``) when ``rk.core.runtime.renditions`` says it
stands in for the original, else from the original (a fallback is logged); and its own
rendition ladder, made here from the original (``store_ladder``); and its garment palette,
measured from the thumbnail in hand (``rk.server.colour``), written with the image rows. Keys this
job uses are claimed in the database before they are looked at (``media_refs``), and keys
it writes are recorded in ``Written`` *before* the write, so a rollback (or a cancel in
the middle of a put) knows every object it may have to delete. Keys a spider uploaded
are never recorded: a rollback never deletes them.

Storage errors (``OSError``) propagate: the whole job fails and is retried. A problem with
this one image (download refused or failed, not an image) is an ``ImageFailure``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal

import msgspec
from msgspec import Struct

from rk.core.api.errors import InvalidKey
from rk.core.api.keys import (
    Hashed,
    Kind,
    content_key,
    parse_content_key,
    rendition_keys,
    thumb_key,
)
from rk.core.api.storage import Storage
from rk.core.api.wire import ImageRef
from rk.core.runtime.renditions import rendition_thumbnail
from rk.core.runtime.thumbs import in_pool, pixel_problem, thumbnail
from rk.server.colour import Palette, UnreadableImage, colours_for_thumbnail
from rk.server.ingest.fetch import Failure, Fetcher, FetchError
from rk.server.ingest.repository import known_original_size, thumbnail_in_use
from rk.server.ingest.store_ladder import ensure_ladder
from rk.server.media import claim, delete_if_unreferenced, image_info, thumbnail_problem

log = logging.getLogger(__name__)


ThumbFrom = Literal["stored", "rendition", "original", "fallback"]
"""Where an image's thumbnail came from: already in storage, made from the site's smaller
rendition (``ImageRef.thumb_url``), from the original (no rendition offered), or from the
original because the rendition was missing or unfit."""


class ImageFailure(Failure):
    """This image could not be stored; ``reason`` is short, ``transient`` says retry."""


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
    thumb_from: ThumbFrom = "stored"
    palette: Palette | None = None
    """The garment's palette measured from the thumbnail; None when it did not decode (the
    colour backfill measures it later)."""


class Written:
    """The keys one job wrote (or was about to write) to storage, and its claims.

    ``job_id`` (0: no job, nothing claimed) claims every key the job looks at before it
    looks (``media_refs.claim``), so no other job's rollback deletes it meanwhile. Claims
    asked for while one claim statement runs go together into the next one (as a group
    commit does), so a show's images share a few statements instead of one each.
    """

    def __init__(self, job_id: int = 0) -> None:
        self.job_id = job_id
        self.keys: list[str] = []
        self._claimed: set[str] = set()
        self._asked: dict[str, None] = {}
        self._turn = asyncio.Lock()

    async def claim(self, *keys: str) -> None:
        """Claim ``keys`` for this job before they are looked at or written."""
        new = [k for k in keys if k and k not in self._claimed]
        if not self.job_id or not new:
            return
        self._asked.update(dict.fromkeys(new))
        async with self._turn:
            if self._claimed.issuperset(new):
                return  # the statement that just ran took them with its own
            batch = [k for k in dict.fromkeys([*self._asked, *new]) if k not in self._claimed]
            self._asked.clear()
            await claim(self.job_id, batch)
            self._claimed.update(batch)

    def add(self, key: str) -> None:
        """Record ``key`` before writing it."""
        if key not in self.keys:
            self.keys.append(key)


def probe(data: bytes) -> tuple[int, int, str]:
    """``(width, height, MIME type)`` of an image, from its header; ImageFailure otherwise.

    An image with more pixels than ``MAX_PIXELS`` fails here, before anything decodes it.
    """
    info = image_info(data)
    if info is None:
        raise ImageFailure("not an image")
    problem = pixel_problem(info[0], info[1])
    if problem:
        raise ImageFailure(problem)
    return info


class ImageStorer:
    """Stores images for ingest jobs into one storage."""

    def __init__(self, storage: Storage, fetcher: Fetcher, thumb_size: int) -> None:
        self.storage = storage
        self.fetcher = fetcher
        self.thumb_size = thumb_size

    async def _usable_thumb(self, key: str, original: tuple[int, int], written: Written) -> bool:
        """True when the stored thumbnail ``key`` may be referenced.

        One an image row uses was checked when it was first referenced. Any other must
        decode as this original's thumbnail; a bad one nobody uses is deleted (then False).
        """
        if await thumbnail_in_use(key):
            return True
        try:
            data = await self.storage.get(key)
        except FileNotFoundError:
            return False
        problem = await asyncio.to_thread(thumbnail_problem, data, original, self.thumb_size)
        if problem is None:
            return True
        log.warning("stored thumbnail %s %s; replacing it", key, problem)
        if await delete_if_unreferenced(self.storage, key, job_id=written.job_id):
            return False
        raise ImageFailure(f"stored thumbnail {problem}", transient=True)

    async def _thumbnail(
        self,
        sha1: str,
        original: tuple[int, int],
        load: Callable[[], Awaitable[bytes]],
        written: Written,
        thumb_url: str | None = None,
    ) -> tuple[str, ThumbFrom, Palette | None]:
        """``thumb/<sha1>.jpg``: a verified stored one, else made from ``load()``'s bytes (or
        from the rendition at ``thumb_url`` when it stands in); where it came from, and the
        palette measured from it."""
        key = thumb_key(sha1)
        if await self.storage.head(key) is not None and await self._usable_thumb(
            key, original, written
        ):
            return key, "stored", await self._palette(key, None)
        data = await load()
        made_from: ThumbFrom = "rendition"
        thumb = await self._from_rendition(data, thumb_url)
        if thumb is None:
            thumb = await thumbnail(data, self.thumb_size)
            made_from = "original" if thumb_url is None else "fallback"
        if thumb is None:
            raise ImageFailure("image does not decode")
        written.add(key)
        if not await self.storage.create(key, thumb, "image/jpeg") and not (
            await self._usable_thumb(key, original, written)
        ):
            raise ImageFailure("thumbnail was replaced while it was being stored", transient=True)
        return key, made_from, await self._palette(key, thumb)

    async def _palette(self, key: str, thumb: bytes | None) -> Palette | None:
        """The palette of thumbnail ``key`` (``thumb``: its bytes when just made, else read
        back); None, logged, when it is gone or does not decode: the backfill tries again."""
        try:
            data = thumb if thumb is not None else await self.storage.get(key)
            return await in_pool(colours_for_thumbnail, data)
        except (FileNotFoundError, UnreadableImage) as exc:
            log.warning("no palette for %s at ingest: %s", key, exc)
            return None

    async def _from_rendition(self, original: bytes, thumb_url: str | None) -> bytes | None:
        """The thumbnail made from the rendition at ``thumb_url``; None (a fallback logged)
        when there is none, it cannot be fetched, or it cannot stand in for the original."""
        if thumb_url is None:
            return None
        try:
            rendition = await self.fetcher.fetch(thumb_url)
        except FetchError as exc:
            problem = f"rendition {exc.reason}"
        else:
            made = await rendition_thumbnail(original, rendition.data, self.thumb_size)
            if made.thumb is not None:
                return made.thumb
            problem = made.problem
        log.info("thumbnail from the original, not %s: %s", thumb_url, problem)
        return None

    async def _original_size(
        self, key: str, load: Callable[[], Awaitable[bytes]]
    ) -> tuple[int, int] | None:
        """The original's pixel size: from an image row with this key, else its header."""
        known = await known_original_size(key)
        if known is not None:
            return known
        info = await asyncio.to_thread(image_info, await load())
        return None if info is None else (info[0], info[1])

    async def _uploaded(self, ref: ImageRef, key: str, written: Written) -> StoredImage | str:
        """The uploaded object at ``key``, or why it cannot be used (then the URL is fetched)."""
        try:
            _, sha1 = parse_content_key(key)
        except InvalidKey:
            return "uploaded key is not content-addressed"
        await written.claim(key, thumb_key(sha1), *rendition_keys(sha1))
        info = await self.storage.head(key)
        if info is None:
            return "uploaded key missing"
        if ref.size is not None and info.size != ref.size:
            return f"uploaded key has {info.size} bytes, not {ref.size}"
        loaded: list[bytes] = []

        async def load() -> bytes:
            if not loaded:
                loaded.append(await self.storage.get(key))
            return loaded[0]

        try:
            size = await self._original_size(key, load)
            if size is None:
                return "uploaded object does not decode"
            thumb, made_from, palette = await self._thumbnail(
                sha1, size, load, written, ref.thumb_url
            )
            await ensure_ladder(self.storage, key, load, written.add)
        except FileNotFoundError:
            return "uploaded key missing"
        except ImageFailure as failure:
            if failure.transient:
                raise
            return "uploaded object does not decode"
        return StoredImage(
            key=key,
            thumb_key=thumb,
            sha1=sha1,
            size=info.size,
            width=size[0],
            height=size[1],
            uploaded_by_spider=True,
            thumb_from=made_from,
            palette=palette,
        )

    async def _downloaded(self, ref: ImageRef, kind: Kind, written: Written) -> StoredImage:
        try:
            fetched = await self.fetcher.fetch(ref.url)
        except FetchError as exc:
            raise ImageFailure(exc.reason, transient=exc.transient) from None
        try:
            width, height, mime = probe(fetched.data)
        except ImageFailure as exc:
            if exc.reason != "not an image":
                raise
            got = fetched.content_type.split(";")[0].strip() or "unknown type"
            raise ImageFailure(f"not an image ({got})") from None
        data = await asyncio.to_thread(Hashed, fetched.data)  # hashed once, off the event loop
        sha1 = data.sha1
        key = content_key(kind, sha1)
        await written.claim(key, thumb_key(sha1), *rendition_keys(sha1))

        async def load() -> bytes:
            return data

        thumb, made_from, palette = await self._thumbnail(
            sha1, (width, height), load, written, ref.thumb_url
        )
        existing = await self.storage.head(key)
        if existing is None:
            written.add(key)
            await self.storage.create(key, data, mime)
        elif existing.size != len(data):
            written.add(key)
            await self.storage.put(key, data, mime)
        await ensure_ladder(self.storage, key, load, written.add)
        return StoredImage(
            key=key,
            thumb_key=thumb,
            sha1=sha1,
            size=len(data),
            width=width,
            height=height,
            thumb_from=made_from,
            palette=palette,
        )

    async def store(self, ref: ImageRef, kind: Kind, written: Written) -> StoredImage:
        """The stored image for ``ref``: its uploaded key when usable, else a download."""
        fell_back = ""
        if ref.key is not None:
            uploaded = await self._uploaded(ref, ref.key, written)
            if isinstance(uploaded, StoredImage):
                return uploaded
            fell_back = uploaded
        stored = await self._downloaded(ref, kind, written)
        return msgspec.structs.replace(stored, fell_back=fell_back) if fell_back else stored
