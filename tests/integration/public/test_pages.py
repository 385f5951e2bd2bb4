"""The public pages and their JSON twins over HTTP, on SQLite and PostgreSQL: published
shows only, every filter alone and combined, keyset paging, brands, shows and images."""

from __future__ import annotations

import re

import pytest

from tests.integration.public.archive import Archive
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}
PUBLISHED_NEWEST_FIRST = [
    "street-jan",
    "acne-ss25",
    "aurele-ss25",
    "zeta-ss25",
    "acne-fw24",
    "aurele-fw24",
]
HIDDEN = ["pending", "rejected", "deleted"]


def names(archive: Archive, items: list[dict[str, object]]) -> list[str]:
    by_id = {v: k for k, v in archive.shows.items()}
    return [by_id[int(str(item["id"]))] for item in items]


def linked_shows(archive: Archive, html: str) -> list[str]:
    by_id = {v: k for k, v in archive.shows.items()}
    ids = re.findall(r'class="tile show-card" href="/shows/(\d+)"', html)
    return [by_id[int(i)] for i in ids]


async def test_home_lists_published_shows_newest_first(site: Backend, archive: Archive) -> None:
    page = await site.client.get("/", headers=HTML)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert linked_shows(archive, page.text) == PUBLISHED_NEWEST_FIRST
    assert "6 published shows" in page.text
    api = await site.client.get("/api/shows")
    assert names(archive, api.json()["items"]) == PUBLISHED_NEWEST_FIRST
    first = api.json()["items"][1]
    assert first["brand"]["name"] == "Acne Studios"
    assert first["images"] == 7
    assert first["cover"]["role"] == "look"
    assert first["cover"]["position"] == 1
    assert first["cover"]["width"] == 120
    assert first["cover"]["height"] == 180


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("brand=@Acne Studios", ["acne-ss25", "acne-fw24"]),
        ("season=Spring 2025 Ready-to-Wear", ["acne-ss25", "aurele-ss25", "zeta-ss25"]),
        ("year=2025", ["street-jan", "acne-ss25", "aurele-ss25", "zeta-ss25"]),
        ("year=2024", ["acne-fw24", "aurele-fw24"]),
        ("city=Paris", ["street-jan", "acne-ss25", "acne-fw24"]),
        ("kind=street", ["street-jan"]),
        ("kind=runway", PUBLISHED_NEWEST_FIRST[1:]),
        ("season=Spring 2025 Ready-to-Wear&city=Paris", ["acne-ss25"]),
        ("brand=@Maison Aurèle&year=2024&kind=runway", ["aurele-fw24"]),
        ("brand=@Maison Aurèle&year=2025&kind=runway", ["aurele-ss25"]),
        ("brand=@Maison Aurèle&city=Paris", []),
        ("season=Resort 1999", []),
    ],
)
async def test_each_filter_alone_and_combined(
    site: Backend, archive: Archive, query: str, expected: list[str]
) -> None:
    params = dict(part.split("=", 1) for part in query.split("&"))
    for key, value in params.items():
        if value.startswith("@"):
            params[key] = archive.brands[value[1:]]
    api = await site.client.get("/api/shows", params=params)
    assert api.status_code == 200, api.text
    assert names(archive, api.json()["items"]) == expected
    page = await site.client.get("/", params=params, headers=HTML)
    assert page.status_code == 200
    assert linked_shows(archive, page.text) == expected
    if not expected:
        assert "No published shows match these filters" in page.text
    for key in params:
        assert f'href="/?{key}=' in page.text or "Clear all" in page.text


async def test_sidebar_counts_are_faceted_and_links_keep_other_filters(
    site: Backend, archive: Archive
) -> None:
    facets = (await site.client.get("/api/facets", params={"city": "Paris"})).json()
    assert facets["total"] == 3
    assert {v["value"]: v["count"] for v in facets["kind"]} == {"runway": 2, "street": 1}
    assert {v["label"]: v["count"] for v in facets["brand"]} == {"Acne Studios": 2}
    cities = {v["value"]: v["count"] for v in facets["city"]}
    assert cities == {"Paris": 3, "Milan": 1, "London": 1, "New York": 1}
    page = await site.client.get("/?city=Paris", headers=HTML)
    assert 'href="/?city=Paris&amp;kind=street"' in page.text
    assert 'href="/?city=Milan"' in page.text


async def test_keyset_pages_cover_every_show_once(site: Backend, archive: Archive) -> None:
    seen: list[str] = []
    before = ""
    for _ in range(10):
        params = {"limit": "2", **({"before": before} if before else {})}
        answer = (await site.client.get("/api/shows", params=params)).json()
        seen += names(archive, answer["items"])
        if answer["next_before"] is None:
            break
        before = str(answer["next_before"])
    assert seen == PUBLISHED_NEWEST_FIRST
    page = await site.client.get(
        "/", params={"kind": "runway", "before": archive.shows["aurele-ss25"]}, headers=HTML
    )
    assert linked_shows(archive, page.text) == ["zeta-ss25", "acne-fw24", "aurele-fw24"]
    assert 'href="/?kind=runway" rel="prev"' in page.text


