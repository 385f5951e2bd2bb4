"""Capability tokens of boards: 128-bit view tokens, 192-bit edit keys kept only as hashes.

A view token is the board's public name; an edit key is checked by comparing SHA-256
digests in constant time, so neither a timing nor a database leak gives an edit key away.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

VIEW_TOKEN = re.compile(r"^[A-Za-z0-9_-]{22}$")
"""``secrets.token_urlsafe(16)``: 16 random bytes (128 bits) in 22 URL-safe characters."""
EDIT_KEY = re.compile(r"^[A-Za-z0-9_-]{32}$")
"""``secrets.token_urlsafe(24)``: 24 random bytes (192 bits) in 32 URL-safe characters."""


def new_view_token() -> str:
    """A fresh view token."""
    return secrets.token_urlsafe(16)


def new_edit_key() -> str:
    """A fresh edit key (given to the creator once, stored only as ``digest``)."""
    return secrets.token_urlsafe(24)


def digest(text: str) -> str:
    """The SHA-256 of ``text``, hex (edit keys)."""
    return hashlib.sha256(text.encode()).hexdigest()


def client_digest(secret: str, address: str) -> str:
    """The HMAC-SHA-256 of a client address under the backend's secret, hex: it counts
    boards per address without keeping the address (a bare hash of an IPv4 is reversible)."""
    return hmac.new(secret.encode(), address.encode(), hashlib.sha256).hexdigest()


def key_matches(given: str, stored_hash: str) -> bool:
    """Whether ``given`` is the edit key whose digest is ``stored_hash`` (constant time)."""
    return hmac.compare_digest(digest(given), stored_hash)
