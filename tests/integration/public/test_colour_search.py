"""Search by colour over HTTP, on SQLite and PostgreSQL, with the colour slice's archive of
flat-colour garments (issue 30): ``/api/search?colour=`` and ``/search?colour=``, alone, with
a show filter, with words; the colour facet's swatches; bad colours a one-line 400."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rk.core.api.plugins import RkPluginManager
from rk.server.colour import compute_colours, parse_colour
from rk.server.colour.ciede2000 import delta_e_2000
from rk.server.colour.lab import lab_of_hex
from rk.server.platform.db.sql_rows import database
from rk.server.platform.db.tables import Article, Image
from tests.integration.colour.archive import (
    COLOURS,
    LOOKS,
    Archive,
    hex_of,
    picture,
    seed_archive,
)
from tests.integration.embeddings.backend import embed_backend
from tests.integration.public.archive import Archive as PublicArchive
from tests.integration.public.vectors import embed_archive, wait_placed
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}
SEASON = "Spring 2025 Ready-to-Wear"


@pytest.fixture
async def colour_site(
    tmp_path: Path, plugin_manager: RkPluginManager, any_dsn: str
) -> AsyncIterator[tuple[Backend, Archive]]:
    """A backend with the tiny CLIP and the flat-colour archive, every image measured and
    embedded; the first show is of season ``SEASON``."""
    async with embed_backend(tmp_path, plugin_manager, database=any_dsn) as backend:
        archive = await seed_archive(backend.storage)
        report = await compute_colours(database(), backend.storage, sorted(archive.colour_of))
        assert report.failed == {}
        first = next(iter(archive.shows))
        await Article.update({Article.season: SEASON}).where(Article.id == first)
        thumbs = PublicArchive()
        for row in await Image.select(Image.id, Image.thumb_key):
            thumbs.pictures[int(row["id"])] = await backend.storage.get(str(row["thumb_key"]))
        await embed_archive(thumbs, plugin_manager)
        await wait_placed()
        yield backend, archive


def known_delta_e(archive: Archive, image_id: int, colour: str) -> float:
    """ΔE2000 between an image's known garment colour and the colour asked for."""
    wanted = parse_colour(colour).lab
    return float(delta_e_2000(lab_of_hex(archive.colour_of[image_id]), wanted))


def tile_ids(html: str) -> list[int]:
    """Image ids of the result tiles of a page, in order."""
    return [int(i) for i in re.findall(r'<a class="tile" href="/images/(\d+)">', html)]


async def test_a_colour_search_answers_only_published_looks_of_that_colour(
    colour_site: tuple[Backend, Archive],
) -> None:
    site, archive = colour_site
    for colour in [*COLOURS, "#1d2745"]:
        answer = await site.client.get("/api/search", params={"colour": colour, "k": 10})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["model"] == ""
        assert body["colour"]["hex"] == parse_colour(colour).hex
        items = body["items"]
        assert len(items) == 10, colour
        for item in items:
            assert item["image_id"] in archive.published
            assert known_delta_e(archive, item["image_id"], colour) < 10, (colour, item)
            assert item["delta_e"] < 10
            assert item["url"]
        assert [i["score"] for i in items] == sorted((i["score"] for i in items), reverse=True)
        page = await site.client.get("/search", params={"colour": colour}, headers=HTML)
        assert page.status_code == 200
        shown = tile_ids(page.text)
        assert len(shown) == LOOKS, colour
        assert shown[:10] == [item["image_id"] for item in items]
        assert not set(shown) & archive.hidden


async def test_colour_combines_with_a_show_filter_a_kind_words_and_a_photo(
    colour_site: tuple[Backend, Archive],
) -> None:
    site, archive = colour_site
    first_show = set(next(iter(archive.shows.values())))
    for colour in COLOURS[:3]:
        params = {"colour": colour, "season": SEASON}
        body = (await site.client.get("/api/search", params=params)).json()
        found = {item["image_id"] for item in body["items"]}
        assert found, colour
        assert found <= first_show
        assert all(archive.colour_of[i] == hex_of(colour) for i in found)
        page = await site.client.get("/search", params=params, headers=HTML)
        assert set(tile_ids(page.text)) == found
        assert SEASON in page.text
    street = (await site.client.get("/api/search?colour=camel&kind=street")).json()["items"]
    assert street
    assert {item["image_id"] for item in street} <= archive.street
    worded = await site.client.get("/api/search", params={"colour": "navy", "q": "a coat"})
    body = worded.json()
    assert body["model"], "words chose the candidates"
    assert body["query"] == "a coat"
    assert body["items"]
    assert all(archive.colour_of[item["image_id"]] == hex_of("navy") for item in body["items"])
    page = await site.client.get("/search", params={"colour": "navy", "q": "a coat"}, headers=HTML)
    assert page.status_code == 200
    assert "Looks in navy like “a coat”" in page.text
    assert tile_ids(page.text) == [item["image_id"] for item in body["items"]]
    plain = (await site.client.get("/api/search", params={"q": "a coat"})).json()
    assert "colour" not in plain, "a search without colour answers as before"

    upload = {"image": ("look.jpg", picture("emerald", 500), "image/jpeg")}
    sent = await site.client.post("/search", files=upload, headers=HTML)
    assert sent.status_code == 303
    sha1 = sent.headers["location"].rsplit("=", 1)[1]
    body = (await site.client.get(f"/api/search?colour=emerald&photo={sha1}")).json()
    assert body["photo"] == sha1
    assert body["model"]
    assert body["items"]
    assert all(archive.colour_of[item["image_id"]] == hex_of("emerald") for item in body["items"])
    page = await site.client.get(f"/search?colour=emerald&photo={sha1}", headers=HTML)
    assert "Looks in emerald like your photo" in page.text
    assert f'src="/search/photos/{sha1}.jpg"' in page.text


async def test_the_search_page_lists_colour_swatches_of_published_looks(
    colour_site: tuple[Backend, Archive],
) -> None:
    site, _ = colour_site
    page = await site.client.get("/search", headers=HTML)
    assert page.status_code == 200
    swatches = re.findall(
        r'<a class="swatch" href="/search\?colour=([a-z+]+)"[^>]*>.*?fill="(#[0-9a-f]{6})".*?'
        r'swatch__name">([a-z ]+)</span> <span class="swatch__count">(\d+)</span>',
        page.text,
        re.S,
    )
    counts = {name: int(count) for _, _, name, count in swatches}
    assert {name: counts.get(name) for name in COLOURS} == dict.fromkeys(COLOURS, LOOKS)
    for link, fill, name, _ in swatches:
        assert link.replace("+", " ") == name
        assert fill == hex_of(name)
    chosen = await site.client.get("/search?colour=camel", headers=HTML)
    assert 'href="/search?colour=camel" aria-current="true"' in chosen.text


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("colour=oxbloud", "unknown colour 'oxbloud' (did you mean oxblood?)"),
        ("colour=%2312", "malformed hex colour '#12': use #rrggbb or #rgb"),
        ("colour=", "colour is empty"),
        ("colour=navy&kind=catwalk", "kind 'catwalk' is unknown"),
    ],
)
async def test_a_bad_colour_is_a_one_line_400_on_the_api_and_the_page(
    colour_site: tuple[Backend, Archive], query: str, message: str
) -> None:
    site, _ = colour_site
    answer = await site.client.get(f"/api/search?{query}")
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error.startswith(message), error
    assert "\n" not in error
    page = await site.client.get(f"/search?{query}", headers=HTML)
    assert page.status_code == 400
    assert 'id="e-colour"' in page.text
    assert message.replace("'", "&#39;") in page.text
