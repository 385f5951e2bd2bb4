"""rk plugin vogue (being built)."""

from __future__ import annotations
