"""Dates as the sites write them become ISO YYYY-MM-DD; other text is kept; nothing raises."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rk.core.dates import normalise_date


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("2031-03-04T19:00:00.000Z", "2031-03-04"),
        ("2030-10-01T18:20:00", "2030-10-01"),
        ("2031-03-04", "2031-03-04"),
        ("March 9, 2031", "2031-03-09"),
        ("Tue, 04 Mar 2031 19:00:00 +0000", "2031-03-04"),
        (1930824000000, "2031-03-09"),
        ("TBA", "TBA"),
        ("soon", "soon"),
        ("  ", ""),
        ("", ""),
        (None, ""),
        (True, ""),
    ],
)
def test_normalise_date(raw: object, iso: str) -> None:
    assert normalise_date(raw) == iso


@given(st.one_of(st.text(), st.integers(), st.floats(), st.none()))
def test_never_raises_and_stays_short(raw: object) -> None:
    assert len(normalise_date(raw)) <= 40
