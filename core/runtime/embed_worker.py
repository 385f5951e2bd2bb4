"""The embed worker behind ``rk spider embed``: pending → download → embed → submit.

It runs on a GPU machine with only ``rk.core`` and the plugins (never ``rk.server``):

- lease a round of pending images from the backend (``BackendClient``);
- download them concurrently from the URLs the backend gave (its ``/media`` route or a
  presigned store URL), each capped at ``media.max_image_bytes``;
- embed full batches as soon as they are downloaded — in this process through the
  embedder plugin, or through ``vision.endpoint`` (``rk vision serve``, the predecessor's
  ``POST /embed``) — with two batches in flight, so one is decoded while the other runs;
- submit each batch's vectors with its failures. An image that did not download, did not
  decode or came out with NaNs is reported as a failure, so the backend counts it and
  drops it after the cap; a vision service that is down is an error, never a failure
  of the images (it would burn their attempts).
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Protocol

import httpx
import msgspec
import numpy as np

from rk.core.api.embedders import Embedder, EmbedResult
from rk.core.api.errors import RkError
from rk.core.api.wire import (
    EmbeddingFailure,
    EmbeddingSubmit,
    EmbeddingVector,
    PendingImage,
    VisionEmbedRequest,
    VisionEmbedResponse,
    printable,
)
from rk.core.runtime import worker_metrics
from rk.core.runtime.client import BackendClient

IN_FLIGHT = 1
"""Model calls at once. One: a call gets several batches, and the embedder pipelines
them itself (decoding the next while the model runs one); two calls would fight over
the same cores."""
CHUNK_BATCHES = 4
"""The most batches one model call takes."""
SUBMIT_ITEMS = 64
"""Vectors per submit: 64 x 512 floats is ~0.7 MB of JSON, well under the body limit."""


class VisionUnavailable(RkError):
    """The vision service cannot embed right now (down, refusing, or answering nonsense)."""


class DownloadFailed(Exception):
    """One image could not be downloaded; the reason becomes its failure."""


class Encoder(Protocol):
    """Turns a batch of image bytes into vectors (``EmbedResult``)."""

    async def encode(self, images: list[bytes]) -> EmbedResult:
        """Embed ``images``; undecodable ones are listed in ``skipped``."""
        ...


class LocalEncoder:
    """The embedder plugin in this process; its work runs in a thread."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def encode(self, images: list[bytes]) -> EmbedResult:
        """Embed in a worker thread (ONNX Runtime releases the GIL)."""
        return await asyncio.to_thread(self.embedder.embed_images, images)


class RemoteEncoder:
    """A vision service (``rk vision serve``): ``POST {endpoint}/embed``."""

    def __init__(self, endpoint: str, http: httpx.AsyncClient) -> None:
        self.url = endpoint.rstrip("/") + "/embed"
        self.http = http

    async def encode(self, images: list[bytes]) -> EmbedResult:
        """Send base64 images; VisionUnavailable on any transport or protocol failure."""
        body = VisionEmbedRequest(images=[base64.b64encode(i).decode("ascii") for i in images])
        try:
            response = await self.http.post(self.url, content=msgspec.json.encode(body))
        except httpx.HTTPError as exc:
            raise VisionUnavailable(f"vision service {self.url}: {type(exc).__name__}") from None
        if response.status_code != 200:
            reason = " ".join(response.text.split())[:200]
            raise VisionUnavailable(
                f"vision service {self.url} answered HTTP {response.status_code}: {reason}"
            )
        try:
            answer = msgspec.json.decode(response.content, type=VisionEmbedResponse)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            line = str(exc).splitlines()[0]
            raise VisionUnavailable(
                f"vision service {self.url}: unreadable answer: {line}"
            ) from None
        return EmbedResult(
            dim=answer.dim, vectors=answer.vectors, indexes=answer.indexes, skipped=answer.skipped
        )


class Progress(Protocol):
    """Where a round reports progress (a terminal progress bar, or nothing)."""

    def start(self, total: int) -> None:
        """A round of ``total`` images begins."""
        ...

    def advance(self, count: int) -> None:
        """``count`` more images are done (saved or failed)."""
        ...


class NoProgress:
    """Progress that shows nothing."""

    def start(self, total: int) -> None:
        """Ignore."""

    def advance(self, count: int) -> None:
        """Ignore."""


@dataclass
class RoundStats:
    """What one round did, as the backend counted it."""

    fetched: int = 0
    saved: int = 0
    failed: int = 0
    remaining: int = 0
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        """The predecessor's one line: ``fetched 100 → saved 97, failed 3 (remaining 1,204)``."""
        return (
            f"fetched {self.fetched:,} → saved {self.saved:,}, failed {self.failed:,} "
            f"(remaining {self.remaining:,})"
        )


@dataclass(frozen=True)
class Fetched:
    """One pending image after its download: bytes, or why there are none."""

    item: PendingImage
    data: bytes = b""
    error: str = ""


