"""Seasons to browse over HTTP, on SQLite and PostgreSQL: ``/seasons`` counts every season's
published shows, ``/seasons/<slug>`` lists exactly a season's published shows by designer
A–Z with keyset pages, the front page leads with the latest season, every value of every
filter is reachable, and street-style titles keep their last words."""

from __future__ import annotations

import re

from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}
SS25 = "spring-2025-ready-to-wear"


def show_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="tile show-card" href="/shows/(\d+)"', html)]


async def test_seasons_index_counts_published_shows_by_year(
    site: Backend, archive: Archive
) -> None:
    index = (await site.client.get("/api/seasons")).json()
    listed = [
        (year["year"], [(s["name"], s["slug"], s["shows"]) for s in year["seasons"]])
        for year in index["years"]
    ]
    assert listed == [
        (2025, [("Spring 2025 Ready-to-Wear", SS25, 3)]),
        (2024, [("Fall 2024 Ready-to-Wear", "fall-2024-ready-to-wear", 2)]),
    ], "pending, rejected and deleted shows are not counted; a show without a season is not one"
    assert index["total"] == 2
    page = await site.client.get("/seasons", headers=HTML)
    assert page.status_code == 200
    assert f'href="/seasons/{SS25}"' in page.text
    assert "3 shows" in page.text
    assert '<link rel="canonical" href="' in page.text


async def test_a_season_page_lists_exactly_its_published_shows_by_designer(
    site: Backend, archive: Archive
) -> None:
    answer = (await site.client.get(f"/api/seasons/{SS25}")).json()
    assert answer["season"] == {
        "name": "Spring 2025 Ready-to-Wear",
        "slug": SS25,
        "year": 2025,
        "collection": "Ready-to-Wear",
        "shows": 3,
    }
    groups = [
        (g["label"], [(d["name"], [c["id"] for c in d["shows"]]) for d in g["designers"]])
        for g in answer["groups"]
    ]
    assert groups == [
        ("A", [("Acne Studios", [archive.shows["acne-ss25"]])]),
        ("M", [("Maison Aurèle", [archive.shows["aurele-ss25"]])]),
        ("Z", [("Zeta", [archive.shows["zeta-ss25"]])]),
    ]
    assert answer["next_after"] is None
    page = await site.client.get(f"/seasons/{SS25}", headers=HTML)
    assert page.status_code == 200
    assert show_ids(page.text) == [
        archive.shows[n] for n in ("acne-ss25", "aurele-ss25", "zeta-ss25")
    ]
    for name in ("pending", "rejected", "deleted"):
        assert f"/shows/{archive.shows[name]}" not in page.text
    assert "<h1>Spring 2025 Ready-to-Wear</h1>" in page.text
    assert "Ready-to-Wear" in page.text
    assert '<meta name="description" content="Spring 2025 Ready-to-Wear: 3 shows' in page.text
    assert '<meta property="og:title" content="Spring 2025 Ready-to-Wear">' in page.text
    assert '<meta property="og:image" content="' in page.text
    assert re.search(rf'<link rel="canonical" href="http://[^"]+/seasons/{SS25}">', page.text)
    show = await site.client.get(f"/shows/{archive.shows['acne-ss25']}", headers=HTML)
    assert f'href="/seasons/{SS25}"' in show.text, "a show links its season's page"


async def test_season_pages_follow_each_other_by_keyset(site: Backend, archive: Archive) -> None:
    seen: list[int] = []
    after = ""
    for _ in range(5):
        params = {"limit": "1", **({"after": after} if after else {})}
        answer = (await site.client.get(f"/api/seasons/{SS25}", params=params)).json()
        seen += [c["id"] for g in answer["groups"] for d in g["designers"] for c in d["shows"]]
        if answer["next_after"] is None:
            break
        after = str(answer["next_after"])
    assert seen == [archive.shows[n] for n in ("acne-ss25", "aurele-ss25", "zeta-ss25")]
    second = await site.client.get(
        f"/seasons/{SS25}", params={"after": archive.shows["acne-ss25"]}, headers=HTML
    )
    assert show_ids(second.text) == [archive.shows["aurele-ss25"], archive.shows["zeta-ss25"]]
    assert f'href="/seasons/{SS25}" rel="prev"' in second.text
    other = await site.client.get(
        f"/api/seasons/{SS25}", params={"after": archive.shows["acne-fw24"]}
    )
    assert other.status_code == 400
    assert "no show of this season" in other.json()["error"]
    bad = await site.client.get(f"/api/seasons/{SS25}", params={"after": "x"})
    assert bad.status_code == 400


