"""rk plugin vogue: runway shows from Vogue Runway."""

from __future__ import annotations

from rk.core import hookimpl


@hookimpl
def rk_register_sources() -> list[type]:
    """Register VogueSource."""
    from rk.plugins.vogue.source import VogueSource

    return [VogueSource]
