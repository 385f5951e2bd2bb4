"""Who may read the operations detail: ``/metrics`` and the checks of ``/readyz``.

Metrics and readiness detail say how the archive is built and how it fails (part names,
queue depths, versions), so they answer a client in ``server.ops_allow`` (loopback by
default) or one that sends ``Authorization: Bearer <server.ops_token>``. The address is
the one uvicorn puts in the scope after ``server.trusted_proxies`` handling, never a raw
``X-Forwarded-For``: a client cannot name itself into the list.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from rk.core.config import ServerSettings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def client_address(scope: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The client's IP from the ASGI scope (an IPv4-mapped IPv6 address as IPv4), else None."""
    client = scope.get("client")
    if not client:
        return None
    try:
        address = ipaddress.ip_address(client[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class OpsAccess:
    """The ``server.ops_allow`` networks and ``server.ops_token``, parsed once."""

    def __init__(self, server: ServerSettings) -> None:
        self.networks: list[Network] = [
            ipaddress.ip_network(entry, strict=False) for entry in server.ops_allow
        ]
        self._token = server.ops_token.encode() if server.ops_token else None

    def allows(self, scope: Any) -> bool:
        """Whether this request may see the operations detail."""
        address = client_address(scope)
        if address is not None and any(address in network for network in self.networks):
            return True
        if self._token is None:
            return False
        sent = next((v for k, v in scope.get("headers", ()) if k == b"authorization"), b"")
        scheme, _, token = bytes(sent).strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._token)
