"""An index page's links in groups, as one template draws them: brands by initial, seasons
by year (the two pages differ only in what they group and how they word it)."""

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
    """A group's section: its anchor, its heading's id, its name in the jump bar and above
    its links, and the links."""

    anchor: str
    heading_id: str
    nav: str
    heading: str
    entries: list[Entry]


class GroupedPage(Struct, frozen=True, kw_only=True):
    """What the index template shows: the counted head (``total`` things in all), the jump
    bar, the groups, or the empty state's title and sentence."""

    title: str
    total: int
    meta: str
    nav_label: str
    list_class: str
    groups: list[Group]
    empty_title: str
    empty_text: str


def _counted(count: int, one: str, many: str) -> str:
    """``1,234 brands`` (``one`` when the count is 1)."""
    return f"{thousands(count)} {one if count == 1 else many}"


def brand_groups(index: BrandIndex) -> GroupedPage:
    """``/brands``: every brand with published shows, under its initial, A–Z."""
    groups = [
        Group(
            anchor=f"letter-{letter.letter}",
            heading_id=f"h-{letter.letter}",
            nav=letter.letter,
            heading=letter.letter,
            entries=[
                Entry(href=f"/brands/{brand.uid}", name=brand.name, count=thousands(brand.shows))
                for brand in letter.brands
            ],
        )
        for letter in index.letters
    ]
    return GroupedPage(
        title="Brands",
        total=index.total,
        meta=f"{_counted(index.total, 'brand', 'brands')} with published shows, A–Z",
        nav_label="Initials",
        list_class="brand-list",
        groups=groups,
        empty_title="No brands yet",
        empty_text="Brands are listed once one of their shows is published.",
    )


def season_groups(index: SeasonIndex) -> GroupedPage:
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
                    count=_counted(season.shows, "show", "shows"),
                )
                for season in year.seasons
            ],
        )
        for year in index.years
    ]
    return GroupedPage(
        title="Seasons",
        total=index.total,
        meta=f"{_counted(index.total, 'season', 'seasons')} with published shows, newest first",
        nav_label="Years",
        list_class="brand-list season-list",
        groups=groups,
        empty_title="No seasons yet",
        empty_text="Seasons are listed once one of their shows is published.",
    )
