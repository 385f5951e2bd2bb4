"""BackendClient: the spider side of the signed spider ⇄ backend protocol (docs/api.md).

Given the ingest endpoint ``…/admin/internal/ingest`` it derives every other endpoint,
signs each request with ``rk.core.api.signing`` (the signed path includes ``?query``), and
speaks msgspec Structs from ``rk.core.api.wire``. It uses its own plain ``httpx.AsyncClient``:
the backend is not a source site, so source politeness does not apply to it.

Errors say what to do: ``BackendAuthError`` (secrets differ), ``TaskLost`` (409, the lease
is gone), ``BackendRejected`` (any other 4xx), ``BackendUnavailable`` (connection error,
timeout or 5xx: retry later) and ``BackendProtocolError`` (an answer rk cannot read).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
import msgspec

from rk.core.api.errors import ConfigError, RkError
from rk.core.api.signing import signed_headers
from rk.core.api.wire import (
    BrandEnsure,
    BrandInfo,
    CrawlClaim,
    CrawlHeartbeat,
    CrawlResult,
    CrawlTask,
    EmbeddingSubmit,
    EmbeddingSubmitted,
    ErrorBody,
    HostTokens,
    HostTokensWanted,
    IngestAccepted,
    PendingEmbeddings,
    Pong,
    ShowIngest,
    UploadUrl,
    UploadUrlRequest,
    UploadUrls,
    UploadUrlsRequest,
)
from rk.core.config import IngestSettings, Settings
from rk.core.runtime.unreachable import unreachable_hint

log = logging.getLogger(__name__)

T = TypeVar("T")
INGEST_SUFFIX = "/ingest"
CLOCK_HINT_S = 60
"""A 401 from a backend whose ``Date`` is further off than this blames the clock, not the
secret (signatures allow ±300 s by default; a secret mismatch says nothing about clocks)."""


class BackendError(RkError):
    """Base of every error talking to the backend."""


class BackendAuthError(BackendError):
    """401: the backend does not accept this spider's signature."""


class TaskLost(BackendError):
    """409: the crawl task is no longer held by this worker (lease expired or reassigned)."""


class BackendRejected(BackendError):
    """A 4xx other than 401/409: the request itself is wrong; retrying will not help."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(f"backend rejected the request (HTTP {status}): {error}")
        self.status = status
        self.error = error


class BackendUnavailable(BackendError):
    """Connection error, timeout or 5xx: the backend may be back later; retry."""


class BackendProtocolError(BackendError):
    """A 2xx/3xx answer this client cannot use (wrong body, redirect): versions differ?"""


def require_ingest(settings: Settings) -> IngestSettings:
    """The ingest settings, or ConfigError saying what a serving spider is missing."""
    ingest = settings.ingest
    if not ingest.enabled:
        raise ConfigError(
            "ingest.enabled is false: a serving spider submits shows to the backend; set "
            "ingest.enabled: true with ingest.endpoint and ingest.secret"
        )
    parts = urlsplit(ingest.endpoint)
    if (
        parts.scheme not in {"http", "https"}
        or not parts.netloc
        or not parts.path.endswith(INGEST_SUFFIX)
        or parts.query
        or parts.fragment
    ):
        raise ConfigError(
            "ingest.endpoint must be the backend's http(s)://HOST/admin/internal/ingest URL, "
            f"got {ingest.endpoint!r}"
        )
    if not ingest.secret:
        raise ConfigError("ingest.secret is empty: set it to the backend's server.secret")
    return ingest


def derive_base(ingest_endpoint: str) -> str:
    """``…/admin/internal/ingest`` → ``…/admin/internal/``, the root of every endpoint."""
    if not ingest_endpoint.endswith(INGEST_SUFFIX):
        raise ConfigError(f"ingest endpoint {ingest_endpoint!r} does not end in /ingest")
    return ingest_endpoint[: -len("ingest")]


def clock_skew_s(response: httpx.Response) -> float | None:
    """This machine's clock minus the backend's, from the answer's ``Date`` header."""
    try:
        stamp = parsedate_to_datetime(response.headers.get("Date", "")).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return time.time() - stamp


