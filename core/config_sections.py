"""The sections of rk's settings, one Struct each, with the checks a value must pass to load.

``rk.core.config`` assembles them into ``Settings`` and loads them; import them from there.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

import msgspec
from msgspec import Meta, Struct

from rk import __version__

MiB = 1024 * 1024


HOST_PORT = r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):[0-9]{1,5}$"


HostPort = Annotated[str, Meta(pattern=HOST_PORT)]
"""``host:port`` (``[v6]:port``): an SSRF exception names the one service it lets through."""


class Section(Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of every settings section: unknown keys are errors, not silently ignored."""


LOOPBACK = ("127.0.0.1/32", "::1/128")
"""``server.ops_allow``'s default: this machine only."""


OPS_TOKEN_MIN = 16
"""The shortest ``server.ops_token`` accepted: a bearer token is only as good as its length."""


OPS_TOKEN = re.compile(rf"[!-~]{{{OPS_TOKEN_MIN},}}")
"""Printable ASCII without spaces: what fits in an ``Authorization`` header as it is."""


class ServerSettings(Section):
    """The backend HTTP server. Slow clients are bounded: a request head must arrive within
    ``header_timeout_s`` of the connection opening (or of the previous answer), its body
    within ``body_timeout_s`` of the head; at most ``max_connections`` at once (more get 503)."""

    host: str = "127.0.0.1"
    port: int = 8092
    workers: int = 1
    public_url: str = ""
    max_body_bytes: int = 2 * MiB
    secret: str = ""
    shutdown_grace_s: float = 20.0
    database_wait_s: Annotated[float, Meta(ge=0, le=3600)] = 30.0
    """Seconds ``serve-backend`` waits at start for a PostgreSQL server that refuses
    connections (starting, restarting) before it exits with the error; 0: not at all."""
    db_pool_size: int = 0
    db_readers: int = 0
    header_timeout_s: Annotated[float, Meta(gt=0)] = 10.0
    body_timeout_s: Annotated[float, Meta(gt=0)] = 60.0
    keep_alive_s: Annotated[int, Meta(ge=1)] = 5
    max_connections: Annotated[int, Meta(ge=1)] = 1000
    trusted_proxies: list[str] = []
    """Peers whose ``X-Forwarded-For`` names the client (empty: none, the peer is the client)."""
    ops_allow: list[str] = msgspec.field(default_factory=lambda: list(LOOPBACK))
    """Clients (IPs or CIDR networks) that may read ``/metrics`` and ``/readyz``'s detail."""
    ops_token: str = ""
    """A bearer token that opens ``/metrics`` and ``/readyz``'s detail from any address."""

    def __post_init__(self) -> None:
        """Refuse an address that is not an IP or CIDR network, and a guessable ops token."""
        _check_networks("trusted_proxies", self.trusted_proxies)
        _check_networks("ops_allow", self.ops_allow)
        if self.ops_token and not OPS_TOKEN.fullmatch(self.ops_token):
            raise ValueError(
                f"ops_token: at least {OPS_TOKEN_MIN} printable ASCII characters without spaces"
                " (openssl rand -hex 32)"
            )


def _check_networks(key: str, entries: list[str]) -> None:
    """Refuse an entry of ``key`` that is not an IP address or CIDR network."""
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"{key}: {entry!r} is not an IP address or CIDR network (10.0.0.5, 10.0.0.0/8, ::1)"
            ) from None


class IngestSettings(Section):
    """How a spider reaches the backend: ``endpoint`` ends in ``/admin/internal/ingest``.
    ``secret_file`` names a file holding the secret (read at load time into ``secret``), so a
    config file need not carry it; set ``secret`` or ``secret_file``, not both."""

    enabled: bool = False
    endpoint: str = ""
    secret: str = ""
    secret_file: str = ""


class MediaSettings(Section):
    """Image handling on both sides: direct upload by spiders, size caps, thumbnails."""

    upload: bool = False
    concurrency: int = 6
    max_image_bytes: int = 30 * MiB
    thumb_size: int = 256
    upload_url_ttl_s: int = 900
    gc_grace_s: int = 86400
    gc_interval_s: int = 3600
    public_max_age_s: int = 300


class VisionSettings(Section):
    """The CLIP model: a directory of ONNX files, or a remote ``endpoint`` to call."""

    model: str = ""
    embedder: str = "clip"
    providers: list[str] = []
    batch: int = 32
    concurrency: int = 8
    endpoint: str = ""


class EmbedSettings(Section):
    """Embedding backfill and neighbours."""

    inline: bool = False
    failure_cap: int = 3
    neighbours_k: int = 20
    pending_lease_s: int = 120


class VectorSettings(Section):
    """Where vectors are searched: ``index`` is ``auto`` (pgvector on PostgreSQL when the
    extension is there, else exact), or a registered index name. ``build_memory_mb`` is the
    ``maintenance_work_mem`` of an HNSW build; 0 sizes it to the table so the graph is built
    in memory (1M × 512-d: about 6 GiB asked, 8 GiB at most; less still works, slower).
    ``ef_search`` 100: recall@20 0.995 at 1M clustered vectors and placement of 100 in
    0.35–0.38 s, where 200 took 1.19–1.24 s for recall 1.000 (README, bench.vectors)."""

    index: str = "auto"
    ef_search: int = 100
    reindex_batch: int = 2000
    build_memory_mb: int = 0
    scope_exact_rows: Annotated[int, Meta(ge=0)] = 20_000
    """pgvector: a scoped search whose scope has at most this many images scans them
    exactly (no HNSW); larger scopes use an iterative or over-fetching HNSW scan."""
    iterative_scan: bool = True
    """pgvector 0.8+: use iterative index scans for large scopes (false: over-fetch)."""


