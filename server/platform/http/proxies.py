"""Which peers may name the client: uvicorn's proxy options from ``server.trusted_proxies``.

uvicorn trusts ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise, so any local
client (or one a pass-through proxy forwards) could pick the address that rate limits
and logs see. rk always passes both options: with no trusted proxies ``proxy_headers``
is off and ``forwarded_allow_ips`` is empty, so the peer is the client; with some, uvicorn
takes the right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy.
"""

from __future__ import annotations

from typing import Any, TypedDict

from litestar import Request

from rk.core.config import ServerSettings


class ProxyOptions(TypedDict):
    """The keyword arguments of ``uvicorn.Config`` that decide who the client is."""

    proxy_headers: bool
    forwarded_allow_ips: str


def proxy_options(server: ServerSettings) -> ProxyOptions:
    """uvicorn's proxy options for ``server.trusted_proxies`` (never uvicorn's default)."""
    trusted = [entry.strip() for entry in server.trusted_proxies if entry.strip()]
    return ProxyOptions(proxy_headers=bool(trusted), forwarded_allow_ips=",".join(trusted))


def client_address(request: Request[Any, Any, Any]) -> str:
    """The client's address: the peer's, or what a trusted proxy forwarded (uvicorn)."""
    return request.client.host if request.client else "unknown"
