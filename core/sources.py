"""The source interface: a site plugin lists shows and turns one show into a ShowIngest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

import httpx
import pluggy
from msgspec import Struct

from rk.core.registry import Registry
from rk.core.wire import ShowIngest


class BrandTarget(Struct, frozen=True, kw_only=True):
    """The brand a crawl is for; ``slug`` is an explicit per-source slug that wins over lookup."""

    id: int = 0
    uid: str = ""
    name: str
    slug: str = ""


class ShowSummary(Struct, frozen=True, kw_only=True):
    """One show (or post) in a listing, newest first; enough to fetch it later."""

    url: str
    title: str = ""
    key: str = ""


@runtime_checkable
class Source(Protocol):
    """A site that yields shows. Constructed per crawl with the runtime's shared HTTP client.

    ``kind`` chooses the storage prefix of its images (``runway`` or ``street``);
    ``needs_brand`` is False for sources (street style) that list recent posts instead.
    """

    name: ClassVar[str]
    kind: ClassVar[Literal["runway", "street"]]
    needs_brand: ClassVar[bool]

    def __init__(self, client: httpx.AsyncClient, options: Mapping[str, Any]) -> None: ...

    async def list_shows(self, brand: BrandTarget | None, limit: int | None) -> list[ShowSummary]:
        """The brand's shows (or recent posts when ``brand`` is None), newest first."""
        ...

    async def fetch_show(self, show: ShowSummary, brand: BrandTarget | None) -> ShowIngest:
        """One show as a ShowIngest; raises ShowSkipped or the plugin's SourceError."""
        ...


def source_registry(pm: pluggy.PluginManager | None = None) -> Registry[type[Source]]:
    """Every registered source class, by ``name``."""
    from rk.core.plugins import get_plugin_manager, registry_of

    return registry_of(
        pm or get_plugin_manager(), "rk_register_sources", "source", lambda cls: [cls.name]
    )


def get_source(name: str, pm: pluggy.PluginManager | None = None) -> type[Source]:
    """The source class called ``name``; UnknownPlugin lists the available ones."""
    return source_registry(pm).get(name)