async def test_an_unknown_season_is_not_found(site: Backend, archive: Archive) -> None:
    for slug in ("resort-1999", "Spring_2025!", "a" * 300, "spring--2025"):
        api = await site.client.get(f"/api/seasons/{slug}")
        assert api.status_code == 404, slug
        assert "no season" in api.json()["error"]
        page = await site.client.get(f"/seasons/{slug}", headers=HTML)
        assert page.status_code == 404
        assert "Page not found" in page.text


async def test_the_front_page_leads_with_the_latest_season(site: Backend, archive: Archive) -> None:
    home = await site.client.get("/", headers=HTML)
    lead = home.text.split('<section class="lead"')[1].split("</section>")[0]
    assert f'href="/seasons/{SS25}">Spring 2025 Ready-to-Wear</a>' in lead
    assert "All 3 shows of the season" in lead
    covers = re.findall(r'class="lead__show" href="/shows/(\d+)"', lead)
    assert [int(i) for i in covers] == [
        archive.shows[n] for n in ("acne-ss25", "aurele-ss25", "zeta-ss25")
    ]
    assert 'loading="lazy"' not in lead.split("</a>")[0], "the first cover is not lazy"
    filtered = await site.client.get("/", params={"city": "Paris"}, headers=HTML)
    assert 'class="lead"' not in filtered.text


async def test_every_value_of_every_filter_can_be_reached(site: Backend, archive: Archive) -> None:
    for n in range(14):
        await add_show(
            site.storage,
            archive,
            f"resort-{n}",
            brand=f"Label {n:02d}",
            season=f"Resort {2000 + n}",
            city=f"City {n:02d}",
            date=f"{1999 + n}-06-01",
            looks=1,
            seed=100 + n,
        )
    facets = (await site.client.get("/api/facets")).json()
    assert len(facets["season"]) == 12
    assert facets["more"] == {"season": 4, "year": 0, "city": 6, "brand": 5, "tag": 0}
    every = (await site.client.get("/api/facets", params={"all": "season"})).json()
    assert len(every["season"]) == 16
    assert "Resort 2000" in [v["value"] for v in every["season"]]
    assert len(every["city"]) == 12
    years = {v["value"]: v["count"] for v in every["year"]}
    assert years["2000"] == 1, "a season's shows count in its own year, not their date's"
    page = await site.client.get("/", headers=HTML)
    assert 'href="/?all=season">All 16 seasons →</a>' in page.text
    assert 'href="/seasons">Seasons by year →</a>' in page.text
    expanded = await site.client.get("/", params={"all": "season"}, headers=HTML)
    assert "Resort 2000" in expanded.text
    assert 'href="/?">Fewer seasons</a>' in expanded.text
    by_year = (await site.client.get("/api/shows", params={"year": "2000"})).json()
    assert [c["id"] for c in by_year["items"]] == [archive.shows["resort-0"]]
    bad = await site.client.get("/api/facets", params={"all": "colour"})
    assert bad.status_code == 400
    assert "no filter" in bad.json()["error"]


async def test_street_style_titles_keep_their_last_words_and_count_photos(
    site: Backend, archive: Archive
) -> None:
    for day in (1, 2):
        await add_show(
            site.storage,
            archive,
            f"Street Style: Paris Fashion Week Spring 2025 Day {day}",
            kind="street",
            city="Paris",
            date=f"2025-03-0{day}",
            looks=2,
            seed=200 + day,
        )
    home = await site.client.get("/", headers=HTML)
    for day in (1, 2):
        assert f'<span class="split-title__tail">Day {day}</span>' in home.text
    assert "2 photos" in home.text
    show_id = archive.shows["Street Style: Paris Fashion Week Spring 2025 Day 2"]
    show = await site.client.get(f"/shows/{show_id}", headers=HTML)
    assert '<h2 id="looks">Photos</h2>' in show.text
    assert "2 photos" in show.text
    first = archive.images["Street Style: Paris Fashion Week Spring 2025 Day 2"][0]
    image = await site.client.get(f"/images/{first}", headers=HTML)
    assert '<strong>Photo 1</strong> <span class="muted">of 2</span>' in image.text
