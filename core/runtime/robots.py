"""robots.txt as RFC 9309 reads it: parse, match by the longest rule, fetch and cache per origin.

The group for rk's product token ``rk`` applies (else the ``*`` group); the most specific
matching rule wins (most octets, ``Allow`` on a tie), with ``*`` and a final ``$`` as
wildcards. ``Crawl-delay`` (not in the RFC, but widely used) is read from the same group.
A robots.txt is cached at most 24 h. Its answer decides the rest (section 2.3.1): 2xx is
parsed, 4xx other than 429 allows everything, up to five redirects are followed, and a
429 or a 5xx refuses the whole host until a retry (after ``spider.robots_retry_s``) reads it,
a refusal that passes (``RobotsUnreachable``), so a crawl waits for it instead of losing shows.
A network failure is not cached: it fails the request that needed robots.txt, and the next
request tries again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import string
from collections.abc import Awaitable, Callable
from typing import Literal
from urllib.parse import urljoin

import httpx
from msgspec import Struct

from rk.core.api.errors import caused_by

log = logging.getLogger(__name__)

PRODUCT = "rk"
CACHE_S = 24 * 3600.0
RETRY_UNREACHABLE_S = 60.0
MAX_REDIRECTS = 5
MAX_BYTES = 512 * 1024
"""RFC 9309 asks crawlers to parse at least 500 KiB; the rest of a larger file is ignored."""
REDIRECTS = frozenset({301, 302, 303, 307, 308})
ROBOTS_PATH = "/robots.txt"
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_HEX = frozenset(string.hexdigits)

Get = Callable[[str], Awaitable[httpx.Response]]
Fetch = Callable[[str], Awaitable["Robots"]]
Now = Callable[[], float]


class Rule(Struct, frozen=True):
    """One ``Allow``/``Disallow`` line: its normalised path pattern."""

    allow: bool
    pattern: str


class Robots(Struct, frozen=True, kw_only=True):
    """The rules that apply to rk on one origin; ``unreachable`` is the answer ("HTTP 503")
    of a robots.txt that could not be read, which refuses everything."""

    rules: tuple[Rule, ...] = ()
    crawl_delay: float | None = None
    unreachable: str = ""

    def allows(self, target: str) -> bool:
        """Whether ``target`` (path and query) may be fetched: the longest matching rule."""
        if self.unreachable:
            return target == ROBOTS_PATH
        path = normalize(target)
        best: Rule | None = None
        for rule in self.rules:
            if matches(rule.pattern, path) and (
                best is None or (len(rule.pattern), rule.allow) > (len(best.pattern), best.allow)
            ):
                best = rule
        return best is None or best.allow


class RobotsRefused(httpx.RequestError):
    """robots.txt refuses this request; it was never sent."""


class RobotsUnreachable(RobotsRefused):
    """robots.txt answered 429 or 5xx, so its host is refused for now, not for good:
    ``retry_in_s`` seconds until it is read again."""

    def __init__(
        self, message: str, *, request: httpx.Request | None = None, retry_in_s: float
    ) -> None:
        super().__init__(message, request=request)
        self.retry_in_s = retry_in_s


def normalize(text: str) -> str:
    """``text`` percent-encoded as RFC 9309 compares it: non-ASCII, spaces and controls
    encoded from UTF-8, escapes in upper case, escapes of unreserved characters decoded."""
    raw = text.encode("utf-8")
    out: list[str] = []
    i = 0
    while i < len(raw):
        byte = raw[i]
        pair = raw[i + 1 : i + 3].decode("ascii", "replace")
        if byte == 0x25 and len(pair) == 2 and set(pair) <= _HEX:
            char = chr(int(pair, 16))
            out.append(char if char in _UNRESERVED else f"%{pair.upper()}")
            i += 3
            continue
        out.append(chr(byte) if 0x21 <= byte <= 0x7E else f"%{byte:02X}")
        i += 1
    return "".join(out)


def matches(pattern: str, path: str) -> bool:
    """Whether ``path`` starts with ``pattern``: ``*`` is any run of characters, a final
    ``$`` ends the path. Pieces are found leftmost in turn, so no input backtracks."""
    anchored = pattern.endswith("$")
    pieces = (pattern[:-1] if anchored else pattern).split("*")
    if not path.startswith(pieces[0]):
        return False
    at = len(pieces[0])
    if len(pieces) == 1:
        return not anchored or at == len(path)
    for piece in pieces[1:-1]:
        found = path.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    last = pieces[-1]
    if anchored:
        return path.endswith(last) and len(path) - len(last) >= at
    return path.find(last, at) >= 0


class _Group:
    """One group of a robots.txt while it is read: its user agents, rules and delays."""

    def __init__(self) -> None:
        self.agents: list[str] = []
        self.rules: list[Rule] = []
        self.delays: list[float] = []
        self.closed = False


def _delay(value: str) -> float | None:
    """A ``Crawl-delay`` in seconds, or None when it is not a finite number >= 0."""
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _groups(text: str) -> list[_Group]:
    """The groups of a robots.txt: consecutive ``User-agent`` lines, then their rules."""
    groups: list[_Group] = []
    current: _Group | None = None
    for line in text.lstrip("\ufeff").splitlines():
        key, colon, value = line.split("#", 1)[0].partition(":")
        key, value = key.strip().lower(), value.strip()
        if not colon:
            continue
        if key == "user-agent":
            if current is None or current.closed:
                current = _Group()
                groups.append(current)
            current.agents.append(value.split("/", 1)[0].strip().lower())
        elif current is not None and key in ("allow", "disallow", "crawl-delay"):
            current.closed = True
            if key == "crawl-delay":
                delay = _delay(value)
                current.delays += [] if delay is None else [delay]
            elif value:
                current.rules.append(Rule(key == "allow", normalize(value)))
    return groups


def parse(text: str, product: str = PRODUCT) -> Robots:
    """The rules of ``text`` for ``product``: its groups merged, else the ``*`` groups'."""
    groups = _groups(text)
    mine = [g for g in groups if product.lower() in g.agents]
    mine = mine or [g for g in groups if "*" in g.agents]
    delays = [delay for g in mine for delay in g.delays]
    rules = tuple(rule for g in mine for rule in g.rules)
    return Robots(rules=rules, crawl_delay=max(delays) if delays else None)


