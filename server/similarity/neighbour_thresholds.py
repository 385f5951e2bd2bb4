"""The lists' thresholds, held in process between batches while nobody else touched the lists.

Placing a batch exactly needs the K-th stored score of every full list (``Thresholds``):
one row per stored image, read again for every batch (0.12 s at 100k vectors on SQLite,
ten times that at 1M). The process running the job keeps them instead, with the stamp of
the lists they match:

- the public ``neighbours`` counter: every transaction that writes lists moves it once
  (``write_lists``, ``forget_replaced``; migration 0043), and it never moves otherwise;
- the highest ``vector_deletions`` stamp: deleting an image cascades into the lists without
  moving the counter, and always records a deletion of its vector.

A batch that finds the held stamp uses the held thresholds. The job's own write updates
them once it has committed, if the stamp it read inside its transaction (which holds the
vector clock, so no deletion is stamped meanwhile) is the held one with the counter moved
by exactly its own bump. Any other change loads them again. ``bench.neighbours --phases``
shows the read it saves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from piccolo.engine.base import Engine

from rk.server.platform.db.sql_rows import engine
from rk.server.similarity.neighbour_lists import Thresholds
from rk.server.similarity.repository.neighbour_lists import lists_stamp


class Stamp(NamedTuple):
    """What the stored lists are as of: the ``neighbours`` counter and the deletion stamp."""

    lists: int
    gone: int


async def read_stamp() -> Stamp:
    """The stamp now (inside the caller's transaction, if one is open)."""
    row = await lists_stamp()
    return Stamp(int(row["lists"]), int(row["gone"]))


def with_lists(held: Thresholds, lists: dict[int, list[tuple[int, float]]], k: int) -> Thresholds:
    """``held`` once ``lists`` are stored: their owners' thresholds replaced (dropped where
    a list is shorter than ``k``)."""
    owners = np.fromiter(lists, dtype=np.int64, count=len(lists))
    full = {owner: scored[k - 1][1] for owner, scored in lists.items() if len(scored) >= k}
    kept = ~np.isin(held.ids, owners)
    ids = np.concatenate([held.ids[kept], np.fromiter(full, dtype=np.int64, count=len(full))])
    scores = np.concatenate(
        [held.scores[kept], np.fromiter(full.values(), dtype=np.float32, count=len(full))]
    )
    return Thresholds(ids, scores)


class HeldThresholds:
    """Each (model, K)'s thresholds with their stamp, for the engine the tables are bound to."""

    def __init__(self) -> None:
        self._engine: Engine | None = None
        self._held: dict[tuple[str, int], tuple[Stamp, Thresholds]] = {}
        self.loads = 0
        """Reads of the thresholds from the database (``bench.neighbours`` prints them)."""

    def _check_engine(self) -> None:
        if engine() is not self._engine:
            self._engine = engine()
            self._held = {}

    async def get(self, model: str, k: int) -> Thresholds:
        """The thresholds as the lists stand now: held ones when nothing changed since."""
        self._check_engine()
        stamp = await read_stamp()
        held = self._held.get((model, k))
        if held is not None and held[0] == stamp:
            return held[1]
        thresholds = await Thresholds.load(model, k)
        self.loads += 1
        self._held[(model, k)] = (stamp, thresholds)
        return thresholds

    def written(
        self, model: str, k: int, lists: dict[int, list[tuple[int, float]]], stamp: Stamp
    ) -> None:
        """After a committed write of ``lists``, whose transaction read ``stamp`` after its
        bump: update the held thresholds, or forget them when another change came between."""
        self._check_engine()
        held = self._held.pop((model, k), None)
        bumps = 1 if lists else 0  # ``write_lists`` moves the counter only when it wrote
        if held is None or stamp != Stamp(held[0].lists + bumps, held[0].gone):
            return
        self._held[(model, k)] = (stamp, with_lists(held[1], lists, k) if lists else held[1])


HELD = HeldThresholds()
"""This process's held thresholds: the exact index reads them, the neighbours job updates
them after its writes (an index and a job of another engine or model never match a stamp)."""
