"""The moderation console's pages for the screenshots (filled in with the console)."""

from __future__ import annotations

from scripts.shots.shot import Shot
from scripts.shots.world import World


def seed(world: World) -> None:
    """What the console's pages need beyond the shared archive."""


def pages(world: World) -> list[Shot]:
    """The console pages to shoot, in order."""
    return []
