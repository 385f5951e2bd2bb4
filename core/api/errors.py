"""The rk error hierarchy: every error carries a one-line message fit for an operator."""

from __future__ import annotations

from typing import TypeVar

E = TypeVar("E", bound=BaseException)


class RkError(Exception):
    """Base of every error rk raises on purpose; ``str(err)`` is one line."""


class ConfigError(RkError):
    """The configuration file or an ``RK_*`` override is invalid."""


class PluginConflict(RkError):
    """Two plugins registered the same key in one registry."""


class UnknownPlugin(RkError):
    """A registry was asked for a key that no loaded plugin provides."""


class SignatureError(RkError):
    """A signed request failed verification (bad, missing or stale signature)."""


class InvalidKey(RkError):
    """An object key is not a well-formed content-addressed key."""


class SourceError(RkError):
    """A source could not produce a show; plugins subclass it for their parse errors."""


class SourceUnavailable(SourceError):
    """The site answered 429 or 5xx, or could not be reached: a passing failure, so the
    crawler fetches the show again a little later instead of giving it up."""


def source_error(status: int) -> type[SourceError]:
    """The error for a site's HTTP answer ``status``: passing for 429 and 5xx."""
    return SourceUnavailable if status == 429 or status >= 500 else SourceError


class ShowSkipped(SourceError):
    """A show was deliberately skipped (paywalled, not street style, …); the reason is logged."""


class NoTextTower(RkError):
    """The embedding model has no text tower, so text search is unavailable."""


def caused_by(error: BaseException, kind: type[E]) -> E | None:
    """The ``kind`` that is ``error`` or one of its causes (sources wrap HTTP errors), if any."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
