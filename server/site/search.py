"""Search for the public pages: by words (the model's text tower), by an uploaded picture
(kept a while by ``photo_search``), or "more like this" from a published image's stored
vector. Results are ScoredLooks.

Every query is checked before a model runs: empty or overlong words, an upload that is
not an image, or one with more pixels than search decodes (``photo_reduce``) are one-line
4xx errors.
Which searches work depends on the backend's model: ``ability`` says it in words (never
naming the model: visitors see no model ids).
"""

from __future__ import annotations

import asyncio

import numpy as np
from msgspec import Struct

from rk.core.api.embedders import Embedder
from rk.core.api.errors import NoTextTower
from rk.core.api.storage import Storage
from rk.server.platform.http.errors import BadRequest, NotFound, Unavailable
from rk.server.similarity import (
    BadPicture,
    ModelIndex,
    PictureTooLarge,
    by_vector,
    check_photo,
    reduce_photo,
)
from rk.server.site.looks import ScoredLook, scored_looks
from rk.server.site.repository.images import live_image_row
from rk.server.site.repository.search import live_vector

MAX_QUERY_CHARS = 300
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
RESULTS = 48


class BadSearch(BadRequest):
    """The query itself is unusable."""


class SearchOff(Unavailable):
    """The backend's model cannot run this kind of search."""


class Ability(Struct, frozen=True, kw_only=True):
    """What search this backend can do, for the page to say plainly."""

    model: str
    words: bool
    pictures: bool
    note: str


def ability(embedder: Embedder | None) -> Ability:
    """What ``embedder`` (None: the backend has no model) lets visitors search by."""
    if embedder is None:
        return Ability(
            model="",
            words=False,
            pictures=False,
            note="Search by words or by photo is off: this backend has no embedding model"
            " (vision.model is not set); search by colour works.",
        )
    if not embedder.has_text:
        note = "Search by words is off: this archive's model reads pictures, not words."
        return Ability(model=embedder.model_id, words=False, pictures=True, note=note)
    return Ability(model=embedder.model_id, words=True, pictures=True, note="")


def clean_query(q: str | None) -> str:
    """The words of ``q`` on one line; BadSearch when there are too many characters."""
    query = " ".join((q or "").split())
    if len(query) > MAX_QUERY_CHARS:
        raise BadSearch(f"the search is {len(query)} characters long; at most {MAX_QUERY_CHARS}")
    return query


def check_picture(data: bytes, max_pixels: int) -> None:
    """Raise unless ``data`` is a picture of a sane size (read from its header only).

    Raises:
        BadSearch: empty upload. BadPicture: not an image. PictureTooLarge: too many bytes
            or pixels.
    """
    if not data:
        raise BadSearch("the upload is empty: choose a photo (JPEG, PNG or WebP)")
    if len(data) > MAX_UPLOAD_BYTES:
        raise PictureTooLarge(f"the upload is over {MAX_UPLOAD_BYTES // 1024 // 1024} MB")
    check_photo(data, max_pixels)


def photo_vector(embedder: Embedder, data: bytes, max_pixels: int) -> list[float]:
    """The model's vector of an uploaded photo, decoded no larger than needed (in a thread).

    Raises:
        BadPicture: not an image. PictureTooLarge: over the pixel caps (from the header).
    """
    result = embedder.embed_images([reduce_photo(data, max_pixels)])
    if not result.vectors:
        raise BadPicture("the upload is not an image the model can read (JPEG, PNG, WebP…)")
    return result.vectors[0]


async def looks_near(
    storage: Storage, vector: list[float], index: ModelIndex, kind: str | None, skip: int = 0
) -> list[ScoredLook]:
    """The published looks nearest ``vector`` (of ``kind`` when given; never image ``skip``)."""
    hits = await by_vector(vector, RESULTS + 1, storage, index, kind)
    scored = [(h.image_id, h.score) for h in hits if h.image_id != skip][:RESULTS]
    return await scored_looks(storage, scored)


async def by_words(
    storage: Storage,
    embedder: Embedder | None,
    index: ModelIndex | None,
    query: str,
    kind: str | None = None,
) -> list[ScoredLook]:
    """Published looks closest to ``query`` (already cleaned, not empty)."""
    vector, index = await words_vector(embedder, index, query)
    return await looks_near(storage, vector, index, kind)


async def words_vector(
    embedder: Embedder | None, index: ModelIndex | None, query: str
) -> tuple[list[float], ModelIndex]:
    """The text tower's vector of ``query`` and the index to search it in; SearchOff when
    the backend's model cannot read words."""
    if embedder is None or index is None or not embedder.has_text:
        raise SearchOff(ability(embedder).note)
    try:
        [vector] = await asyncio.to_thread(embedder.embed_texts, [query])
    except NoTextTower as exc:
        raise SearchOff(str(exc)) from None
    return vector, index


async def like_image(
    storage: Storage, embedder: Embedder | None, index: ModelIndex | None, image_id: int
) -> list[ScoredLook]:
    """Published looks closest to published image ``image_id`` ("more like this")."""
    if embedder is None or index is None:
        raise SearchOff(ability(embedder).note)
    stored = await live_vector(image_id, embedder.model_id)
    if stored is None:
        if await live_image_row(image_id) is None:
            raise NotFound(f"no published image {image_id}")
        raise SearchOff(f"image {image_id} has no vector yet: its similar looks come later")
    vector = np.frombuffer(stored, dtype="<f4").tolist()
    return await looks_near(storage, vector, index, None, skip=image_id)


async def like_target(storage: Storage, image_id: int) -> ScoredLook:
    """The published image "more like this" starts from, as a tile names it; NotFound when
    it is not published."""
    found = await scored_looks(storage, [(image_id, 1.0)])
    if not found:
        raise NotFound(f"no published image {image_id}")
    return found[0]
