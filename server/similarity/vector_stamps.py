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

from rk.server.similarity.repository.vector_copies import deleted_images

Page = Callable[[str, int, int], Awaitable[list[dict[str, Any]]]]
"""Reads a page of rows: the model, the stamp seen and the page size; the rows as dicts."""

SCAN_ROWS = 4096
"""Rows per read of new vectors (8 MiB of 512-d vectors)."""


async def stamped_pages(
    read: Page, model: str, seen: int, top: int
) -> AsyncIterator[tuple[list[dict[str, Any]], list[int], int]]:
    """Each page of rows stamped above ``seen`` (``read`` takes the model, the stamp and
    the page size), with the images whose ``model`` vectors were deleted in its stamps and
    the stamp the reader is up to once it has applied both: at least ``top`` (what its
    check saw) after the last page.

    The caller applies a page's deletions first: a live row of an image is always stamped
    after the deletion of its previous row, so it is taken after.
    """
    while True:
        page = await read(model, seen, SCAN_ROWS)
        full = len(page) == SCAN_ROWS
        upto = int(page[-1]["change_seq"]) if page else top
        if not full:  # every stamp up to ``top`` was committed when the page was read
            upto = max(upto, top)
        yield page, await deleted_images(model, seen, upto), upto
        seen = upto
        if not full:
            return
