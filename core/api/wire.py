"""The spider ⇄ backend wire protocol: every request and answer body as a msgspec Struct.

Inbound types (those the backend decodes) forbid unknown fields so a typo in a spider
fails loudly instead of being dropped. Limits are part of the type so that the decoder,
not hand-written checks, rejects oversized input.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from rk.core.web_urls import web_url_problem

LINE = r"^[^\x00-\x1f\x7f]*$(?![\s\S])"
"""One line of printable text: no NUL, no control character, no newline (ECMA and Python)."""
MULTILINE = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$(?![\s\S])"
"""Printable text that may span lines (tab, newline and carriage return allowed)."""

Url = Annotated[str, Meta(min_length=1, max_length=4096, extra_json_schema={"pattern": LINE})]
"""One line, as documented; checked by ``url_problem`` (a decoder pattern cost 2-3 µs a URL)."""
Text = Annotated[str, Meta(max_length=2000, pattern=MULTILINE)]
ShortText = Annotated[str, Meta(max_length=200, pattern=LINE)]
SourceName = Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$")]
ShowKey = Annotated[str, Meta(min_length=1, max_length=512, pattern=LINE)]
Sha1Hex = Annotated[str, Meta(pattern=r"^[0-9a-f]{40}$")]
ObjectKey = Annotated[str, Meta(min_length=1, max_length=512, pattern=LINE)]
Size = Annotated[int, Meta(ge=0, le=2**40)]
MAX_ID = 2**62
"""The largest id rk accepts anywhere: row ids are BIGINT (migration 0011), with headroom."""
Id = Annotated[int, Meta(ge=1, le=MAX_ID)]
Worker = Annotated[str, Meta(min_length=1, max_length=128, pattern=LINE)]
LookNumber = Annotated[int, Meta(ge=1, le=100_000)]
Kind = Literal["runway", "street"]

MAX_LOOKS = 2000
MAX_DETAILS = 2000


class Inbound(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Base of every body the backend decodes: immutable, keyword-only, strict.

    Untracked by the cycle collector (``gc=False``): a decoded body is a tree of strings,
    numbers and lists, never a cycle, and a 40-look show is ~80 structs, which made the
    collector run every few requests (a third of a decode's time, measured in a loop).
    """


class Outbound(Struct, frozen=True, kw_only=True):
    """Base of every body the backend answers with."""


class ImageRef(Inbound, kw_only=True):
    """One image: always its source URL, plus the storage key when the spider uploaded it.

    ``look`` is for detail shots: the number of the look the detail belongs to (None: not
    linked); the backend ignores it on a look's own image. ``thumb_url`` is a smaller
    rendition the site serves of the same photo: whoever makes the thumbnail may make it
    from that instead of decoding the original (``rk.core.runtime.renditions``).
    """

    url: Url
    key: ObjectKey | None = None
    size: Size | None = None
    sha1: Sha1Hex | None = None
    look: LookNumber | None = None
    thumb_url: Url | None = None


class Look(Inbound, kw_only=True):
    """One runway look: its number in the show, its main image and the model wearing it."""

    number: LookNumber
    image: ImageRef
    model_name: ShortText = ""


class BrandRef(Inbound, kw_only=True):
    """The brand a show belongs to, as the backend handed it to the spider."""

    uid: Annotated[str, Meta(min_length=1, max_length=64, pattern=LINE)]
    name: ShortText


class ShowIngest(Inbound, kw_only=True):
    """One show (runway) or post (street style) submitted for ingest.

    ``kind`` is the source's kind (its storage prefix). The backend checks it against the
    source's plugin and fills it in when an older spider leaves it out; a source the
    backend has no plugin for is refused, so a kind is never guessed.
    """

    source: SourceName
    kind: Kind | None = None
    show_key: ShowKey
    title: ShortText
    brand: BrandRef | None = None
    season: ShortText = ""
    city: ShortText = ""
    date: Annotated[str, Meta(max_length=40, pattern=LINE)] = ""
    url: Annotated[str, Meta(max_length=4096, pattern=LINE)] = ""
    designer: ShortText = ""
    author: ShortText = ""
    looks: Annotated[list[Look], Meta(max_length=MAX_LOOKS)] = []
    details: Annotated[list[ImageRef], Meta(max_length=MAX_DETAILS)] = []

    def __post_init__(self) -> None:
        if self.url and (problem := web_url_problem(self.url)):
            raise ValueError(f"bad show URL ({problem}) - at `$.url`")
        if not self.looks and not self.details:
            raise ValueError("a show needs at least one look or detail image")
        numbers = [look.number for look in self.looks]
        if len(set(numbers)) != len(numbers):
            raise ValueError("look numbers must be unique within a show")
        for look in self.looks:  # labels are made only for the error: most shows have none
            if problem := ref_problem(look.image):
                raise ValueError(f"look {look.number}: {problem}")
        for n, ref in enumerate(self.details, start=1):
            if problem := ref_problem(ref):
                raise ValueError(f"detail {n}: {problem}")

    def images(self) -> list[ImageRef]:
        """Every image of the show: looks in order, then details in order."""
        return [look.image for look in self.looks] + list(self.details)