def origin(url: httpx.URL) -> str:
    """``scheme://host:port``: the authority one robots.txt governs."""
    port = url.port or (443 if url.scheme == "https" else 80)
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{url.scheme}://{host}:{port}"


def target(url: httpx.URL) -> str:
    """What the rules are matched against: the URL's path and query as sent."""
    return url.raw_path.decode("ascii") or "/"


def refusal(url: httpx.URL, robots: Robots) -> str:
    """One line saying why ``url`` is not fetched."""
    if robots.unreachable:
        return (
            f"refused by robots.txt: {origin(url)}/robots.txt answered {robots.unreachable}, "
            "so nothing is fetched from that host until it answers"
        )
    return f"refused by robots.txt: {origin(url)}/robots.txt disallows {target(url)}"


def refused_by_robots(error: BaseException) -> bool:
    """Whether ``error`` is, or was caused by, a RobotsRefused."""
    return caused_by(error, RobotsRefused) is not None


async def _body(response: httpx.Response) -> str:
    """The first ``MAX_BYTES`` of the body as text."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= MAX_BYTES:
            break
    return bytes(body[:MAX_BYTES]).decode("utf-8", "replace")


async def fetch_robots(site: str, get: Get, product: str = PRODUCT) -> Robots:
    """The robots.txt of origin ``site`` read with ``get``, by the answer rules of RFC 9309.

    A network failure propagates: the host is unreachable, so nothing is fetched from it,
    and the caller sees the failure itself rather than a refusal.
    """
    url = site + ROBOTS_PATH
    for _ in range(MAX_REDIRECTS + 1):
        response = await get(url)
        try:
            status = response.status_code
            location = response.headers.get("Location")
            if status in REDIRECTS and location:
                url = urljoin(url, location)
                continue
            if 200 <= status < 300:
                return parse(await _body(response), product)
            if status == 429 or status >= 500:
                return Robots(unreachable=f"HTTP {status}")
            return Robots()
        finally:
            await response.aclose()
    return Robots()


class RobotsCache:
    """Each origin's robots.txt, fetched once at a time and kept ``CACHE_S`` (an unreadable
    one ``retry_s``)."""

    def __init__(self, fetch: Fetch, now: Now, retry_s: float = RETRY_UNREACHABLE_S) -> None:
        self._fetch = fetch
        self._now = now
        self._retry_s = retry_s
        self._entries: dict[str, tuple[Robots, float]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def get(self, site: str) -> Robots:
        """The rules of origin ``site``, fetching them when absent or expired."""
        async with self._locks.setdefault(site, asyncio.Lock()):
            cached = self._entries.get(site)
            if cached is not None and self._now() < cached[1]:
                return cached[0]
            robots = await self._fetch(site)
            if robots.unreachable:
                log.warning(
                    "robots.txt of %s answered %s: nothing is fetched from that host",
                    site,
                    robots.unreachable,
                )
            life = self._retry_s if robots.unreachable else CACHE_S
            self._entries[site] = (robots, self._now() + life)
            return robots

    def retry_in(self, site: str) -> float:
        """Seconds until origin ``site``'s robots.txt is read again (0 when not cached)."""
        cached = self._entries.get(site)
        return max(0.0, cached[1] - self._now()) if cached is not None else 0.0


