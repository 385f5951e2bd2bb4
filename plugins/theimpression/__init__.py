"""rk plugin theimpression: street-style posts from The Impression."""

from __future__ import annotations

from rk.core import hookimpl


@hookimpl
def rk_register_sources() -> list[type]:
    """Register TheImpressionSource."""
    from rk.plugins.theimpression.source import TheImpressionSource

    return [TheImpressionSource]