class IngestAccepted(Outbound, kw_only=True):
    """Answer to ``POST ingest``: the queued job."""

    job_id: int


class UploadUrlRequest(Inbound, kw_only=True):
    """Ask for a presigned PUT for one content-addressed key.

    ``size`` and ``sha1`` always describe the bytes about to be PUT. For a thumbnail,
    ``thumb_of`` is the SHA-1 of the original it was made from, and ``key`` must be
    ``thumb/<thumb_of>.jpg`` (a thumbnail is keyed by its original, not its own bytes).
    """

    key: ObjectKey
    size: Annotated[int, Meta(ge=1, le=2**40)]
    sha1: Sha1Hex
    content_type: Annotated[str, Meta(pattern=r"^image/[a-z0-9.+-]{1,40}$")] = "image/jpeg"
    thumb_of: Sha1Hex | None = None

    def __post_init__(self) -> None:
        if self.thumb_of is not None and self.key != f"thumb/{self.thumb_of}.jpg":
            raise ValueError("a thumbnail's key must be thumb/<thumb_of>.jpg")
        if self.key.startswith("thumb/") and self.thumb_of is None:
            raise ValueError("a thumb/ key needs thumb_of, the SHA-1 of its original")


class UploadUrl(Outbound, kw_only=True):
    """A presigned PUT: send the bytes to ``url`` with ``method`` and ``headers`` before expiry.

    ``exists`` true means storage already holds this key (objects are never replaced; a
    content key's bytes are its sha1's): the spider skips the PUT, and ``url`` may be empty.
    """

    url: str
    method: Literal["PUT"] = "PUT"
    headers: dict[str, str] = {}
    expires_at: int
    exists: bool = False


MAX_UPLOADS_PER_REQUEST = 500


class UploadUrlsRequest(Inbound, kw_only=True):
    """Presigned PUTs for many keys in one signed request: a show's originals, or thumbnails."""

    uploads: Annotated[
        list[UploadUrlRequest], Meta(min_length=1, max_length=MAX_UPLOADS_PER_REQUEST)
    ]


class UploadUrls(Outbound, kw_only=True):
    """One ``UploadUrl`` per requested upload, in the request's order."""

    uploads: list[UploadUrl]


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


class Pong(Outbound, kw_only=True):
    """Answer to ``GET ping``: the signature was good; the backend's clock and version."""

    time: int
    version: str


class ErrorBody(Outbound, kw_only=True):
    """Every 4xx answer: one line saying what is wrong."""

    error: str


_PLAIN_URL = re.compile(r"https?://[A-Za-z0-9._~-]+(?::[0-9]{1,4})?(?:[/?#]|\Z)")
"""A URL start ``url_problem`` always passes: http(s), a plain ASCII host, a port below 10000."""
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f]")


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be fetched as an image (control characters, not http(s) as a
    browser reads it, no host, unparseable), or None.

    The common URL (printable ASCII, plain host) passes on two string methods and one
    regex match; only the rest are searched and split (a 40-look show spent most of its
    decode in ``urlsplit`` and per-character pattern checks).
    """
    if url.isascii() and url.isprintable() and _PLAIN_URL.match(url):
        return None
    if _LINE_BREAKING.search(url):
        return "control characters"
    return web_url_problem(url)


def ref_problem(ref: ImageRef) -> str | None:
    """Why an image's ``url`` or ``thumb_url`` cannot be fetched, or None."""
    if problem := url_problem(ref.url):
        return f"bad image URL ({problem})"
    if ref.thumb_url is not None and (problem := url_problem(ref.thumb_url)):
        return f"bad thumbnail URL ({problem})"
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def printable(text: str, limit: int | None = 2000) -> str:
    """``text`` fit for a ``Text`` field: control characters as spaces, cut to ``limit``."""
    return _CONTROL.sub(" ", text)[:limit]


_PATTERN_WORDS = {
    LINE: "one line of text without control characters (NUL, newline, …)",
    MULTILINE: "text without control characters (NUL, …)",
}


def decode_error_line(err: msgspec.DecodeError | msgspec.ValidationError) -> str:
    """One operator-readable line for a msgspec decode or validation error.

    A failed text pattern is told in words, not as the regex it failed.
    """
    line = str(err).splitlines()[0]
    for pattern, words in _PATTERN_WORDS.items():
        line = line.replace(f"`str` matching regex {pattern!r}", words)
    return line


# ---------------------------------------------------------------- vision service (worker ⇄ GPU box)


class VisionEmbedRequest(Inbound, kw_only=True):
    """``POST /embed`` on ``rk vision serve``: base64 image bytes (the predecessor's shape)."""

    images: Annotated[list[str], Meta(max_length=4096)]


class VisionEmbedResponse(Outbound, kw_only=True):
    """Unit vectors for the decodable images: ``vectors[i]`` belongs to ``images[indexes[i]]``."""

    dim: int
    vectors: list[list[float]]
    indexes: list[int]
    skipped: list[int]


# ---------------------------------------------------------------- host budgets (issue 32)

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
