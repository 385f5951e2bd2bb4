"""Vogue naming rules: designer slugs, season titles, city prefixes and dates."""

from __future__ import annotations

import pytest

from rk.plugins.vogue.names import (
    city_from_season,
    name_key,
    season_from_slug,
    slugify,
)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Kestrel & Vine", "kestrel-vine"),
        ("Maison Aurèle", "maison-aurele"),
        ("Halden & Co.", "halden-co"),
        ("A.B.C. Atelier", "a-b-c-atelier"),
        ("Ørsted + Ulv", "orsted-ulv"),
        ("  Løkke   Straße ", "lokke-strasse"),
        ("&&&", ""),
    ],
)
def test_slugify(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_name_key_ignores_case_accents_and_punctuation() -> None:
    assert name_key("MAISON AURÈLE") == name_key("Maison Aurele") == "maisonaurele"
    assert name_key("A-COLD-WALL*") == name_key("a cold wall")


@pytest.mark.parametrize(
    ("slug", "title"),
    [
        ("fall-2031-ready-to-wear", "Fall 2031 Ready-to-Wear"),
        ("pre-fall-2031-menswear", "Pre-Fall 2031 Menswear"),
        ("tokyo-fall-2015", "Tokyo Fall 2015"),
        ("resort-2031", "Resort 2031"),
    ],
)
def test_season_from_slug(slug: str, title: str) -> None:
    assert season_from_slug(slug) == title


@pytest.mark.parametrize(
    ("season", "city"),
    [
        ("Copenhagen Fall 2031", "Copenhagen"),
        ("São Paolo Spring 2030", "São Paulo"),
        ("Sao Paulo Fall 2019", "São Paulo"),
        ("Mexico City Fall 2019", "Mexico City"),
        ("Tbilisi Spring 2020", "Tbilisi"),
        ("Lagos Fall 2032", "Lagos"),
        ("Fall 2031 Ready-to-Wear", ""),
        ("Pre-Fall 2031", ""),
        ("Bridal Spring 2020", ""),
        ("Resort 2031 Menswear", ""),
        ("Collection 2 Fall 2020", ""),
        ("", ""),
    ],
)
def test_city_only_from_a_city_prefixed_season(season: str, city: str) -> None:
    assert city_from_season(season) == city
