"""Fixtures of the tag tests: the concept-aware tiny model, built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.concept_clip import build_concept_clip


@pytest.fixture(scope="session")
def concept_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model directory whose towers agree on dress, coat, stripe, plaid and plain."""
    return build_concept_clip(tmp_path_factory.mktemp("concept-clip"))