@dataclass(eq=False)
class EmbedWorker:
    """Rounds of pending → download → embed → submit for one image kind."""

    client: BackendClient
    encoder: Encoder
    http: httpx.AsyncClient
    _: KW_ONLY
    kind: str
    limit: int = 100
    batch: int = 32
    concurrency: int = 8
    max_bytes: int = 30 * 1024 * 1024
    in_flight: int = IN_FLIGHT
    chunk_batches: int = CHUNK_BATCHES

    def __post_init__(self) -> None:
        """At least one of each: a batch, a download, a batch in flight, a batch per chunk."""
        self.batch = max(1, self.batch)
        self.concurrency = max(1, self.concurrency)
        self.in_flight = max(1, self.in_flight)
        self.chunk_batches = max(1, self.chunk_batches)

    async def download(self, url: str) -> bytes:
        """The bytes at ``url``; DownloadFailed with a short reason otherwise."""
        try:
            async with self.http.stream("GET", url) as response:
                if response.status_code != 200:
                    raise DownloadFailed(f"download: HTTP {response.status_code}")
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise DownloadFailed(f"download: larger than {self.max_bytes} bytes")
                    chunks.append(chunk)
        except httpx.HTTPError as exc:
            raise DownloadFailed(f"download: {type(exc).__name__}: {exc}"[:300]) from None
        if size == 0:
            raise DownloadFailed("download: empty body")
        worker_metrics.EMBED_BYTES.inc(size)
        return b"".join(chunks)

    async def _fetch(self, item: PendingImage, gate: asyncio.Semaphore) -> Fetched:
        async with gate:
            try:
                return Fetched(item=item, data=await self.download(item.url))
            except DownloadFailed as exc:
                worker_metrics.EMBED_ERRORS.labels("download").inc()
                return Fetched(item=item, error=str(exc))

    async def run_round(self, progress: Progress | None = None) -> RoundStats:
        """One round; the stats the backend confirmed."""
        shown = progress or NoProgress()
        pending = await self.client.pending_embeddings(self.kind, self.limit)
        stats = RoundStats(fetched=len(pending.items), remaining=pending.remaining)
        if not pending.items:
            return stats
        shown.start(len(pending.items))
        gate = asyncio.Semaphore(self.concurrency)
        downloads = [asyncio.create_task(self._fetch(i, gate)) for i in pending.items]
        lanes = asyncio.Semaphore(self.in_flight)
        sending: list[asyncio.Task[None]] = []
        ready: list[Fetched] = []

        def launch() -> None:
            nonlocal ready
            take = _take(ready, self.batch * self.chunk_batches)
            sending.append(asyncio.create_task(self._send(ready[:take], stats, shown, lanes)))
            ready = ready[take:]

        try:
            for done in asyncio.as_completed(downloads):
                ready.append(await done)
                # a free lane takes what is ready (at least a batch): while the model is
                # busy, downloads pile up and the next call gets them all, pipelined
                if _good(ready) >= self.batch and not lanes.locked():
                    await lanes.acquire()
                    launch()
            while ready:
                await lanes.acquire()
                launch()
            await asyncio.gather(*sending)
        finally:
            for task in [*downloads, *sending]:
                task.cancel()
        return stats

    async def _send(
        self,
        fetched: Sequence[Fetched],
        stats: RoundStats,
        shown: Progress,
        lanes: asyncio.Semaphore,
    ) -> None:
        """Embed a chunk (holding a model lane) and submit its vectors with its failures."""
        try:
            good = [f for f in fetched if not f.error]
            failures = [self._failure(f.item, f.error) for f in fetched if f.error]
            vectors: list[EmbeddingVector] = []
            if good:
                result = await self.encoder.encode([f.data for f in good])
                vectors, bad = self._vectors(good, result)
                failures += bad
        finally:
            lanes.release()  # the next chunk may use the model while this one is sent
        for start in range(0, max(len(vectors), 1), SUBMIT_ITEMS):
            piece = EmbeddingSubmit(
                items=vectors[start : start + SUBMIT_ITEMS], failures=failures if not start else []
            )
            answer = await self.client.submit_embeddings(piece)
            stats.saved += answer.saved
            stats.failed += answer.failed
            worker_metrics.EMBEDDED.labels("saved").inc(answer.saved)
            worker_metrics.EMBEDDED.labels("failed").inc(answer.failed)
            worker_metrics.EMBED_ERRORS.labels("rejected").inc(len(answer.errors))
            stats.errors += [f"image {e.image_id}: {e.error}" for e in answer.errors]
        shown.advance(len(fetched))

    def _failure(self, item: PendingImage, error: str) -> EmbeddingFailure:
        return EmbeddingFailure(kind=self.kind, image_id=item.image_id, error=printable(error))

    def _vectors(
        self, good: list[Fetched], result: EmbedResult
    ) -> tuple[list[EmbeddingVector], list[EmbeddingFailure]]:
        """Vectors for the decodable images; failures for skipped and non-finite ones."""
        vectors: list[EmbeddingVector] = []
        failures = [self._failure(good[i].item, "not a decodable image") for i in result.skipped]
        worker_metrics.EMBED_ERRORS.labels("undecodable").inc(len(result.skipped))
        for row, index in enumerate(result.indexes):
            item = good[index].item
            if not np.isfinite(np.asarray(result.vectors[row], dtype=np.float64)).all():
                failures.append(self._failure(item, "model produced NaN or infinite values"))
                continue
            vector = result.vectors[row]
            vectors.append(EmbeddingVector(kind=self.kind, image_id=item.image_id, vector=vector))
        unanswered = set(range(len(good))) - set(result.indexes) - set(result.skipped)
        failures += [self._failure(good[i].item, "no vector returned") for i in sorted(unanswered)]
        return vectors, failures


def _good(fetched: Sequence[Fetched]) -> int:
    return sum(1 for f in fetched if not f.error)


def _take(fetched: Sequence[Fetched], most: int) -> int:
    """How many leading entries hold at most ``most`` downloaded images."""
    good = 0
    for n, f in enumerate(fetched):
        if not f.error:
            if good == most:
                return n
            good += 1
    return len(fetched)
