"""Rounds of each side of a pair, taken in turn so no two tools ever run at once."""

from __future__ import annotations

import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sample:
    """One round of one tool: items done, wall seconds, CPU seconds of its processes."""

    items: int
    seconds: float
    cpu_s: float
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Items per second."""
        return self.items / self.seconds


@dataclass
class Side:
    """One row of a table: a tool (or one way of running it) and its rounds."""

    label: str
    samples: list[Sample] = field(default_factory=list)

    def rate(self) -> float:
        """The median round's items per second."""
        return statistics.median(s.rate for s in self.samples)

    def spread(self) -> tuple[float, float]:
        """The slowest and the fastest round's items per second."""
        rates = [s.rate for s in self.samples]
        return min(rates), max(rates)

    def cpu_per_item(self) -> float:
        """Median CPU seconds per item over the rounds."""
        return statistics.median(s.cpu_s / s.items for s in self.samples)

    def extra(self, name: str) -> float:
        """The median over the rounds of an extra figure (p50 ms, recall@20)."""
        return statistics.median(s.extra[name] for s in self.samples)

    def apart_from(self, other: Side) -> bool:
        """Whether the two rows' ranges of items/s do not overlap (the ratio is not noise)."""
        low, high = self.spread()
        other_low, other_high = other.spread()
        return high < other_low or other_high < low


Round = Callable[[], Awaitable[Sample]]


async def alternate(sides: list[tuple[Side, Round]], rounds: int) -> None:
    """``rounds`` rounds of each side, one side after another (A B C, A B C, …): every tool
    meets the same drift in the machine's load, and none runs during another's round."""
    for _ in range(rounds):
        for side, one in sides:
            side.samples.append(await one())