class RobotsGate:
    """Which robots.txt governs a URL, by ``spider.robots``: ``obey`` reads it, ``ignore``
    does not and warns once per host."""

    def __init__(
        self,
        mode: Literal["obey", "ignore"],
        fetch: Fetch,
        now: Now,
        retry_s: float = RETRY_UNREACHABLE_S,
    ) -> None:
        self.mode = mode
        self.cache = RobotsCache(fetch, now, retry_s)
        self._warned: set[str] = set()

    async def rules(self, url: httpx.URL) -> Robots | None:
        """The rules for ``url``; None when none apply (``ignore``, not http(s), robots.txt)."""
        if url.scheme not in ("http", "https") or url.path == ROBOTS_PATH:
            return None
        if self.mode == "ignore":
            if url.host not in self._warned:
                self._warned.add(url.host)
                log.warning(
                    "spider.robots is ignore: robots.txt of %s is not read (only for a site "
                    "that gave permission to crawl it)",
                    url.host,
                )
            return None
        return await self.cache.get(origin(url))

    def refused(
        self, url: httpx.URL, robots: Robots, request: httpx.Request | None = None
    ) -> RobotsRefused:
        """The error that refuses ``url``: ``RobotsUnreachable`` (with when robots.txt is read
        again) for an unreadable robots.txt, else ``RobotsRefused``."""
        message = refusal(url, robots)
        if robots.unreachable:
            retry_in_s = self.cache.retry_in(origin(url))
            return RobotsUnreachable(message, request=request, retry_in_s=retry_in_s)
        return RobotsRefused(message, request=request)

    async def allows(self, url: str) -> bool:
        """Whether robots.txt lets rk fetch ``url`` (fetching robots.txt, not ``url``).

        An unreadable robots.txt raises ``RobotsUnreachable``: the answer is not known yet.
        """
        parsed = httpx.URL(url)
        robots = await self.rules(parsed)
        if robots is not None and robots.unreachable:
            raise self.refused(parsed, robots)
        return robots is None or robots.allows(target(parsed))
