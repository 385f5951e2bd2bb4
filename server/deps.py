"""App-level dependencies: what handlers may ask for by name, taken from the app state.

``settings``, ``pm`` and ``secret`` exist from ``create_app`` on; ``storage``, ``queue`` and
``intake`` are opened by the lifespan before the first request is served. Public routes and
the console override ``storage`` with the app's storage as they may link it
(``services.media_links``). Each is read
through the request (``request.app.state``): a ``state: State`` parameter would have
Litestar build a copy of the state for every request (1 % of a signed ingest's CPU).
"""

from __future__ import annotations

from typing import Any

import pluggy
from litestar import Request
from litestar.di import Provide

from rk.core.config import Settings
from rk.core.storage import Storage
from rk.server.ingest import ShowIntake
from rk.server.platform.jobs.engine import JobQueue


def _settings(request: Request[Any, Any, Any]) -> Settings:
    return request.app.state.settings


def _pm(request: Request[Any, Any, Any]) -> pluggy.PluginManager:
    return request.app.state.pm


def _storage(request: Request[Any, Any, Any]) -> Storage:
    return request.app.state.storage


def _public_storage(request: Request[Any, Any, Any]) -> Storage:
    return request.app.state.public_storage


def _console_storage(request: Request[Any, Any, Any]) -> Storage:
    return request.app.state.console_storage


def _queue(request: Request[Any, Any, Any]) -> JobQueue:
    return request.app.state.queue


def _intake(request: Request[Any, Any, Any]) -> ShowIntake:
    return request.app.state.intake


def _secret(request: Request[Any, Any, Any]) -> str:
    return request.app.state.secrets.media


def public_storage_dependency() -> dict[str, Provide]:
    """``storage`` as public routes get it: ``url_for`` links the checked ``/media`` route."""
    return {"storage": Provide(_public_storage, sync_to_thread=False)}


def console_storage_dependency() -> dict[str, Provide]:
    """``storage`` as the console gets it: ``url_for`` links ``/admin/media``."""
    return {"storage": Provide(_console_storage, sync_to_thread=False)}


def dependencies() -> dict[str, Provide]:
    """The app-level ``Provide`` map."""
    return {
        "settings": Provide(_settings, sync_to_thread=False),
        "pm": Provide(_pm, sync_to_thread=False),
        "storage": Provide(_storage, sync_to_thread=False),
        "queue": Provide(_queue, sync_to_thread=False),
        "secret": Provide(_secret, sync_to_thread=False),
        "intake": Provide(_intake, sync_to_thread=False),
    }
