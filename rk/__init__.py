"""rk: a moderated archive of runway and street-style imagery with CLIP similarity."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rk")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
