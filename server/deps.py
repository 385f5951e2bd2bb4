"""App-level dependencies: what handlers may ask for by name, taken from the app state.

``settings``, ``pm`` and ``secret`` exist from ``create_app`` on; ``storage``, ``queue`` and
``intake`` are opened by the lifespan before the first request is served. Public routes and
the console override ``storage`` with the app's storage as they may link it
(``services.media_links``). Each is read
through the request (``request.app.state``): a ``state: State`` parameter would have
Litestar build a copy of the state for every request (1 % of a signed ingest's CPU).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Request
from litestar.di import Provide


def _state_value(name: str) -> Callable[[Request[Any, Any, Any]], Any]:
    """A dependency that answers ``request.app.state.<name>``."""

    def provide(request: Request[Any, Any, Any]) -> Any:
        return getattr(request.app.state, name)

    return provide


def _secret(request: Request[Any, Any, Any]) -> str:
    return request.app.state.secrets.media


def public_storage_dependency() -> dict[str, Provide]:
    """``storage`` as public routes get it: ``url_for`` links the checked ``/media`` route."""
    return {"storage": Provide(_state_value("public_storage"), sync_to_thread=False)}


def console_storage_dependency() -> dict[str, Provide]:
    """``storage`` as the console gets it: ``url_for`` links ``/admin/media``."""
    return {"storage": Provide(_state_value("console_storage"), sync_to_thread=False)}


def dependencies() -> dict[str, Provide]:
    """The app-level ``Provide`` map."""
    return {
        "settings": Provide(_state_value("settings"), sync_to_thread=False),
        "pm": Provide(_state_value("pm"), sync_to_thread=False),
        "storage": Provide(_state_value("storage"), sync_to_thread=False),
        "queue": Provide(_state_value("queue"), sync_to_thread=False),
        "secret": Provide(_secret, sync_to_thread=False),
        "intake": Provide(_state_value("intake"), sync_to_thread=False),
    }
