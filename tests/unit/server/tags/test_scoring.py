"""The scoring rule: prompt ensembles, the threshold, and the margin over a group's runner-up."""

from __future__ import annotations

import numpy as np

from rk.server.tags import TagVectors, applied_tags
from rk.server.tags.scoring import unit_rows
from rk.server.tags.vocabulary import build_vocabulary

CSV = """name,group,threshold,margin,prompts
red,colour,0.5,0.1,red
blue,colour,0.5,0.1,blue
green,colour,0.5,-0.2,green
round,shape,0.5,0.5,round
"""


def vectors(matrix: list[list[float]]) -> TagVectors:
    """Tag vectors straight from ``matrix`` (one row per tag of ``CSV``)."""
    vocabulary = build_vocabulary([(CSV, "t.csv")])
    return TagVectors(
        model="m", vocabulary=vocabulary, matrix=unit_rows(np.array(matrix, dtype=np.float32))
    )


TAGS = vectors([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def tags_of(*image: float) -> dict[str, float]:
    [found] = applied_tags(unit_rows(np.array([image], dtype=np.float32)), TAGS)
    return {scored.tag: round(scored.score, 3) for scored in found}


def test_a_clear_winner_of_its_group_above_its_threshold_applies() -> None:
    assert tags_of(0.9, 0.2, 0.1, 0.0) == {"red": 0.97}


def test_a_winner_by_less_than_its_margin_does_not_apply() -> None:
    assert tags_of(0.6, 0.55, 0.0, 0.0) == {}


def test_a_negative_margin_lets_in_a_tag_close_behind_the_best() -> None:
    found = tags_of(0.6, 0.0, 0.5, 0.0)
    assert set(found) == {"red", "green"}


def test_below_the_threshold_nothing_applies_and_a_group_of_one_needs_only_it() -> None:
    assert set(tags_of(0.3, 0.3, 0.3, 0.85)) == {"round"}
    assert tags_of(0.6, 0.0, 0.0, 0.4) == {"red": 0.832, "round": 0.555}


def test_tags_come_best_first_and_no_image_gives_no_rows() -> None:
    assert list(tags_of(0.8, 0.0, 0.0, 0.9)) == ["round", "red"]
    assert applied_tags(np.zeros((0, 4), dtype=np.float32), TAGS) == []
