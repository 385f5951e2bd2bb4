"""Reading what changed in ``image_embeddings`` since a stamp, for the in-process copies.

``SearchIndex`` (published vectors) and ``StoredVectors`` (every stored vector) follow the
table the same way: rows whose ``change_seq`` is above the highest stamp seen, a page at a
time in stamp order, each page with the ``vector_deletions`` of the same stamps. Stamps are
given in commit order (migrations 0030, 0035, 0036), so nothing committed hides below the
highest one seen, and no timing constant is needed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

Rows = Callable[..., Awaitable[list[dict[str, Any]]]]
"""Runs a statement with ``{}`` placeholders and its arguments; the rows as dicts."""

DELETED_SQL = (
    "SELECT image_id FROM vector_deletions"
    " WHERE model = {} AND change_seq > {} AND change_seq <= {}"
)
SCAN_ROWS = 4096
"""Rows per read of new vectors (8 MiB of 512-d vectors)."""


async def stamped_pages(
    read: Rows, page_sql: str, model: str, seen: int, top: int
) -> AsyncIterator[tuple[list[dict[str, Any]], list[int], int]]:
    """Each page of rows stamped above ``seen`` (``page_sql`` takes the model, the stamp and
    the page size), with the images whose ``model`` vectors were deleted in its stamps and
    the stamp the reader is up to once it has applied both: at least ``top`` (what its
    check saw) after the last page.

    The caller applies a page's deletions first: a live row of an image is always stamped
    after the deletion of its previous row, so it is taken after.
    """
    while True:
        page = await read(page_sql, model, seen, SCAN_ROWS)
        full = len(page) == SCAN_ROWS
        upto = int(page[-1]["change_seq"]) if page else top
        if not full:  # every stamp up to ``top`` was committed when the page was read
            upto = max(upto, top)
        gone = await read(DELETED_SQL, model, seen, upto)
        yield page, [int(row["image_id"]) for row in gone], upto
        seen = upto
        if not full:
            return
