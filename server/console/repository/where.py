"""A ``WHERE`` clause built from the filters a console list was given, and one keyset page of
rows read with it."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows


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

    def require(self, condition: str, when: bool = True) -> Where:
        """Add ``condition``, SQL with no value and no ``{}`` (a partial index's predicate,
        so every plan can use that index), if ``when``."""
        if when:
            self.conditions.append(condition)
        return self

    def clause(self) -> str:
        """``WHERE a AND b``, or "" without conditions."""
        return f"WHERE {' AND '.join(self.conditions)}" if self.conditions else ""


async def page_rows(select: str, where: Where, order: str, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` rows of ``select`` (``SELECT … FROM …``) passing ``where``, in ``order``."""
    return await rows(f"{select} {where.clause()} ORDER BY {order} LIMIT {{}}", *where.args, limit)
