"""What to say when a host cannot be reached: its name, whether the name did not resolve,
and the setting that names it, so a typo in a URL reads as one instead of a bare
``ConnectError [Errno -2]``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx

DNS_FAILURES = (
    "Name or service not known",
    "nodename nor servname",
    "Temporary failure in name resolution",
    "No address associated with hostname",
    "getaddrinfo failed",
    "[Errno -2]",
    "[Errno -3]",
    "[Errno -5]",
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the errors it was raised from or during, nearest first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _host(err: httpx.HTTPError) -> str:
    """``host[:port]`` of the request that failed, or "the host" when it is unknown."""
    try:
        url = err.request.url
    except RuntimeError:
        return "the host"
    return f"{url.host}:{url.port}" if url.port else url.host


def unreachable_hint(exc: BaseException, setting: str) -> str:
    """``" (… check SETTING …)"`` when a connection failure is in ``exc``'s chain, else "".

    A name that does not resolve and a host that refuses or times out are told apart.
    """
    for err in _chain(exc):
        if isinstance(err, httpx.ConnectError | httpx.ConnectTimeout):
            host = _host(err)
            if any(words in str(err) for words in DNS_FAILURES):
                return f" (the name {host} does not resolve: check {setting} and the DNS)"
            return f" (cannot connect to {host}: check {setting}, that it is up, and the network)"
    return ""
