"""0028: images uploaded by a spider whose thumbnail existed were stored 0×0; fill them in.

Each such row takes the size of another image row with the same key that has one. Rows
with no such sibling are left for the storage sweep (``rk storage gc``), which reads the
original's header: a migration cannot reach the object store.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute

SIBLING = (
    "(SELECT o.{column} FROM images AS o WHERE o.key = images.key"
    " AND o.width > 0 AND o.height > 0 ORDER BY o.id LIMIT 1)"
)


async def forwards(engine: Engine) -> None:
    """Copy width and height from a sized row with the same key."""
    await execute(
        engine,
        f"UPDATE images SET width = {SIBLING.format(column='width')},"
        f" height = {SIBLING.format(column='height')}"
        " WHERE width = 0 AND height = 0 AND EXISTS"
        " (SELECT 1 FROM images AS o WHERE o.key = images.key AND o.width > 0 AND o.height > 0)",
    )
