"""Shared test helpers (importable as ``support`` thanks to pytest's ``pythonpath``)."""
