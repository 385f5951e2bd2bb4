"""Season slugs: what ``--season`` and ``rk crawl add-season`` accept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rk.core.api.sources import season_slug


@pytest.mark.parametrize(
    "slug", ["fall-2031-ready-to-wear", "resort-2032", " pre-fall-2031 ", "tokyo-fall-2015"]
)
def test_season_slugs_are_accepted_trimmed(slug: str) -> None:
    assert season_slug(slug) == slug.strip()


@pytest.mark.parametrize(
    "bad", ["", "Fall 2031", "fall--2031", "-fall", "fall-", "fall/2031", "../x", "a" * 201]
)
def test_anything_else_is_one_line_naming_the_value(bad: str) -> None:
    with pytest.raises(ValueError, match="is not a season slug") as caught:
        season_slug(bad)
    assert "\n" not in str(caught.value)


@given(st.text(max_size=60))
def test_an_accepted_slug_is_safe_in_a_url_path(text: str) -> None:
    try:
        slug = season_slug(text)
    except ValueError:
        return
    assert set(slug) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert not slug.startswith("-")
    assert "--" not in slug
