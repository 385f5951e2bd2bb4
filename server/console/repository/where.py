"""A ``WHERE`` clause built from the filters a console list was given."""

from __future__ import annotations


class Where:
    """Conditions with one ``{}`` placeholder each, and their values in order."""

    def __init__(self) -> None:
        self.conditions: list[str] = []
        self.args: list[object] = []

    def add(self, condition: str, value: object, when: bool = True) -> Where:
        """Add ``condition`` (holding one ``{}``) with ``value`` if ``when``."""
        if when:
            self.conditions.append(condition)
            self.args.append(value)
        return self

    def clause(self) -> str:
        """``WHERE a AND b``, or "" without conditions."""
        return f"WHERE {' AND '.join(self.conditions)}" if self.conditions else ""
