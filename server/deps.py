"""App-level dependencies: what handlers may ask for by name, taken from the app state.

``settings``, ``pm``, ``secret`` and ``brand_ids`` exist from ``create_app`` on; ``storage`` and
``queue`` are opened by the lifespan before the first request is served.
"""

from __future__ import annotations

import pluggy
from litestar.datastructures import State
from litestar.di import Provide

from rk.core.config import Settings
from rk.core.storage import Storage
from rk.server.queues.engine import JobQueue
from rk.server.services.brands import BrandIds


def _settings(state: State) -> Settings:
    return state.settings


def _pm(state: State) -> pluggy.PluginManager:
    return state.pm


def _storage(state: State) -> Storage:
    return state.storage


def _queue(state: State) -> JobQueue:
    return state.queue


def _brand_ids(state: State) -> BrandIds:
    return state.brand_ids


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
        "brand_ids": Provide(_brand_ids, sync_to_thread=False),
    }
