"""App-level dependencies: what handlers may ask for by name, taken from the app state.

``settings``, ``pm`` and ``secret`` exist from ``create_app`` on; ``storage``, ``queue`` and
``intake`` are opened by the lifespan before the first request is served.
"""

from __future__ import annotations

import pluggy
from litestar.datastructures import State
from litestar.di import Provide

from rk.core.config import Settings
from rk.core.storage import Storage
from rk.server.queues.engine import JobQueue
from rk.server.services.intake import ShowIntake


def _settings(state: State) -> Settings:
    return state.settings


def _pm(state: State) -> pluggy.PluginManager:
    return state.pm


def _storage(state: State) -> Storage:
    return state.storage


def _queue(state: State) -> JobQueue:
    return state.queue


def _intake(state: State) -> ShowIntake:
    return state.intake


def _secret(state: State) -> str:
    return state.secrets.media


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
