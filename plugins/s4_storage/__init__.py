"""rk plugin s4_storage (being built)."""

from __future__ import annotations