CONTACT_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def is_contact(value: str) -> bool:
    """Whether ``value`` is an http(s) URL or an e-mail address, fit for a User-Agent header."""
    if not re.fullmatch(r"[!-~]+", value):
        return False
    parts = urlsplit(value)
    return bool(parts.scheme in ("http", "https") and parts.hostname) or bool(
        CONTACT_EMAIL.fullmatch(value)
    )


class SpiderSettings(Section):
    """HTTP politeness for every source request. An empty ``user_agent`` sends
    ``rk/<version> (+<contact>)``; ``robots: ignore`` is only for a site that gave permission."""

    user_agent: str = ""
    contact: str = ""
    """Where a site reaches whoever runs this spider: an http(s) URL or an e-mail address."""
    robots: Literal["obey", "ignore"] = "obey"
    robots_retry_s: Annotated[float, Meta(gt=0, le=86400)] = 60.0
    """Seconds a robots.txt that answered 429 or 5xx refuses its host before it is read
    again; a crawl task waits that long for it (up to five times) rather than failing."""
    show_retry_s: Annotated[float, Meta(ge=0, le=3600)] = 30.0
    """Seconds before a show that failed for a passing reason (429, 5xx, no connection, after
    ``retries``) is fetched again; twice at most in one crawl, then it counts as failed."""
    per_host_concurrency: int = 4
    """Requests in flight at once per host, counted in this spider process."""
    min_interval_s: float = 0.5
    """Seconds between request starts on one host, across every spider of the archive."""
    fleet_batch: Annotated[int, Meta(ge=0, le=16)] = 4
    """Request starts per host taken from the backend in one round trip (issue 32); 0 keeps
    ``min_interval_s`` local to this spider process."""
    timeout_s: float = 30.0
    retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0

    def __post_init__(self) -> None:
        """Refuse a contact that is not a URL or an address: sites could not reach anyone."""
        if self.contact and not is_contact(self.contact):
            raise ValueError(
                f"contact: {self.contact!r} is not an http(s) URL or an e-mail address"
                " (https://example.org/crawler, crawler@example.org)"
            )

    @property
    def effective_user_agent(self) -> str:
        """The User-Agent sent: ``user_agent``, else ``rk/<version> (+<contact>)``."""
        contact = f" (+{self.contact})" if self.contact else ""
        return self.user_agent or f"rk/{__version__}{contact}"


class SecuritySettings(Section):
    """Request signing and SSRF protection."""

    clock_skew_s: int = 300
    allow_private_hosts: list[HostPort] = []


class QueueSettings(Section):
    """Every queue timeout, so tests can shrink them."""

    ingest_max_attempts: int = 3
    ingest_stuck_s: int = 60
    backoff_base_s: int = 30
    backoff_cap_s: int = 600
    crawl_lease_s: int = 900
    crawl_max_attempts: int = 3
    poll_interval_s: float = 1.0


class AdminSettings(Section):
    """The moderation console: sessions, sign-in rate limits, duplicate detection.

    A session ends ``session_ttl_s`` after sign-in, or once unused for ``session_idle_s``.
    """

    session_ttl_s: int = 12 * 3600
    sign_in_max_failures: int = 5
    sign_in_max_failures_per_address: int = 20
    sign_in_window_s: int = 900
    sign_in_delay_s: int = 30
    session_idle_s: Annotated[int, Meta(ge=60)] = 3600
    duplicate_score: float = 0.97
    page_size: int = 50


class SearchSettings(Section):
    """Bounds on search by photo, which anyone may call: decoded size, concurrency, rate.

    ``photo_max_pixels`` caps a picture without a reduced decode (PNG, WebP, GIF…), read from
    its header before any pixel is decoded; a JPEG is decoded at a reduced scale and only its
    reduced size counts. ``photo_concurrency`` uploads are read and decoded at once per
    backend process, others get 503 with ``Retry-After``; each client address may send
    ``photo_uploads_per_minute`` (0: no limit), then gets 429 with ``Retry-After``.
    """

    photo_max_pixels: Annotated[int, Meta(ge=1)] = 8_000_000
    photo_concurrency: Annotated[int, Meta(ge=1)] = 2
    photo_uploads_per_minute: Annotated[int, Meta(ge=0)] = 20


class BoardSettings(Section):
    """Bounds on shared boards, which anyone may create (no account): sizes and a daily rate.

    ``max_items`` items a board, ``title_max``/``note_max`` characters; each client address
    may create ``per_address_per_day`` boards in any 24 hours (0: no limit), then gets 429.
    """

    max_items: Annotated[int, Meta(ge=1, le=10_000)] = 200
    per_address_per_day: Annotated[int, Meta(ge=0)] = 50
    title_max: Annotated[int, Meta(ge=1, le=1000)] = 200
    note_max: Annotated[int, Meta(ge=1, le=10_000)] = 1000


class TagSettings(Section):
    """Zero-shot tags: ``vocabulary_extra`` names an operator's vocabulary file that extends
    the one shipped with rk (``docs/tags.md``); ``batch`` is how many images one pass of
    the tagging job scores at a time."""

    vocabulary_extra: str = ""
    batch: Annotated[int, Meta(ge=1, le=5000)] = 500


class LogSettings(Section):
    """Log output: ``text`` for people, ``json`` (one object per line) for machines."""

    format: Literal["text", "json"] = "text"
    level: Literal["debug", "info", "warning", "error"] = "info"
