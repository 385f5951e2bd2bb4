"""Flatten registration-hook results into keyed registries with clear errors."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from rk.core.api.errors import PluginConflict, UnknownPlugin

T = TypeVar("T")


class Registry(Generic[T]):
    """Classes indexed by key; remembers which plugin registered each."""

    def __init__(self, family: str) -> None:
        self.family = family
        self._items: dict[str, tuple[T, str]] = {}

    def add(self, key: str, item: T, plugin: str) -> None:
        """Register ``item`` under ``key``; a key taken by another plugin is a PluginConflict."""
        if key in self._items:
            _, owner = self._items[key]
            raise PluginConflict(
                f"{self.family} {key!r} is registered by both plugin {owner!r} and {plugin!r}"
            )
        self._items[key] = (item, plugin)

    def get(self, key: str) -> T:
        """The item for ``key``; an unknown key raises UnknownPlugin listing what exists."""
        try:
            return self._items[key][0]
        except KeyError:
            available = ", ".join(sorted(self._items)) or "none"
            raise UnknownPlugin(f"no {self.family} named {key!r}; available: {available}") from None

    def plugin_of(self, key: str) -> str:
        """The name of the plugin that registered ``key``."""
        self.get(key)
        return self._items[key][1]

    def names(self) -> list[str]:
        """All registered keys, sorted."""
        return sorted(self._items)


def build_registry(
    family: str,
    results: Iterable[tuple[str, Iterable[T]]],
    keys_of: Callable[[T], Iterable[str]],
) -> Registry[T]:
    """A registry from ``(plugin name, registered items)`` pairs, keyed by ``keys_of(item)``."""
    registry: Registry[T] = Registry(family)
    for plugin, items in results:
        for item in items or ():
            for key in keys_of(item):
                registry.add(key, item, plugin)
    return registry
