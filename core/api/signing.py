"""HMAC-SHA256 request signing for the spider ⇄ backend protocol.

The signed message is ``METHOD\\nPATH\\nTIMESTAMP\\nsha256_hex(body)``, plus ``\\nNONCE``
when the request carries an ``X-RK-Nonce``. PATH is the URL path plus ``?query`` when
there is one, so query parameters cannot be altered either. The backend accepts each
signature once within its window (a replay is a 409), so rk's clients always send a fresh
nonce: two identical requests in the same second are then two different signatures.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import time

from rk.core.api.errors import SignatureError

TIMESTAMP_HEADER = "X-RK-Timestamp"
SIGNATURE_HEADER = "X-RK-Signature"
NONCE_HEADER = "X-RK-Nonce"
DEFAULT_SKEW_S = 300
_DIGITS = re.compile(r"[1-9][0-9]{0,11}")
"""One spelling per instant: no sign, space, underscore or leading zero can vary a signature."""
_NONCE = re.compile(r"[A-Za-z0-9_-]{8,64}")
_HEX = re.compile(r"[0-9a-f]{64}")
MISMATCH = "signature does not match (is the ingest secret the same on both?)"


@functools.lru_cache(maxsize=8)
def _keyed(secret: str | bytes) -> hmac.HMAC:
    """An HMAC-SHA256 keyed with ``secret``, made once per secret and copied per message."""
    return hmac.new(secret.encode() if isinstance(secret, str) else secret, None, hashlib.sha256)


def signature(
    secret: str | bytes, method: str, path: str, timestamp: int, body: bytes, nonce: str = ""
) -> str:
    """Hex HMAC-SHA256 of the canonical request."""
    parts = [method.upper(), path, str(timestamp), hashlib.sha256(body).hexdigest()]
    if nonce:
        parts.append(nonce)
    mac = _keyed(secret).copy()
    mac.update("\n".join(parts).encode())
    return mac.hexdigest()


def signed_headers(
    secret: str | bytes,
    method: str,
    path: str,
    body: bytes,
    now: int | None = None,
    nonce: str | None = None,
) -> dict[str, str]:
    """The headers that sign a request made now (or at ``now``), with a fresh nonce.

    ``nonce=""`` signs without one (as a plain ``curl`` script does).
    """
    timestamp = int(time.time()) if now is None else now
    nonce = secrets.token_urlsafe(12) if nonce is None else nonce
    headers = {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, method, path, timestamp, body, nonce),
    }
    if nonce:
        headers[NONCE_HEADER] = nonce
    return headers


def check_headers(
    timestamp: str | None,
    sig: str | None,
    *,
    nonce: str | None = None,
    now: int | None = None,
    skew_s: int = DEFAULT_SKEW_S,
) -> int:
    """The request's timestamp; SignatureError unless the signature headers are there, well
    formed and fresh. Needs no body, so a server can refuse before reading one."""
    if not timestamp or not sig:
        raise SignatureError(f"missing {TIMESTAMP_HEADER} or {SIGNATURE_HEADER} header")
    if not _DIGITS.fullmatch(timestamp):
        raise SignatureError(f"{TIMESTAMP_HEADER} is not unix seconds (plain decimal digits)")
    if nonce is not None and not _NONCE.fullmatch(nonce):
        raise SignatureError(f"{NONCE_HEADER} must be 8-64 characters of A-Z a-z 0-9 _ -")
    ts = int(timestamp)
    current = int(time.time()) if now is None else now
    if abs(current - ts) > skew_s:
        raise SignatureError(
            f"timestamp is {current - ts:+d} s off the server clock (allowed ±{skew_s} s)"
        )
    if not _HEX.fullmatch(sig.strip().lower()):
        raise SignatureError(MISMATCH)
    return ts


def verify(
    secret: str | bytes,
    method: str,
    path: str,
    timestamp: str | None,
    sig: str | None,
    body: bytes,
    *,
    nonce: str | None = None,
    now: int | None = None,
    skew_s: int = DEFAULT_SKEW_S,
) -> int:
    """The request's timestamp; SignatureError with a one-line reason unless signed correctly."""
    ts = check_headers(timestamp, sig, nonce=nonce, now=now, skew_s=skew_s)
    expected = signature(secret, method, path, ts, body, nonce or "")
    if not hmac.compare_digest(expected.encode(), (sig or "").strip().lower().encode()):
        raise SignatureError(MISMATCH)
    return ts
