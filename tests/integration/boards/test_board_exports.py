"""A shared board exports like a listing (issue 33): a ZIP of its available images in the
board's order with their credits, and a contact sheet; an unpublished item never leaves."""

from __future__ import annotations

import csv
import io
import zipfile

from tests.integration.boards.boards import share
from tests.integration.public.archive import Archive, set_status
from tests.integration.server.helpers import Backend


async def test_a_board_exports_its_available_images_in_its_order(
    site: Backend, archive: Archive
) -> None:
    first, second, gone = (
        archive.images["zeta-ss25"][1],
        archive.images["acne-ss25"][0],
        archive.images["acne-fw24"][0],
    )
    items = [{"image_id": i} for i in (first, gone, second)]
    created = await share(site, "Red for autumn", items)
    await set_status(archive.shows["acne-fw24"], "rejected")
    board = await site.client.get(created["view_url"], headers={"accept": "text/html"})
    assert f'href="{created["view_url"]}/export.zip"' in board.text

    answer = await site.client.get(f"{created['view_url']}/export.zip?rendition=original")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    zipped = zipfile.ZipFile(io.BytesIO(answer.content))
    names = [n for n in zipped.namelist() if n.startswith("images/")]
    assert names == [f"images/001-{first}.jpg", f"images/003-{second}.jpg"]
    assert zipped.read(names[0]) == archive.pictures[first]
    rows = list(csv.DictReader(io.StringIO(zipped.read("metadata.csv").decode())))
    assert [int(r["image_id"]) for r in rows] == [first, second]
    assert zipped.read("README.txt").decode().startswith("Red for autumn\n")

    sheet = await site.client.get(f"{created['view_url']}/contact-sheet?paper=letter")
    assert sheet.status_code == 200
    assert sheet.text.count('<figure class="sheet__item">') == 2
    assert "/static/paper-letter" in sheet.text


async def test_an_unknown_board_or_a_bad_size_is_one_line(site: Backend, archive: Archive) -> None:
    created = await share(site, "t", [{"image_id": archive.images["zeta-ss25"][0]}])
    bad = await site.client.get(f"{created['view_url']}/export.zip?rendition=huge")
    assert bad.status_code == 400
    assert bad.json() == {
        "error": "rendition must be one of 360, 560, 640, 800, 1200, 1600, original, not 'huge'"
    }
    missing = await site.client.get("/boards/" + "A" * 22 + "/export.zip")
    assert missing.status_code == 404
    assert "\n" not in missing.json()["error"]
