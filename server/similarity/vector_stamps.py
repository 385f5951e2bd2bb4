"""Reading what changed in ``image_embeddings`` since a stamp, for the in-process copies.

``SearchIndex`` (published vectors) and ``StoredVectors`` (every stored vector) follow the
table the same way: rows whose ``change_seq`` is above the highest stamp seen, a page at a
time in stamp order, each page with the ``vector_deletions`` of the same stamps. Stamps are
given in commit order (migrations 0030, 0035, 0036), so nothing committed hides below the
highest one seen, and no timing constant is needed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from rk.server.similarity.repository.vector_copies import deleted_images

Page = Callable[[str, int, int], Awaitable[list[dict[str, Any]]]]
"""Reads a page of rows: the model, the stamp seen and the page size; the rows as dicts."""


class Copy(Protocol):
    """An in-process copy of vectors: its model, what it holds and the stamp it is up to."""

    model: str
    seen_seq: int

    def __len__(self) -> int: ...

    def nbytes(self) -> int: ...


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


@contextmanager
def catching_up(
    copy: Copy,
    log: logging.Logger,
    label: str,
    reset: Callable[[], None],
    fails: type[BaseException] = Exception,
) -> Iterator[None]:
    """Around one catch-up of ``copy``: on a ``fails`` error ``reset`` it (a half-applied
    change could break what it holds) and re-raise; after a first load, log its size."""
    cold = copy.seen_seq == 0
    started = time.perf_counter()
    try:
        yield
    except fails:
        reset()
        raise
    if cold and len(copy):
        log.info(
            "%s %s: %d vectors loaded in %.1f s (%.0f MiB)",
            label,
            copy.model,
            len(copy),
            time.perf_counter() - started,
            copy.nbytes() / 2**20,
        )