def auth_error(response: httpx.Response, reason: str) -> BackendAuthError:
    """The 401 in the operator's terms: a clock that is off, else a secret that differs."""
    skew = clock_skew_s(response)
    if skew is not None and abs(skew) > CLOCK_HINT_S:
        return BackendAuthError(
            f"backend rejected the signature: this machine's clock is {skew:+.0f} s off the "
            f"backend's; sync both clocks with NTP (backend said: {reason})"
        )
    return BackendAuthError(
        "backend rejected the signature: ingest.secret differs from the backend's "
        f"secret (backend said: {reason})"
    )


def _error_line(response: httpx.Response) -> str:
    """The server's one-line reason: ``{"error": …}`` when it sent one, else the body."""
    try:
        text = msgspec.json.decode(response.content, type=ErrorBody).error
    except (msgspec.DecodeError, msgspec.ValidationError):
        text = response.text
    line = text.strip().splitlines()[0][:300] if text.strip() else ""
    return line or f"HTTP {response.status_code} with no reason"


class BackendClient:
    """Signed calls to the backend's internal API; one instance per spider process."""

    def __init__(
        self,
        endpoint: str,
        secret: str,
        *,
        timeout_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base = derive_base(endpoint)
        self._secret = secret
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s), transport=transport)

    @classmethod
    def from_settings(cls, settings: Settings, *, timeout_s: float = 30.0) -> BackendClient:
        """A client for a serving spider: ConfigError unless ``ingest`` is fully set."""
        ingest = require_ingest(settings)
        return cls(ingest.endpoint, ingest.secret, timeout_s=timeout_s)

    async def __aenter__(self) -> BackendClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    def url(self, name: str, params: dict[str, Any] | None = None) -> httpx.URL:
        """The absolute URL of endpoint ``name`` (e.g. ``crawl/tasks``)."""
        return httpx.URL(self.base + name, params=params)

    async def _call(
        self,
        method: str,
        name: str,
        body: msgspec.Struct | None = None,
        params: dict[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> httpx.Response:
        """Send one signed request (within ``timeout_s`` when given, else the client's
        timeout); map every failure to a BackendError."""
        url = self.url(name, params)
        content = msgspec.json.encode(body) if body is not None else b""
        headers = signed_headers(self._secret, method, url.raw_path.decode("ascii"), content)
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            response = await self._http.request(
                method,
                url,
                content=content,
                headers=headers,
                timeout=httpx.USE_CLIENT_DEFAULT if timeout_s is None else timeout_s,
            )
        except httpx.HTTPError as exc:
            raise BackendUnavailable(
                f"backend unreachable at {self.base}: {type(exc).__name__}: {exc}"
                + unreachable_hint(exc, "ingest.endpoint")
            ) from None
        status = response.status_code
        if status < 300:
            return response
        reason = _error_line(response)
        if status == 401:
            raise auth_error(response, reason)
        if status == 409:
            raise TaskLost(f"{method} {name}: {reason}")
        if 400 <= status < 500:
            raise BackendRejected(status, reason)
        if status >= 500:
            raise BackendUnavailable(f"backend error at {method} {name}: HTTP {status}: {reason}")
        raise BackendProtocolError(
            f"{method} {name}: unexpected HTTP {status} (redirected to "
            f"{response.headers.get('Location', '?')}?): point ingest.endpoint at the backend"
        )

    @staticmethod
    def _decode(response: httpx.Response, answer: type[T]) -> T:
        try:
            return msgspec.json.decode(response.content, type=answer)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            line = str(err).splitlines()[0]
            raise BackendProtocolError(
                f"{response.request.method} {response.request.url.path}: backend answered "
                f"HTTP {response.status_code} with a body that is not a {answer.__name__}: {line}"
            ) from None

    async def ping(self) -> Pong:
        """A signed round trip that changes nothing (``rk doctor``): the backend's clock."""
        return self._decode(await self._call("GET", "ping"), Pong)

    async def ingest(self, show: ShowIngest) -> IngestAccepted:
        """Submit one show; the backend queues an ingest job."""
        return self._decode(await self._call("POST", "ingest", show), IngestAccepted)

    async def upload_url(self, request: UploadUrlRequest) -> UploadUrl:
        """A presigned PUT for one content-addressed key."""
        return self._decode(await self._call("POST", "upload-url", request), UploadUrl)

    async def upload_urls(self, requests: list[UploadUrlRequest]) -> list[UploadUrl]:
        """Presigned PUTs for many keys in one signed round trip, in the requests' order."""
        body = UploadUrlsRequest(uploads=requests)
        answer = self._decode(await self._call("POST", "upload-urls", body), UploadUrls)
        if len(answer.uploads) != len(requests):
            raise BackendProtocolError(
                f"upload-urls: asked for {len(requests)} URLs, got {len(answer.uploads)}"
            )
        return answer.uploads

    async def put_object(self, upload: UploadUrl, data: bytes) -> None:
        """PUT ``data`` to a presigned URL (unsigned: the URL itself is the credential).

        412 (S3's ``If-None-Match: *``) means the key exists already: nothing to do.
        """
        try:
            response = await self._http.request(
                upload.method, upload.url, content=data, headers=upload.headers
            )
        except httpx.HTTPError as exc:
            raise BackendUnavailable(f"upload failed: {type(exc).__name__}: {exc}") from None
        if response.status_code >= 500:
            raise BackendUnavailable(f"upload failed: HTTP {response.status_code}")
        if response.status_code == 412:
            return
        if response.status_code >= 300:
            raise BackendRejected(response.status_code, _error_line(response))

    async def claim(self, worker: str, source: str) -> CrawlTask | None:
        """One crawl task of ``source`` for ``worker``, or None when the queue is empty."""
        response = await self._call("POST", "crawl/tasks", CrawlClaim(worker=worker, source=source))
        if response.status_code == 204:
            return None
        return self._decode(response, CrawlTask)

    async def heartbeat(self, task_id: int, worker: str) -> None:
        """Extend the lease of a task; TaskLost when this worker no longer holds it."""
        await self._call("POST", f"crawl/tasks/{task_id}/heartbeat", CrawlHeartbeat(worker=worker))

    async def report(self, task_id: int, result: CrawlResult) -> None:
        """Report a task's outcome; TaskLost when this worker no longer holds it."""
        await self._call("POST", f"crawl/tasks/{task_id}/result", result)

    async def pending_embeddings(self, kind: str, limit: int) -> PendingEmbeddings:
        """A lease of images that still need a ``kind`` embedding."""
        response = await self._call(
            "GET", "embeddings/pending", params={"kind": kind, "limit": limit}
        )
        return self._decode(response, PendingEmbeddings)

    async def submit_embeddings(self, submit: EmbeddingSubmit) -> EmbeddingSubmitted:
        """Save computed vectors and report failures."""
        return self._decode(await self._call("POST", "embeddings", submit), EmbeddingSubmitted)

    async def brand(self, brand_id: int) -> BrandInfo:
        """A brand's uid, name and per-source slugs."""
        return self._decode(await self._call("GET", f"brands/{brand_id}"), BrandInfo)

    async def ensure_brand(self, ensure: BrandEnsure) -> BrandInfo:
        """The brand with this slug on the source (or this name), created when missing."""
        return self._decode(await self._call("POST", "brands", ensure), BrandInfo)

    async def host_tokens(self, wanted: HostTokensWanted, timeout_s: float) -> HostTokens:
        """Request starts on a site host from the archive's shared budget (issue 32)."""
        response = await self._call("POST", "hosts/tokens", wanted, timeout_s=timeout_s)
        return self._decode(response, HostTokens)


async def retry_backend(
    call: Callable[[], Awaitable[T]],
    *,
    what: str = "backend call",
    base_s: float = 1.0,
    max_s: float = 60.0,
    log_every_s: float = 60.0,
) -> T:
    """Await ``call()`` until the backend is reachable: never gives up, never exits.

    Only BackendUnavailable is retried (full-jitter backoff up to ``max_s``); it is logged
    at most once per ``log_every_s`` so a long outage does not flood the log. Every other
    error propagates.
    """
    attempt = 0
    logged_at: float | None = None
    while True:
        try:
            result = await call()
        except BackendUnavailable as exc:
            now = time.monotonic()
            if logged_at is None or now - logged_at >= log_every_s:
                log.warning("%s: %s; retrying (attempt %d)", what, exc, attempt + 1)
                logged_at = now
            await asyncio.sleep(random.random() * min(max_s, base_s * 2 ** min(attempt, 30)))
            attempt += 1
            continue
        if attempt:
            log.info("%s: backend reachable again after %d retries", what, attempt)
        return result
