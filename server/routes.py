"""rk.server.routes: one Litestar controller per resource (media, internal API, admin, public).

``all_routes`` is the one list ``create_app`` mounts. A new spider-facing module adds its
controller to ``internal_handlers`` (signed, strict bodies, size-limited); anything else
goes straight into ``all_routes``. ``POST ingest`` is signed too, but serves itself
(``rk.server.ingest.intake_routes``), so it sits beside that router rather than under its guard.
"""

from __future__ import annotations

from litestar import Router
from litestar.types import ControllerRouterHandler

from rk.core.config import Settings
from rk.server.boards import board_routes
from rk.server.console import admin_router
from rk.server.crawl import CrawlTaskController
from rk.server.hosts import HostTokensController
from rk.server.ingest import InternalController, ingest
from rk.server.media import media_routes
from rk.server.platform.http.requests import StrictRequest
from rk.server.platform.ops.health import HealthController
from rk.server.platform.signing.hmac_guard import hmac_guard
from rk.server.platform.signing.ping import PingController
from rk.server.platform.signing.secrets import resolve_secrets
from rk.server.platform.web.static_files import static_router
from rk.server.similarity import EmbeddingsController
from rk.server.site import SearchController, public_routes
from rk.server.trends import trends_routes

INTERNAL_PREFIX = "/admin/internal"


def internal_handlers() -> list[ControllerRouterHandler]:
    """The controllers under ``/admin/internal`` (HMAC-signed spider API)."""
    return [
        InternalController,
        CrawlTaskController,
        EmbeddingsController,
        PingController,
        HostTokensController,
    ]


def all_routes(settings: Settings, secret: str = "") -> list[ControllerRouterHandler]:
    """Every route of the backend; ``secret`` signs the console's CSRF tokens."""
    internal = Router(
        INTERNAL_PREFIX,
        route_handlers=internal_handlers(),
        guards=[hmac_guard],
        request_class=StrictRequest,
        request_max_body_size=settings.server.max_body_bytes,
    )
    lean = Router(INTERNAL_PREFIX, route_handlers=[ingest])  # checks its own signature
    return [
        internal,
        lean,
        admin_router(settings, secret or resolve_secrets(settings).media),
        *media_routes(),
        SearchController,
        *public_routes(),
        *board_routes(),
        *trends_routes(),
        static_router(),
        HealthController,
    ]
