"""The public site's pages for the screenshots (filled in with the site)."""

from __future__ import annotations

from scripts.shots.shot import Shot
from scripts.shots.world import World


def seed(world: World) -> None:
    """What the public pages need beyond the shared archive."""


def pages(world: World) -> list[Shot]:
    """The public pages to shoot, in order."""
    return [Shot("not-found", "/no/such/page")]
