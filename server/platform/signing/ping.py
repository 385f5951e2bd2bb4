"""``GET /admin/internal/ping``: a signed request that changes nothing.

``rk doctor`` on a spider uses it to prove the ingest secret against the real backend
and to read the backend's clock (signatures allow ``security.clock_skew_s``).
"""

from __future__ import annotations

import time

from litestar import Controller, get

from rk import __version__
from rk.core.api.wire import Pong


class PingController(Controller):
    """The signature check alone (the router's HMAC guard runs before this)."""

    path = "/"
    tags = ("internal",)

    @get("/ping", summary="Check the signature; the backend's time and version")
    async def ping(self) -> Pong:
        """The backend's unix time and rk version."""
        return Pong(time=int(time.time()), version=__version__)
