"""Password hashes for console accounts: the standard library's scrypt, memory-hard.

Why scrypt and not argon2: it is in ``hashlib`` (no new dependency, no native wheel to
ship to closed networks) and is memory-hard like argon2. The stored string carries its
parameters (``scrypt$n$r$p$salt$hash``), so they can be raised later without breaking
existing hashes. The async ``new_hash`` and ``matches`` run scrypt in a worker thread, so
the event loop goes on serving other requests meanwhile (about 50 ms each).

A new password is 8-1,024 characters, not one of the 10,000 most common (the bundled
``common_passwords.txt``, compared lowercased) and not the account's own name.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import secrets
from pathlib import Path

N, R, P = 2**14, 8, 1
"""16 MiB of memory per hash (128 · r · n bytes); ~50 ms on one of these cores."""
MAX_MEM = 64 * 1024 * 1024
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
COMMON_FILE = Path(__file__).with_name("common_passwords.txt")
NAME_INSIDE_FROM = 4
"""A user name this long or longer may not appear inside the password (shorter: not equal)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str) -> str:
    """A fresh salted hash of ``password``."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P, maxmem=MAX_MEM)
    return f"scrypt${N}${R}${P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches ``stored``; False for any malformed hash."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=MAX_MEM,
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


async def new_hash(password: str) -> str:
    """``hash_password`` in a worker thread, off the event loop."""
    return await asyncio.to_thread(hash_password, password)


async def matches(password: str, stored: str) -> bool:
    """``verify_password`` in a worker thread, off the event loop."""
    return await asyncio.to_thread(verify_password, password, stored)


@functools.cache
def common_passwords() -> frozenset[str]:
    """The bundled list of common passwords, lowercased (read once per process)."""
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("# "))


def names_the_user(password: str, username: str) -> bool:
    """True when ``password`` is the user name (case-blind), reversed or, if long, contains it."""
    name, lowered = username.strip().lower(), password.lower()
    if not name:
        return False
    if lowered in (name, name[::-1]):
        return True
    return len(name) >= NAME_INSIDE_FROM and (name in lowered or name[::-1] in lowered)


def password_problem(password: str, username: str = "") -> str:
    """Why ``password`` cannot be ``username``'s password ("" when it can)."""
    if len(password) < MIN_PASSWORD:
        return f"the password needs at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"the password may have at most {MAX_PASSWORD} characters"
    if password.lower() in common_passwords():
        return "that password is one of the 10,000 most common ones; choose another"
    if names_the_user(password, username):
        return "the password may not be or contain the user name"
    return ""
