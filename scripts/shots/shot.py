"""One screenshot to take: a page, and what to do on it first (sign in, open a loupe…)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from playwright.sync_api import Page


@dataclass(frozen=True)
class Shot:
    """``name`` becomes ``<name>-desktop.png`` and ``<name>-phone.png``."""

    name: str
    path: str
    before: Callable[[Page], None] | None = None
    """Runs once the page has loaded (click, press a key), before the picture."""
    context: str = "visitor"
    """Browser context to use: each module may sign a context in (see ``screenshots``)."""
