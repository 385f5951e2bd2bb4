"""Parse an ``s3://bucket/prefix?…`` storage URL into explicit S3 settings.

Query parameters: ``endpoint``, ``region``, ``access_key_id``, ``secret_access_key``,
``session_token``, ``public_base_url``, ``anonymous`` (``true`` = unsigned requests, for
public test buckets), ``max_retries``. Missing values come from the standard AWS
environment variables. Credentials are always resolved here and passed to obstore
explicitly: without them obstore would ask the cloud metadata address
(169.254.169.254), which rk never does; no credentials is a ConfigError instead.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from msgspec import Struct

from rk.core.api.errors import ConfigError
from rk.plugins.s4_storage.sigv4 import Credentials

QUERY_KEYS = frozenset(
    {
        "endpoint",
        "region",
        "access_key_id",
        "secret_access_key",
        "session_token",
        "public_base_url",
        "anonymous",
        "max_retries",
    }
)
DEFAULT_REGION = "us-east-1"
DEFAULT_MAX_RETRIES = 3


class S3Location(Struct, frozen=True, kw_only=True):
    """Where the bucket is and how to reach it; every field explicit, nothing guessed later."""

    bucket: str
    prefix: str
    endpoint: str
    region: str
    credentials: Credentials | None
    public_base_url: str = ""
    max_retries: int = DEFAULT_MAX_RETRIES

    @property
    def anonymous(self) -> bool:
        """True when requests go out unsigned."""
        return self.credentials is None

    def object_url(self, key: str) -> str:
        """The path-style URL of ``key`` (the same address obstore writes to)."""
        path = "/".join(part for part in (self.bucket, self.prefix, key) if part)
        return f"{self.endpoint}/{quote(path, safe='/-_.~')}"


def _env(*names: str) -> str:
    for name in names:
        value = os.environ.get(name, "")
        if value:
            return value
    return ""


def _credentials(query: dict[str, str], anonymous: bool) -> Credentials | None:
    if anonymous:
        return None
    key_id = query.get("access_key_id") or _env("AWS_ACCESS_KEY_ID")
    secret = query.get("secret_access_key") or _env("AWS_SECRET_ACCESS_KEY")
    if not key_id or not secret:
        raise ConfigError(
            "s3 storage has no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "(or access_key_id/secret_access_key in the URL, or anonymous=true)"
        )
    token = query.get("session_token") or _env("AWS_SESSION_TOKEN")
    return Credentials(access_key_id=key_id, secret_access_key=secret, session_token=token)


def parse_s3_url(url: str) -> S3Location:
    """The explicit location of ``s3://bucket/prefix?…``; ConfigError names what is wrong."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise ConfigError(f"storage URL {url.split('?')[0]!r} is not s3://bucket[/prefix]")
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(query) - QUERY_KEYS)
    if unknown:
        raise ConfigError(
            f"unknown s3 storage URL parameter(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(QUERY_KEYS))}"
        )
    anonymous = query.get("anonymous", "false").lower()
    if anonymous not in {"true", "false"}:
        raise ConfigError(f"s3 storage anonymous={anonymous!r} must be true or false")
    region = query.get("region") or _env("AWS_REGION", "AWS_DEFAULT_REGION") or DEFAULT_REGION
    endpoint = query.get("endpoint") or _env("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
    endpoint = (endpoint or f"https://s3.{region}.amazonaws.com").rstrip("/")
    if urlsplit(endpoint).scheme not in {"http", "https"}:
        raise ConfigError(f"s3 storage endpoint {endpoint!r} must start with http:// or https://")
    retries = query.get("max_retries", str(DEFAULT_MAX_RETRIES))
    if not retries.isdigit():
        raise ConfigError(f"s3 storage max_retries={retries!r} must be a whole number")
    return S3Location(
        bucket=parts.netloc,
        prefix=unquote(parts.path).strip("/"),
        endpoint=endpoint,
        region=region,
        credentials=_credentials(query, anonymous == "true"),
        public_base_url=query.get("public_base_url", "").rstrip("/"),
        max_retries=int(retries),
    )
