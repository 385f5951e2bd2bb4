"""The change counters of the public site (migration 0021): what a cached page is valid for.

Triggers move ``content`` on any change a public page could show and ``neighbours`` on
any change of a stored neighbour list; reading both is one indexed query.
"""

from __future__ import annotations

from msgspec import Struct

from rk.server.services.public_sql import rows


class Changes(Struct, frozen=True, kw_only=True):
    """The counters and when ``content`` last moved (unix seconds, 0 = never)."""

    content: int
    neighbours: int
    changed_at: int


async def read_changes() -> Changes:
    """The counters as they are now."""
    found = {
        str(row["name"]): row
        for row in await rows("SELECT name, version, changed_at FROM public_changes")
    }
    content, neighbours = found.get("content"), found.get("neighbours")
    return Changes(
        content=int(content["version"]) if content else 0,
        neighbours=int(neighbours["version"]) if neighbours else 0,
        changed_at=int(content["changed_at"]) if content else 0,
    )
