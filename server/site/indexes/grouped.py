"""An index page's links in groups, as one template (``public/grouped.html``) draws them:
brands by initial, seasons by year (the two pages differ only in what they group and, in
their own templates, how they word it)."""

from __future__ import annotations

from msgspec import Struct

from rk.server.platform.web.templating import thousands
from rk.server.site.brands import BrandIndex
from rk.server.site.seasons.index import SeasonIndex


class Entry(Struct, frozen=True, kw_only=True):
    """One link of a group: where it goes, its name and its count as shown."""

    href: str
    name: str
    count: str


class Group(Struct, frozen=True, kw_only=True):
    """A group's section: its anchor, its heading's id, its heading, its links, and its name
    in the jump bar when that is not the heading."""

    anchor: str
    heading_id: str
    heading: str
    entries: list[Entry]
    nav: str = ""


class Grouped(Struct, frozen=True, kw_only=True):
    """An index page's groups and how many things they list in all."""

    groups: list[Group]
    total: int


def brand_groups(index: BrandIndex) -> Grouped:
    """``/brands``: every brand with published shows, under its initial, A–Z."""
    groups = [
        Group(
            anchor=f"letter-{letter.letter}",
            heading_id=f"h-{letter.letter}",
            heading=letter.letter,
            entries=[
                Entry(href=f"/brands/{brand.uid}", name=brand.name, count=thousands(brand.shows))
                for brand in letter.brands
            ],
        )
        for letter in index.letters
    ]
    return Grouped(groups=groups, total=index.total)


def season_groups(index: SeasonIndex) -> Grouped:
    """``/seasons``: every season with published shows, under its year, newest first."""
    groups = [
        Group(
            anchor=f"year-{year.year or 'other'}",
            heading_id=f"h-year-{year.year or 'other'}",
            nav=str(year.year or "Other"),
            heading=str(year.year or "Other seasons"),
            entries=[
                Entry(
                    href=f"/seasons/{season.slug}",
                    name=season.name,
                    count=f"{thousands(season.shows)} {'show' if season.shows == 1 else 'shows'}",
                )
                for season in year.seasons
            ],
        )
        for year in index.years
    ]
    return Grouped(groups=groups, total=index.total)
