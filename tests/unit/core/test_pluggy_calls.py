"""Hooks are called through pluggy: tracing, wrappers, ordering and isolation as documented."""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any, ClassVar

import pytest

from rk.core import hookimpl
from rk.core.api import hookspecs
from rk.core.api.errors import PluginConflict, UnknownPlugin
from rk.core.api.lookups import get_queue_backend, get_source, source_registry
from rk.core.api.plugins import RkPluginManager, new_plugin_manager, notify

Register = Callable[[Any, str], Any]


def _source(source_name: str) -> type:
    class Made:
        name: ClassVar[str] = source_name
        kind: ClassVar[str] = "runway"

    return Made


class Extra:
    """Registers one source."""

    def __init__(self, source_name: str) -> None:
        self.made = _source(source_name)

    @hookimpl
    def rk_register_sources(self) -> list[type]:
        return [self.made]


class Hider:
    """A ``wrapper=True`` plugin that hides every source called ``hidden``."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl(wrapper=True)
    def rk_register_sources(self) -> Generator[None, list[list[type]], list[list[type]]]:
        self.calls += 1
        results = yield
        return [[c for c in result if c.name != "hidden"] for result in results]


def test_a_wrapper_plugin_wraps_the_registration_call(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    register_plugin(Extra("hidden"), "hidden-source")
    register_plugin(Extra("shown"), "shown-source")
    hider = register_plugin(Hider(), "hider")
    names = source_registry(plugin_manager).names()
    assert "shown" in names
    assert "hidden" not in names
    assert hider.calls == 1
    with pytest.raises(UnknownPlugin):
        get_source("hidden", plugin_manager)


def test_trace_output_names_each_hook_call(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RK_TRACE_PLUGINS", "1")
    monkeypatch.setenv("RK_LOAD_PLUGINS", "vogue")
    pm = new_plugin_manager()
    with caplog.at_level(logging.WARNING, logger="rk.plugins"):
        assert source_registry(pm).names() == ["vogue"]
    assert "rk_register_sources" in caplog.text
    assert "finish rk_register_sources" in caplog.text


class Order:
    """Records when each of its event implementations ran."""

    def __init__(self, log: list[str], label: str) -> None:
        self.log = log
        self.label = label

    def record(self) -> None:
        self.log.append(self.label)


def test_tryfirst_and_trylast_order_events(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    log: list[str] = []

    class First(Order):
        @hookimpl(tryfirst=True)
        def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
            self.record()

    class Last(Order):
        @hookimpl(trylast=True)
        def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
            self.record()

    class Plain(Order):
        @hookimpl
        def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
            self.record()

    register_plugin(Last(log, "last"), "last")
    register_plugin(First(log, "first"), "first")
    register_plugin(Plain(log, "plain"), "plain")
    notify(plugin_manager, "rk_article_status_changed", article_id=1, old="a", new="b")
    assert log == ["first", "plain", "last"]


def test_event_wrappers_run_and_a_failing_plugin_is_skipped(
    plugin_manager: RkPluginManager, register_plugin: Register, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []

    class Around:
        @hookimpl(wrapper=True)
        def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> Any:
            seen.append("before")
            try:
                return (yield)
            finally:
                seen.append("after")

    class Broken:
        @hookimpl
        def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
            raise RuntimeError("boom")

    class Fine:
        @hookimpl
        def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
            seen.append(f"fine {kind}")

    register_plugin(Fine(), "fine")
    register_plugin(Broken(), "broken")
    register_plugin(Around(), "around")
    with caplog.at_level(logging.ERROR, logger="rk.plugins"):
        notify(plugin_manager, "rk_embeddings_saved", kind="runway", image_ids=[1], model="m")
    assert "fine runway" in seen
    assert seen.count("before") == seen.count("after") >= 1
    assert "plugin broken failed in rk_embeddings_saved" in caplog.text


def test_a_failing_registration_is_recorded_and_the_others_register(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class Failing:
        @hookimpl
        def rk_register_sources(self) -> list[type]:
            raise ImportError("no module named 'nothing'")

    register_plugin(Failing(), "failing")
    register_plugin(Extra("alive"), "alive")
    assert "alive" in source_registry(plugin_manager).names()
    assert "ImportError" in plugin_manager.load_errors["failing"]


class AdvisoryLockQueue:
    """The hookspec's example: another ``ingest_jobs`` implementation for PostgreSQL."""

    schemes: ClassVar[tuple[str, ...]] = ("postgresql",)


class QueuePlugin:
    @hookimpl
    def rk_register_queues(self) -> list[type]:
        return [AdvisoryLockQueue]


def test_queue_hook_contract_is_what_the_docstring_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """A queue for a built-in scheme conflicts, and works once the built-in is left out."""
    with_builtin = new_plugin_manager()
    with_builtin.register(QueuePlugin(), name="advisory")
    with pytest.raises(PluginConflict, match="registered by both plugin"):
        get_queue_backend("postgresql://h/db", with_builtin)
    monkeypatch.setenv("RK_LOAD_PLUGINS", "vogue")
    alone = new_plugin_manager()
    alone.register(QueuePlugin(), name="advisory")
    assert get_queue_backend("postgresql://h/db", alone) is AdvisoryLockQueue
    doc = hookspecs.rk_register_queues.__doc__ or ""
    assert 'schemes = ("postgresql",)' in doc
    assert "mysql" not in doc.lower()
