"""ZIP exports and contact sheets of a filtered listing and of a search (issue 33), over
HTTP on SQLite and PostgreSQL: only published images, credits in CSV and JSON, formula-safe
cells, the chosen size, printable sheets for A4 and Letter, bad input a one-line 400."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest

from rk.server.platform.db.tables import Image
from tests.integration.colour.archive import Archive as ColourArchive
from tests.integration.public.archive import Archive, add_show
from tests.integration.public.test_colour_search import (  # noqa: F401 (colour_site: a fixture)
    colour_site,
    known_delta_e,
)
from tests.integration.server.helpers import Backend

HTML = {"accept": "text/html"}


def unzip(data: bytes) -> zipfile.ZipFile:
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None
    return archive


async def test_a_filtered_listing_exports_its_published_images_with_credits(
    site: Backend, archive: Archive
) -> None:
    answer = await site.client.get(f"/export.zip?brand={archive.brands['Acne Studios']}")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    assert 'filename="rk-export.zip"' in answer.headers["content-disposition"]
    zipped = unzip(answer.content)
    expected = sorted(archive.images["acne-ss25"] + archive.images["acne-fw24"], reverse=True)
    names = [n for n in zipped.namelist() if n.startswith("images/")]
    assert [int(n.split("-")[1].split(".")[0]) for n in names] == expected  # newest first
    for name, image_id in zip(names, expected, strict=True):
        assert zipped.read(name) == archive.pictures[image_id]  # no rendition yet: originals
    rows = list(csv.DictReader(io.StringIO(zipped.read("metadata.csv").decode())))
    assert [int(r["image_id"]) for r in rows] == expected
    first = next(r for r in rows if int(r["image_id"]) == archive.images["acne-ss25"][0])
    assert first["designer"] == "Jonny Johansson"
    assert first["look"] == "Look 1"
    assert first["source"] == "Vogue Runway"
    assert first["archive_url"] == f"{site.url}/images/{first['image_id']}"
    meta = json.loads(zipped.read("metadata.json"))
    assert meta["title"] == "Acne Studios"
    assert [item["image_id"] for item in meta["items"]] == expected
    assert "14 images in images/" not in zipped.read("README.txt").decode()
    assert f"{len(expected)} images in images/" in zipped.read("README.txt").decode()
    hidden = {i for name in ("pending", "deleted") for i in archive.images[name]}
    assert hidden.isdisjoint(int(r["image_id"]) for r in rows)


async def test_hostile_credits_cannot_run_in_a_spreadsheet(site: Backend, archive: Archive) -> None:
    await add_show(site.storage, archive, "evil", brand='=HYPERLINK("http://x")', looks=1)
    uid = archive.brands['=HYPERLINK("http://x")']
    rows = list(
        csv.DictReader(
            io.StringIO(
                unzip((await site.client.get(f"/export.zip?brand={uid}")).content)
                .read("metadata.csv")
                .decode()
            )
        )
    )
    assert [r["brand"] for r in rows] == ['\'=HYPERLINK("http://x")']


async def test_the_contact_sheet_prints_on_a4_or_letter(site: Backend, archive: Archive) -> None:
    uid = archive.brands["Maison Aurèle"]
    sheet = await site.client.get(f"/contact-sheet?brand={uid}&paper=letter", headers=HTML)
    assert sheet.status_code == 200
    assert "/static/paper-letter" in sheet.text
    assert sheet.text.count('<figure class="sheet__item">') == 6  # 4 + 2 looks of Maison Aurèle
    assert "Maison Aurèle, Spring 2025 Ready-to-Wear, look 1" in sheet.text
    assert f'href="/contact-sheet?brand={uid}&amp;paper=a4"' in sheet.text
    assert f'href="/?brand={uid}"' in sheet.text
    home = await site.client.get(f"/?brand={uid}", headers=HTML)
    assert f'href="/export.zip?brand={uid}"' in home.text


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "/export.zip?rendition=9000",
            "rendition must be one of 360, 560, 640, 800, 1200, 1600, original, not '9000'",
        ),
        ("/contact-sheet?paper=a3", "paper must be a4 or letter, not 'a3'"),
        ("/search/export.zip", "give q (words), like (an image id) or colour"),
        ("/search/contact-sheet?colour=oxbloud", None),
        ("/export.zip?year=19x", None),
    ],
)
async def test_bad_input_is_a_one_line_400(
    site: Backend, archive: Archive, path: str, message: str | None
) -> None:
    answer = await site.client.get(path, headers={"accept": "application/json"})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert "\n" not in error
    if message is not None:
        assert error == message


async def test_a_colour_search_exports_its_results(
    colour_site: tuple[Backend, ColourArchive],  # noqa: F811 (the imported fixture)
) -> None:
    backend, archive = colour_site
    page = await backend.client.get("/search?colour=navy", headers=HTML)
    assert 'href="/search/export.zip?colour=navy"' in page.text
    api = (await backend.client.get("/api/search?colour=navy")).json()
    ranked = [item["image_id"] for item in api["items"]]
    assert ranked
    assert all(known_delta_e(archive, i, "navy") < 10 for i in ranked[:10])
    sheet = await backend.client.get("/search/contact-sheet?colour=navy", headers=HTML)
    shown = [int(i) for i in re.findall(r'alt="[^"]*" data-image="(\d+)"', sheet.text)]
    assert shown[: len(ranked)] == ranked  # the search's results, in its order
    answer = await backend.client.get("/search/export.zip?colour=navy&rendition=original")
    zipped = unzip(answer.content)
    readme = zipped.read("README.txt").decode()
    stored = {
        n.split("-")[1].split(".")[0]: n for n in zipped.namelist() if n.startswith("images/")
    }
    for n, image_id in enumerate(shown, start=1):
        key = str((await Image.objects().get(Image.id == image_id)).key)
        if await backend.storage.head(key) is None:  # this archive keeps some thumbnails only
            assert f"Left out (missing in storage): {n:03d}-{image_id}." in readme
        else:
            assert zipped.read(stored[str(image_id)]) == await backend.storage.get(key)
