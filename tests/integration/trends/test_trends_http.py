"""``/trends``, ``/trends.csv`` and ``/api/trends`` over HTTP on SQLite and PostgreSQL (issue
30): the page draws the chart as inline SVG with its table and escapes crawled text, the
CSV parses back to the JSON's figures and keeps formulas inert, and bad input is a one-line
400 (JSON on the API and the CSV, the page again with the reason)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend
from tests.integration.trends.archive import FW24, FW25, SLUGS, SS25, TrendArchive, add_tag

HTML = {"accept": "text/html"}


async def test_the_page_draws_the_trend_as_svg_with_its_table(
    site: Backend, trend_archive: TrendArchive
) -> None:
    page = await site.client.get("/trends", params={"tag": "trench coat"}, headers=HTML)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"
    html = page.text
    svg = re.search(r"<svg viewBox=\"0 0 \d+ \d+\" role=\"img\".*?</svg>", html, re.S)
    assert svg is not None
    assert svg.group(0).count("<circle") == 3
    assert "<polyline" in svg.group(0)
    assert f"{FW24}: 50.0% (2 of 4 looks)" in svg.group(0)
    assert f"{SS25}: 12.5% (1 of 8 looks)" in svg.group(0)
    rows = re.findall(r'<tr><th scope="row"><a href="/seasons/([a-z0-9-]+)">', html)
    assert rows[:3] == [SLUGS[FW24], SLUGS[SS25], SLUGS[FW25]]
    assert 'href="/trends.csv?tag=trench+coat"' in html
    assert "Risers and fallers: Spring 2025 Ready-to-Wear → Fall 2025 Ready-to-Wear" in html
    assert 'href="/trends?tag=tweed"' in html
    assert 'href="/trends" aria-current="page">Trends</a>' in html
    again = await site.client.get(
        "/trends",
        params={"tag": "trench coat"},
        headers={**HTML, "if-none-match": page.headers["etag"]},
    )
    assert again.status_code == 304

    plain = await site.client.get("/trends", headers=HTML)
    assert plain.status_code == 200
    assert "<svg viewBox" not in plain.text
    assert "Pick a tag or a colour" in plain.text
    assert 'href="/trends?colour=camel"' in plain.text


async def test_crawled_text_is_escaped_in_the_svg_and_inert_in_the_csv(site: Backend) -> None:
    archive = Archive()
    hostile = '=HYPERLINK("http://evil.example") <script>alert(1)</script> 2026'
    show = await add_show(site.storage, archive, "hostile", season=hostile, looks=2, seed=9)
    assert show
    await add_tag(archive.images["hostile"][0], "<b>sheer</b>")
    page = await site.client.get("/trends", params={"tag": "<b>sheer</b>"}, headers=HTML)
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in page.text
    assert "<b>sheer</b>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "&lt;b&gt;sheer&lt;/b&gt;" in page.text

    answer = await site.client.get("/trends.csv", params={"tag": "<b>sheer</b>"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    assert (
        answer.headers["content-disposition"] == 'attachment; filename="rk-trend-tag-b-sheer-b.csv"'
    )
    table = list(csv.reader(io.StringIO(answer.text)))
    assert table[0] == ["season", "season_slug", "looks", "looks_with", "share"]
    assert table[1][0] == "'" + hostile
    assert table[1][2:] == ["2", "1", "0.500000"]


async def test_the_csv_parses_back_to_the_json(site: Backend, trend_archive: TrendArchive) -> None:
    for params in ({"colour": "oxblood"}, {"tag": "sheer", "kind": "runway"}):
        body = (await site.client.get("/api/trends", params=params)).json()
        for url, extra in (("/trends.csv", {}), ("/api/trends", {"format": "csv"})):
            answer = await site.client.get(url, params={**params, **extra})
            assert answer.status_code == 200, answer.text
            assert answer.headers["content-type"] == "text/csv; charset=utf-8"
            assert answer.headers["content-disposition"].startswith("attachment; filename=")
            header, *rows = list(csv.DictReader(io.StringIO(answer.text)).reader)
            assert header == ["season", "season_slug", "looks", "looks_with", "share"]
            assert [(r[0], r[1], int(r[2]), int(r[3])) for r in rows] == [
                (p["season"], p["slug"], p["looks"], p["matching"]) for p in body["trend"]["points"]
            ]
            for row, point in zip(rows, body["trend"]["points"], strict=True):
                assert float(row[4]) == pytest.approx(point["share"], abs=1e-6)


BAD = [
    ({"tag": "no such tag"}, "unknown tag 'no such tag'"),
    ({"colour": "oxbloud"}, "unknown colour 'oxbloud'"),
    ({"colour": "#aabbcc"}, "not a #hex"),
    ({"tag": "sheer", "colour": "navy"}, "a tag or a colour, not both"),
    ({"kind": "catwalk"}, "kind must be runway or street"),
    ({"from": "spring-1999"}, "unknown season 'spring-1999'"),
    ({"to": "Bad Slug!"}, "is not a season slug"),
    ({"from": SLUGS[SS25], "to": SLUGS[SS25]}, "two different seasons"),
    ({"designer": "Nobody At All"}, "no designer 'Nobody At All'"),
    ({"city": "Atlantis"}, "no published show in 'Atlantis'"),
    ({"tag": "a\x01b"}, "control characters"),
    ({"tag": "x" * 65}, "longer than 64 characters"),
    ({"format": "xml"}, "format must be json or csv"),
    ({"format": "csv"}, "a CSV needs a tag or a colour"),
]


@pytest.mark.parametrize(("params", "reason"), BAD, ids=[r for _, r in BAD])
async def test_bad_input_is_a_one_line_400(
    site: Backend, trend_archive: TrendArchive, params: dict[str, str], reason: str
) -> None:
    answer = await site.client.get("/api/trends", params=params)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body = answer.json()
    assert list(body) == ["error"]
    assert reason in body["error"]
    assert "\n" not in body["error"]
    if "format" not in params:
        page = await site.client.get("/trends", params=params, headers=HTML)
        assert page.status_code == 400
        assert 'role="alert"' in page.text
        assert '<form class="trend-form"' in page.text
        download = await site.client.get("/trends.csv", params={"tag": "sheer", **params})
        assert download.status_code == 400
        assert list(download.json()) == ["error"]
