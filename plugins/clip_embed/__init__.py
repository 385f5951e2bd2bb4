"""rk plugin clip_embed (being built)."""

from __future__ import annotations