async def test_brands_a_to_z_with_counts_of_published_shows(
    site: Backend, archive: Archive
) -> None:
    index = (await site.client.get("/api/brands")).json()
    listed = [(b["name"], b["shows"]) for letter in index["letters"] for b in letter["brands"]]
    assert listed == [("Acne Studios", 2), ("Maison Aurèle", 2), ("Zeta", 1)]
    assert [letter["letter"] for letter in index["letters"]] == ["A", "M", "Z"]
    page = await site.client.get("/brands", headers=HTML)
    assert "Hidden Label" not in page.text
    assert f'href="/brands/{archive.brands["Zeta"]}"' in page.text
    brand = await site.client.get(f"/brands/{archive.brands['Acne Studios']}", headers=HTML)
    assert linked_shows(archive, brand.text) == ["acne-ss25", "acne-fw24"]
    hidden = await site.client.get(f"/brands/{archive.brands['Hidden Label']}", headers=HTML)
    assert hidden.status_code == 404


async def test_show_page_has_facts_credits_and_looks_then_details(
    site: Backend, archive: Archive
) -> None:
    show_id = archive.shows["acne-ss25"]
    page = await site.client.get(f"/shows/{show_id}", headers=HTML)
    assert page.status_code == 200
    text = page.text
    for fact in ("Acne Studios", "Spring 2025 Ready-to-Wear", "Paris", "2024-10-02"):
        assert fact in text
    assert "Jonny Johansson" in text
    assert "Sarah Mower" in text
    ids = [int(i) for i in re.findall(r'<a class="tile" href="/images/(\d+)"', text)]
    assert ids == archive.images["acne-ss25"]
    images = re.findall(r"<img [^>]*>", text)
    assert len(images) == 7
    for tag in images:
        assert 'width="120"' in tag
        assert 'height="180"' in tag
        assert "srcset=" in tag
        assert "/media/thumb/" in tag
    assert 'alt="Acne Studios, Spring 2025 Ready-to-Wear, look 1"' in text
    assert 'alt="Acne Studios, Spring 2025 Ready-to-Wear, detail 2"' in text
    assert 'loading="lazy"' in images[-1]
    api = (await site.client.get(f"/api/shows/{show_id}")).json()
    assert [p["position"] for p in api["looks"]] == [1, 2, 3, 4, 5]
    assert [p["position"] for p in api["details"]] == [1, 2]
    assert api["designer"] == "Jonny Johansson"


async def test_image_page_steps_through_the_show(site: Backend, archive: Archive) -> None:
    ids = archive.images["acne-ss25"]
    first = await site.client.get(f"/images/{ids[0]}", headers=HTML)
    assert first.status_code == 200
    assert 'rel="prev"' not in first.text
    assert f'href="/images/{ids[1]}" rel="next"' in first.text
    assert '<strong>Look 1</strong> <span class="muted">of 5</span>' in first.text
    assert "Similar looks are off" in first.text
    strip = first.text.split('class="filmstrip"')[1].split("</nav>")[0]
    frames = [int(i) for i in re.findall(r'class="filmstrip__frame" href="/images/(\d+)"', strip)]
    assert frames == ids[:5], "the filmstrip holds the show's looks"
    assert f'href="/images/{ids[0]}" aria-current="true"' in strip
    assert "Jonny Johansson" in first.text, "the designer is credited"
    assert "Sarah Mower" in first.text
    detail = await site.client.get(f"/images/{ids[5]}", headers=HTML)
    assert '<strong>Detail 1</strong> <span class="muted">of 2</span>' in detail.text
    last = (await site.client.get(f"/api/images/{ids[-1]}")).json()
    assert last["prev_id"] == ids[-2]
    assert last["next_id"] is None
    assert last["index"] == last["count"] == 7
    assert last["counter"] == {"what": "detail", "number": 2, "total": 2}
    assert last["show"]["id"] == archive.shows["acne-ss25"]
    assert last["image"]["role"] == "detail"
    original = await site.client.get(last["image"]["url"])
    assert original.content == archive.pictures[ids[-1]]


@pytest.mark.parametrize("name", HIDDEN)
async def test_unpublished_shows_and_images_are_not_found_by_url(
    site: Backend, archive: Archive, name: str
) -> None:
    show_id, image_id = archive.shows[name], archive.images[name][0]
    for path in (f"/shows/{show_id}", f"/images/{image_id}"):
        page = await site.client.get(path, headers=HTML)
        assert page.status_code == 404
        assert "Page not found" in page.text
    for path in (f"/api/shows/{show_id}", f"/api/images/{image_id}"):
        answer = await site.client.get(path)
        assert answer.status_code == 404
        assert "no published" in answer.json()["error"]
    home = await site.client.get("/", params={"before": ""}, headers=HTML)
    assert f"/shows/{show_id}" not in home.text
