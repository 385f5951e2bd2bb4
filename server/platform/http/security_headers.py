"""The security headers on every answer the backend sends, as a Litestar ``before_send`` hook.

A ``before_send`` hook sees every ``http.response.start`` the app sends: pages, JSON, the
schema, ``/static``, ``/media``, ``/metrics``, error answers and the router's own 404s and
405s, which route middleware never sees. Every answer gets ``nosniff``, a referrer policy,
``X-Frame-Options: DENY`` and the content security policy (the console refuses to be
framed, and a stored link or image can run no script); HSTS only when ``server.public_url``
is https, since browsers ignore it over plain http and an operator testing on http must
not be pinned to https.

Images may come from another origin (a public bucket URL, presigned S3 reads, or the
backend's own absolute ``public_url``): ``allow_images_from`` adds that origin to
``img-src`` once the storage is open, so the policy follows the configuration.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar.types import Message, Scope

from rk.core.config import Settings

HSTS = b"max-age=31536000"
COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"x-frame-options", b"DENY"),
]
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src {images};"
    " frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
)


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an absolute http(s) URL, else None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


class SecurityHeaders:
    """Adds the headers to each answer; the bytes are built once, not per request."""

    def __init__(self, settings: Settings) -> None:
        self.image_origins: list[str] = []
        self.hsts = settings.server.public_url.lower().startswith("https://")
        self._build()

    def allow_images_from(self, url: str) -> None:
        """Let pages show images from the origin of ``url`` (nothing for a relative URL)."""
        origin = origin_of(url)
        if origin and origin not in self.image_origins:
            self.image_origins.append(origin)
            self._build()

    @property
    def policy(self) -> str:
        """The Content-Security-Policy value."""
        return POLICY.format(images=" ".join(["'self'", *self.image_origins]))

    def _build(self) -> None:
        headers = [*COMMON, (b"content-security-policy", self.policy.encode())]
        if self.hsts:
            headers.append((b"strict-transport-security", HSTS))
        self._headers = headers
        self._names = {name for name, _ in headers}

    async def __call__(self, message: Message, scope: Scope) -> None:
        """The ``before_send`` hook: the headers on every response start (a handler's own win)."""
        if message["type"] != "http.response.start":
            return
        present = list(message.get("headers", ()))
        have = {bytes(name).lower() for name, _ in present} & self._names
        message["headers"] = present + [pair for pair in self._headers if pair[0] not in have]
