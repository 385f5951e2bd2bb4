"""The backend's SSRF-safe image downloader.

Only http and https. The host is resolved here and every resolved address is checked:
loopback, private, link-local, cloud metadata and any other non-public address is
refused unless the host *and port* are listed in ``security.allow_private_hosts``. The request then
goes to the checked address itself (Host header and TLS SNI keep the name), so a DNS
answer that changes between the check and the connect cannot sneak past. Redirects are
followed here, one hop at a time, with the same checks on every hop. The body is
streamed and cut off at ``max_bytes``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx
from msgspec import Struct

REDIRECTS = frozenset({301, 302, 303, 307, 308})
TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
MiB = 1024 * 1024


class Failure(Exception):
    """Something that failed, said in a short ``reason``; ``transient`` says retry."""

    def __init__(self, reason: str, *, transient: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.transient = transient


class FetchError(Failure):
    """A download that failed; ``reason`` is short ("HTTP 404"), ``transient`` says retry."""


class FetchPolicy(Struct, frozen=True, kw_only=True):
    """Limits of one downloader."""

    max_bytes: int = 30 * MiB
    timeout_s: float = 30.0
    max_redirects: int = 5
    allow_private_hosts: frozenset[str] = frozenset()
    user_agent: str = "rk"


class Fetched(Struct, frozen=True, kw_only=True):
    """A downloaded body."""

    data: bytes
    content_type: str
    url: str


NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: mapped, 6to4, Teredo, NAT64."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def _own_problem(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why this one address (ignoring what it embeds) is not globally routable."""
    if ip in METADATA:
        return "a cloud metadata address"
    for label, flag in (
        ("loopback", ip.is_loopback),
        ("unspecified", ip.is_unspecified),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("site-local", isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local),
    ):
        if flag:
            return f"a {label} address"
    return None if ip.is_global else "not a public address"


def address_problem(address: str) -> str | None:
    """Why ``address`` may not be fetched from, or None when it is globally routable.

    An IPv6 address that embeds an IPv4 one (IPv4-mapped, 6to4, Teredo, NAT64) is refused
    when the embedded address is: ``2002:7f00:1::`` reaches 127.0.0.1 through a 6to4 relay.
    IPv4-mapped and NAT64 (``64:ff9b::/96``) addresses are judged by their IPv4 alone, so a
    DNS64 network still reaches public hosts; IPv4-compatible ``::a.b.c.d`` is reserved.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and (ip.ipv4_mapped is not None or ip in NAT64):
        ip = embedded_ipv4(ip)[0]
    problem = _own_problem(ip)
    if problem or isinstance(ip, ipaddress.IPv4Address):
        return problem
    for inner in embedded_ipv4(ip):
        problem = _own_problem(inner)
        if problem:
            return f"{problem} (embedded {inner})"
    return None


def host_port(host: str, port: int) -> str:
    """``host:port`` as ``security.allow_private_hosts`` spells it (``[v6]:port``)."""
    host = host.lower().strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def allow_list(entries: list[str]) -> frozenset[str]:
    """The configured ``host:port`` entries, normalised like ``host_port``."""
    pairs = (entry.rsplit(":", 1) for entry in entries)
    return frozenset(host_port(host, int(port)) for host, port in pairs)


def _size_text(n: int) -> str:
    return f"{n / MiB:g} MiB" if n >= MiB else f"{n} bytes"


class Fetcher:
    """Downloads one URL at a time under a FetchPolicy; share one per worker process."""

    def __init__(self, policy: FetchPolicy) -> None:
        self.policy = policy
        self.client = httpx.AsyncClient(
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(policy.timeout_s),
            headers={"User-Agent": policy.user_agent, "Accept": "image/*"},
        )

    async def close(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()

    async def _checked_addresses(self, host: str, port: int) -> list[str]:
        """Every resolved address of ``host``, after checking all of them."""
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except (OSError, UnicodeError) as exc:
            raise FetchError(f"cannot resolve {host} ({exc})", transient=True) from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses:
            raise FetchError(f"cannot resolve {host}", transient=True)
        if host_port(host, port) not in self.policy.allow_private_hosts:
            for address in addresses:
                problem = address_problem(address)
                if problem:
                    raise FetchError(f"refused: {host} resolves to {address}, {problem}")
        return addresses

    async def _request(self, url: str) -> httpx.Response:
        """Send one GET to a checked address of ``url``'s host; the response streams."""
        if any(ord(c) < 0x20 or c == "\x7f" for c in url):
            raise FetchError("bad URL (control character)")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise FetchError(f"refused: scheme {parts.scheme or '(none)'!r} is not http or https")
        try:
            host, port = parts.hostname, parts.port
        except ValueError:
            raise FetchError("bad URL (malformed)") from None
        if not host:
            raise FetchError("refused: URL has no host")
        port = port or (443 if parts.scheme == "https" else 80)
        host_header = parts.netloc.rsplit("@", 1)[-1]
        failure = FetchError("connection failed", transient=True)
        for address in await self._checked_addresses(host, port):
            literal = f"[{address}]" if ":" in address else address
            pinned = urlunsplit(parts._replace(netloc=f"{literal}:{port}", fragment=""))
            request = self.client.build_request(
                "GET", pinned, headers={"Host": host_header}, extensions={"sni_hostname": host}
            )
            try:
                return await self.client.send(request, stream=True)
            except httpx.ConnectError as exc:
                failure = FetchError(f"connection failed ({type(exc).__name__})", transient=True)
            except httpx.TimeoutException:
                raise FetchError("timed out", transient=True) from None
            except httpx.HTTPError as exc:
                raise FetchError(
                    f"connection failed ({type(exc).__name__})", transient=True
                ) from None
        raise failure

    async def _read(self, response: httpx.Response) -> bytes:
        limit = self.policy.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchError(f"too large ({_size_text(int(declared))} > {_size_text(limit)})")
        chunks: list[bytes] = []
        total = 0
        try:
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                if total > limit:
                    raise FetchError(f"too large (over {_size_text(limit)})")
                chunks.append(chunk)
        except httpx.TimeoutException:
            raise FetchError("timed out while reading", transient=True) from None
        except httpx.HTTPError as exc:
            raise FetchError(f"download broke off ({type(exc).__name__})", transient=True) from None
        if total == 0:
            raise FetchError("empty body (0 bytes)")
        return b"".join(chunks)

    async def fetch(self, url: str) -> Fetched:
        """The body of ``url`` after at most ``max_redirects`` checked redirects.

        The whole download, redirects included, must finish within 4 × ``timeout_s``. A URL
        (or redirect target) that cannot be parsed is a FetchError for this image alone.
        """
        try:
            async with asyncio.timeout(self.policy.timeout_s * 4):
                return await self._fetch(url)
        except TimeoutError:
            raise FetchError("timed out", transient=True) from None
        except (ValueError, httpx.InvalidURL) as exc:
            raise FetchError(f"bad URL ({str(exc)[:80]})") from None

    async def _fetch(self, url: str) -> Fetched:
        for _ in range(self.policy.max_redirects + 1):
            response = await self._request(url)
            try:
                if response.status_code in REDIRECTS and "location" in response.headers:
                    url = urljoin(url, response.headers["location"])
                    continue
                if response.status_code != 200:
                    raise FetchError(
                        f"HTTP {response.status_code}",
                        transient=response.status_code in TRANSIENT_STATUSES,
                    )
                data = await self._read(response)
                content_type = response.headers.get("content-type", "")
                return Fetched(data=data, content_type=content_type, url=url)
            finally:
                await response.aclose()
        raise FetchError(f"too many redirects (more than {self.policy.max_redirects})")
