"""Shared test helpers, imported as ``tests.support``."""
