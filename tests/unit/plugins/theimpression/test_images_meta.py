"""Image candidate rules and post metadata rules of The Impression plugin."""

from __future__ import annotations

import pytest

from rk.plugins.theimpression.images import (
    Harvest,
    ImagePolicy,
    content_images,
    harvest,
    parse_srcset,
    to_original,
)
from rk.plugins.theimpression.meta import (
    city_of,
    is_street_style,
    photographer_of,
    season_of,
)

POLICY = ImagePolicy(upload_hosts=frozenset({"s.test"}), cdn_hosts=frozenset({"img.s.test"}))
UP = "https://s.test/wp-content/uploads/2031/02"


def test_srcset_parsing_follows_the_html_rules() -> None:
    assert parse_srcset("a.jpg 100w, b.jpg 200w") == [("a.jpg", "100w"), ("b.jpg", "200w")]
    assert parse_srcset("a,b.jpg 1x,c.jpg 2x") == [("a,b.jpg", "1x"), ("c.jpg", "2x")]
    assert parse_srcset("  a.jpg,, b.jpg  ") == [("a.jpg", ""), ("b.jpg", "")]
    assert parse_srcset("") == []


@pytest.mark.parametrize(
    ("url", "original"),
    [
        (f"{UP}/x-683x1024.jpg", f"{UP}/x.jpg"),
        (f"{UP}/x-scaled.jpg", f"{UP}/x.jpg"),
        (f"{UP}/x-scaled-1024x683.jpg", f"{UP}/x.jpg"),
        (f"{UP}/x-2031.jpg", f"{UP}/x-2031.jpg"),
        (f"{UP}/x-683x1024.jpg?ssl=1", f"{UP}/x.jpg?ssl=1"),
    ],
)
def test_to_original(url: str, original: str) -> None:
    assert to_original(url) == original


def test_largest_candidate_and_host_rules() -> None:
    body = (
        f'<img src="{UP}/a-300x450.jpg" srcset="{UP}/a-683x1024.jpg 683w, {UP}/a-scaled.jpg 1707w">'
        f'<img src="{UP}/b-300x450.jpg" data-orig-file="{UP}/b.jpg">'
        '<img src="https://other.test/wp-content/uploads/c.jpg">'
        '<img src="https://img.s.test/0123/d.jpg">'
        f'<img src="{UP}/e.gif"><img src="/wp-content/uploads/f-200x300.png">'
        f'<img src="{UP}/g.jpg" width="50" height="50">'
        f'<img src="{UP}/a-683x1024.jpg">'
    )
    assert content_images(body, "https://s.test/post/", POLICY) == [
        f"{UP}/a-scaled.jpg",
        f"{UP}/b.jpg",
        "https://img.s.test/0123/d.jpg",
        "https://s.test/wp-content/uploads/f-200x300.png",
    ]


def test_editor_tags_in_classes_do_not_hide_photos() -> None:
    body = f'<div class="post tag-icons category-logo-design"><img src="{UP}/a.jpg"></div>'
    assert content_images(body, "https://s.test/p/", POLICY) == [f"{UP}/a.jpg"]


def test_street_style_is_decided_from_any_text() -> None:
    assert is_street_style(["Fashion News", "street-style-paris-day-1"])
    assert is_street_style(["STREET STYLE"])
    assert is_street_style(["Streetstyle Tokyo"])
    assert not is_street_style(["Fashion News", "the-others-milan", "Best Collections"])


@pytest.mark.parametrize(
    ("categories", "others", "city"),
    [
        (["Street Style", "Paris Fashion Week"], [], "Paris"),
        (["Paris Men's Fashion Week"], [], "Paris"),
        (["Lagos Fashion Week"], [], "Lagos"),
        (["Reykjavik Fashion Week"], [], "Reykjavik"),
        (["Street Style"], ["Street Style: New York, Day 2"], "New York"),
        (["Street Style"], ["street-style-sao-paulo-fashion-week-day-1"], "São Paulo"),
        (["Street Style"], ["Street Style: Coachella 2031"], ""),
    ],
)
def test_city(categories: list[str], others: list[str], city: str) -> None:
    assert city_of(categories, others) == city


@pytest.mark.parametrize(
    ("texts", "season"),
    [
        (["Street Style: Paris Fashion Week Spring 2031, Day 1"], "Spring 2031"),
        (["street-style-copenhagen-fashion-week-fall-2031-day-2"], "Fall 2031"),
        (["Fall/Winter 2031 shows"], "Fall/Winter 2031"),
        (["pre-fall 2031"], "Pre-Fall 2031"),
        (["Coachella 2031"], ""),
    ],
)
def test_season(texts: list[str], season: str) -> None:
    assert season_of(texts) == season


@pytest.mark.parametrize(
    ("lines", "name"),
    [
        (["Intro", "Photographer | Mira Solenne"], "Mira Solenne"),
        (["Photographer |", "Anouk Bremer"], "Anouk Bremer"),
        (["Photographer/ Director | Lior Castellane"], "Lior Castellane"),
        (["Photos by Teo Varga"], "Teo Varga"),
        (["Photography: Ada Ruiz"], "Ada Ruiz"),
        (["Designer | Invented Atelier", "Photography is an art: yes"], ""),
        (["Photographer |"], ""),
    ],
)
def test_photographer(lines: list[str], name: str) -> None:
    assert photographer_of(lines) == name


def test_photos_refused_for_their_host_are_counted_per_host() -> None:
    body = (
        '<img src="https://other.test/a.jpg">'
        '<img src="https://other.test/b.jpg" srcset="https://other.test/b-2.jpg 900w">'
        '<img src="https://cdn2.test:8443/c.jpg">'
        f'<img src="https://other.test/d.jpg" data-src="{UP}/d.jpg">'  # one candidate accepted
        '<img src="https://other.test/e.gif">'  # not a photo type
        '<div class="avatar"><img src="https://gravatar.test/u.jpg"></div>'  # furniture
        '<img src="https://s.test/theme/logo.jpg">'  # site host, not uploads: not a CDN matter
    )
    found = harvest(body, "https://s.test/post/", POLICY)
    assert found == Harvest(urls=[f"{UP}/d.jpg"], refused={"other.test": 2, "cdn2.test:8443": 1})
    assert found.refused_line() == "other.test (2), cdn2.test:8443 (1)"
    assert harvest(body, "https://s.test/post/", POLICY).urls == content_images(
        body, "https://s.test/post/", POLICY
    )
