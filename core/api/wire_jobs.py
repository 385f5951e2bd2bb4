"""The work half of the wire protocol: crawl tasks and their leases, brand lookups, the
embedding backfill, the vision service and the fleet's per-host budgets. Import them from
``rk.core.api.wire``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from rk.core.api.wire_base import (
    LINE,
    Id,
    Inbound,
    Outbound,
    SourceName,
    Text,
    Worker,
)


class CrawlClaim(Inbound, kw_only=True):
    """A spider worker asking for one crawl task of its source."""

    worker: Worker
    source: SourceName


class CrawlTask(Outbound, kw_only=True):
    """A claimed crawl task: which brand to crawl and how many shows at most (0 = all).

    ``season`` (a source's season slug, e.g. ``fall-2031-ready-to-wear``) narrows the task
    to the brand's show of that season; "" means the brand's newest shows.

    ``lease_s`` is how long the backend holds the task without a heartbeat, so spiders
    heartbeat well within the backend's lease rather than guessing it (0: not said).
    """

    id: int
    brand_id: int
    brand_uid: str
    brand_name: str
    max_shows: int
    source: str
    slug: str = ""
    lease_s: int = 0
    season: str = ""


class CrawlHeartbeat(Inbound, kw_only=True):
    """Extend the lease of a task the worker still holds."""

    worker: Worker


class CrawlResult(Inbound, kw_only=True):
    """The outcome of a crawl task, reported by the worker that holds it."""

    worker: Worker
    status: Literal["done", "failed"]
    shows_submitted: Annotated[int, Meta(ge=0, le=1_000_000)] = 0
    error: Text = ""


class BrandEnsure(Inbound, kw_only=True):
    """Find a brand by its slug on ``source`` or its name, creating it when missing."""

    name: Annotated[str, Meta(min_length=1, max_length=200, pattern=LINE)]
    source: SourceName
    slug: Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9-]{0,199}$")]


class BrandInfo(Outbound, kw_only=True):
    """A brand as the internal API describes it to a one-shot spider."""

    id: int
    uid: str
    name: str
    slugs: dict[str, str] = {}


class PendingImage(Outbound, kw_only=True):
    """An image that still needs an embedding, with a URL the worker can download."""

    image_id: int
    url: str


class PendingEmbeddings(Outbound, kw_only=True):
    """A lease of pending images plus how many remain after them."""

    items: list[PendingImage]
    remaining: int


class EmbeddingVector(Inbound, kw_only=True):
    """One computed vector."""

    kind: SourceName
    image_id: Id
    vector: Annotated[list[float], Meta(min_length=1, max_length=8192)]


class EmbeddingFailure(Inbound, kw_only=True):
    """One image the worker could not embed, and why."""

    kind: SourceName
    image_id: Id
    error: Text


class EmbeddingSubmit(Inbound, kw_only=True):
    """Vectors and failures of one worker round."""

    items: Annotated[list[EmbeddingVector], Meta(max_length=10_000)] = []
    failures: Annotated[list[EmbeddingFailure], Meta(max_length=10_000)] = []


class ItemError(Outbound, kw_only=True):
    """Why one submitted item was rejected."""

    image_id: int
    error: str


class EmbeddingSubmitted(Outbound, kw_only=True):
    """Answer to ``POST embeddings``."""

    saved: int
    failed: int
    errors: list[ItemError] = []


class VisionEmbedRequest(Inbound, kw_only=True):
    """``POST /embed`` on ``rk vision serve``: base64 image bytes (the predecessor's shape)."""

    images: Annotated[list[str], Meta(max_length=4096)]


class VisionEmbedResponse(Outbound, kw_only=True):
    """Unit vectors for the decodable images: ``vectors[i]`` belongs to ``images[indexes[i]]``."""

    dim: int
    vectors: list[list[float]]
    indexes: list[int]
    skipped: list[int]


Host = Annotated[str, Meta(min_length=1, max_length=253, pattern=r"^[a-z0-9._:\[\]-]+$")]
"""A site's host as the polite client keys it: lowercase name, IPv4 or IPv6, no port."""


MAX_TOKENS = 16
"""The most request starts one ``hosts/tokens`` round trip may take."""


class HostTokensWanted(Inbound, kw_only=True):
    """``POST hosts/tokens``: ``want`` request starts on ``host``, ``interval_s`` apart.

    ``pause_s`` reports a ``Retry-After``: no spider of the archive starts a request on the
    host sooner than that from now.
    """

    host: Host
    want: Annotated[int, Meta(ge=1, le=MAX_TOKENS)]
    interval_s: Annotated[float, Meta(ge=0, le=3600)]
    pause_s: Annotated[float, Meta(ge=0, le=86400)] = 0.0


class HostTokens(Outbound, kw_only=True):
    """The starts granted: the first ``wait_s`` from now, each next one ``interval_s`` later."""

    granted: int
    wait_s: float
