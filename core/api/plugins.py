"""The plugin manager: entry-point loading with error capture, registries and event dispatch."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

import pluggy

from rk.core.api import hookspecs
from rk.core.api.errors import ConfigError
from rk.core.api.registry import Registry, build_registry

log = logging.getLogger("rk.plugins")
T = TypeVar("T")

ENTRY_POINT_GROUP = "rk"


@dataclass
class PluginInfo:
    """What ``rk plugins`` shows for one plugin."""

    name: str
    version: str = ""
    hooks: list[str] = field(default_factory=list)
    error: str = ""


class RkPluginManager(pluggy.PluginManager):
    """A pluggy manager that remembers entry points that failed to load."""

    def __init__(self) -> None:
        super().__init__("rk")
        self.add_hookspecs(hookspecs)
        self.load_errors: dict[str, str] = {}
        self.versions: dict[str, str] = {}


def allowed_plugins() -> set[str] | None:
    """The names in ``RK_LOAD_PLUGINS`` (empty = none), or None when unset (= all)."""
    raw = os.environ.get("RK_LOAD_PLUGINS")
    if raw is None:
        return None
    return {name.strip() for name in raw.split(",") if name.strip()}


def load_entry_points(pm: RkPluginManager, points: Iterable[EntryPoint] | None = None) -> None:
    """Register every ``rk`` entry point; a plugin that fails to import is recorded, not fatal.

    A name in ``RK_LOAD_PLUGINS`` that no entry point has is a ConfigError (a typo would
    otherwise leave the plugin out without a word).
    """
    allowed = allowed_plugins()
    found = list(points if points is not None else entry_points(group=ENTRY_POINT_GROUP))
    unknown = sorted((allowed or set()) - {ep.name for ep in found})
    if unknown:
        raise ConfigError(
            f"RK_LOAD_PLUGINS names {', '.join(unknown)}, which no installed plugin is called"
            f" (installed: {', '.join(sorted({ep.name for ep in found}))})"
        )
    for ep in found:
        if allowed is not None and ep.name not in allowed:
            continue
        if pm.get_plugin(ep.name) is not None or ep.name in pm.load_errors:
            continue
        try:
            module = ep.load()
            pm.register(module, name=ep.name)
        except Exception as exc:  # a broken third-party plugin must not stop rk
            pm.load_errors[ep.name] = f"{type(exc).__name__}: {exc}".splitlines()[0]
            log.warning("plugin %s failed to load: %s", ep.name, pm.load_errors[ep.name])
            continue
        if ep.dist is not None:
            pm.versions[ep.name] = ep.dist.version


def new_plugin_manager(load: bool = True) -> RkPluginManager:
    """A fresh manager; with ``load`` it loads the ``rk`` entry points and checks hook names."""
    pm = RkPluginManager()
    if load:
        load_entry_points(pm)
    pm.check_pending()
    if os.environ.get("RK_TRACE_PLUGINS") == "1":
        pm.trace.root.setwriter(lambda msg: log.warning("%s", msg.rstrip()))
        pm.enable_tracing()
    return pm


@cache
def get_plugin_manager() -> RkPluginManager:
    """The process-wide manager, created on first use."""
    return new_plugin_manager()


def plugin_info(pm: RkPluginManager) -> list[PluginInfo]:
    """Name, version, implemented hooks and load error of every plugin, sorted by name."""
    infos: dict[str, PluginInfo] = {}
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        callers = pm.get_hookcallers(plugin) or []
        infos[name] = PluginInfo(
            name=name,
            version=pm.versions.get(name, ""),
            hooks=sorted(caller.name for caller in callers),
        )
    for name, error in pm.load_errors.items():
        info = infos.setdefault(name, PluginInfo(name=name))
        info.error = error
    return [infos[name] for name in sorted(infos)]


def _is_wrapper(impl: pluggy.HookImpl) -> bool:
    return bool(impl.wrapper or impl.hookwrapper)


def _call_order(hook: pluggy.HookCaller) -> list[pluggy.HookImpl]:
    """The non-wrapper implementations in the order pluggy calls them (tryfirst first)."""
    return [impl for impl in reversed(hook.get_hookimpls()) if not _is_wrapper(impl)]


def _one_plugin(pm: pluggy.PluginManager, hook_name: str, keep: pluggy.HookImpl) -> Any:
    """A pluggy hook caller for ``keep``'s plugin alone, with every wrapper still around it."""
    hook = getattr(pm.hook, hook_name)
    others = [impl.plugin for impl in _call_order(hook) if impl.plugin is not keep.plugin]
    return pm.subset_hook_caller(hook_name, remove_plugins=others)


def _record_failure(pm: pluggy.PluginManager, plugin: str, hook_name: str, exc: Exception) -> None:
    error = f"{hook_name}: {type(exc).__name__}: {exc}".splitlines()[0]
    if isinstance(pm, RkPluginManager):
        pm.load_errors.setdefault(plugin, error)
    log.warning("plugin %s failed in %s", plugin, error)


def collect(pm: pluggy.PluginManager, hook_name: str) -> list[tuple[str, list[Any]]]:
    """Call a registration hook through pluggy, keeping which plugin returned what.

    One ``pm.hook.<name>()`` call, so tracing, wrappers and ordering work as pluggy
    documents; pluggy returns one result per implementation in call order. When a plugin
    raises (e.g. a missing optional dependency), each implementation is called again on
    its own so the failing one is recorded and the others still register.
    """
    hook = getattr(pm.hook, hook_name)
    order = _call_order(hook)
    try:
        results = hook()
    except Exception:
        return _collect_one_by_one(pm, hook_name, order)
    if len(results) == len(order):
        return [(impl.plugin_name, list(r or [])) for impl, r in zip(order, results, strict=True)]
    return [("(a hook wrapper)", [item for r in results for item in r or []])]


def _collect_one_by_one(
    pm: pluggy.PluginManager, hook_name: str, order: list[pluggy.HookImpl]
) -> list[tuple[str, list[Any]]]:
    results: list[tuple[str, list[Any]]] = []
    for impl in order:
        try:
            answers = _one_plugin(pm, hook_name, impl)()
        except Exception as exc:
            _record_failure(pm, impl.plugin_name, hook_name, exc)
            continue
        results.append((impl.plugin_name, [item for r in answers for item in r or []]))
    return results


def registry_of(
    pm: pluggy.PluginManager, hook_name: str, family: str, keys_of: Callable[[T], Iterable[str]]
) -> Registry[T]:
    """The keyed registry built from one registration hook."""
    return build_registry(family, collect(pm, hook_name), keys_of)


def notify(pm: pluggy.PluginManager, hook_name: str, **kwargs: Any) -> list[Any]:
    """Dispatch an event to every implementation through pluggy; failures are logged, skipped.

    Each implementation is its own pluggy call (a subset hook caller that keeps every
    wrapper), in pluggy's order: a plain hook call would stop at the first plugin that
    raises, and events never break the pipeline.
    """
    results: list[Any] = []
    for impl in _call_order(getattr(pm.hook, hook_name)):
        try:
            results += _one_plugin(pm, hook_name, impl)(**kwargs)
        except Exception:
            log.exception("plugin %s failed in %s", impl.plugin_name, hook_name)
    return results
