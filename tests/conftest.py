"""Fixtures shared by every test: databases, plugin registration, isolation from the host."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rk.core.api.plugins import RkPluginManager, new_plugin_manager
from tests.support.pg import fresh_database


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's config.yml or RK_* settings by accident."""
    import os

    for name in list(os.environ):
        if name.startswith("RK_") and not name.startswith("RK_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def pg_dsn() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test (dropped afterwards)."""
    with fresh_database() as dsn:
        yield dsn


@pytest.fixture
def sqlite_dsn(tmp_path: Path) -> str:
    """A fresh SQLite database file for this test."""
    return f"sqlite:///{tmp_path / 'rk.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def any_dsn(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each database engine rk supports, in turn."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'rk.sqlite3'}"
    else:
        with fresh_database() as dsn:
            yield dsn


@pytest.fixture
def plugin_manager() -> RkPluginManager:
    """A manager with the installed entry points loaded, private to this test."""
    return new_plugin_manager()


@pytest.fixture
def register_plugin(plugin_manager: RkPluginManager) -> Iterator[Callable[[Any, str], Any]]:
    """Register a plugin object on ``plugin_manager`` for one test; unregistered afterwards."""
    registered: list[Any] = []

    def register(plugin: Any, name: str) -> Any:
        plugin_manager.register(plugin, name=name)
        registered.append(plugin)
        return plugin

    try:
        yield register
    finally:
        for plugin in registered:
            plugin_manager.unregister(plugin)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Options of the whole-system fault test (tests/system, marker ``system``)."""
    group = parser.getgroup("rk system test")
    group.addoption("--seed", type=int, default=0, help="replay the system test's faults")
    group.addoption(
        "--soak", type=float, default=0, metavar="MINUTES", help="repeat faults this long"
    )
    group.addoption(
        "--write-reliability",
        action="store_true",
        help="rewrite docs/reliability.md's results block with this run's table",
    )
