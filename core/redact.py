"""Take secrets out of text before it reaches a log line or an error message.

Masks URL passwords (``postgresql://rk:***@db/rk``), presigned-URL signatures and
credentials (``X-Amz-Signature``, ``X-Amz-Credential``, rk's own ``sig=``) and
``secret``/``password``/``token`` query parameters, plus every value given to
``remember_secret`` (the configured ingest and server secrets). Every rk log handler runs
its output through ``redact``, so a careless ``log.info("%s", url)`` cannot leak one.
Error answers go through ``public_message``, which also hides filesystem paths.
"""

from __future__ import annotations

import re

MASK = "***"
_QUERY_SECRET = re.compile(
    r"(?i)(?P<key>(?:x-amz-signature|x-amz-credential|x-amz-security-token|signature|sig"
    r"|secret_access_key|secret|session_token|password|token)=)(?P<value>[^&\s\"'<>]+)"
)
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<pw>[^@\s/]+)(?P<at>@)")
_FS_PATH = re.compile(r"(?<![\w:/.~%-])/(?:[^\s/'\"<>]+/)+[^\s/'\"<>,;)]*")
"""An absolute filesystem path of two or more parts; not the path part of a URL."""
_FS_URL = re.compile(r"(?i)\b(file|sqlite):/{2,}[^\s'\"<>]*")
"""A ``file://`` or ``sqlite:///`` URL, which is a filesystem path too."""
MIN_SECRET_LEN = 6
"""Shorter values are not remembered: masking every "abc" in every line would be noise."""
_known: set[str] = set()


def remember_secret(value: str) -> None:
    """Mask ``value`` wherever it appears from now on (process-wide)."""
    if len(value) >= MIN_SECRET_LEN:
        _known.add(value)


def redact(text: str) -> str:
    """``text`` with known secrets, URL passwords and secret query parameters masked."""
    for secret in _known:
        if secret in text:
            text = text.replace(secret, MASK)
    if "=" not in text and "@" not in text:
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m['head']}{MASK}{m['at']}", text)
    return _QUERY_SECRET.sub(lambda m: f"{m['key']}{MASK}", text)


def public_message(text: str) -> str:
    """``text`` fit for a client: ``redact`` plus every absolute filesystem path as ``<path>``.

    Error answers never show where the backend keeps its files (the storage root, the
    SQLite file, the data directory).
    """
    return _FS_PATH.sub("<path>", _FS_URL.sub(r"\1://<path>", redact(text)))
