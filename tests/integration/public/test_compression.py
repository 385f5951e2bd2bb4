"""Compressed answers (issue 29): pages, JSON and the stylesheet go out gzip-encoded to a
client that accepts it, rendered afresh or sent again from the page cache, with the same
ETag and 304s as uncompressed; images and fonts go out as they are (SQLite and
PostgreSQL)."""

from __future__ import annotations

import gzip

from tests.integration.public.archive import Archive
from tests.integration.server.helpers import Backend

GZIP = {"accept": "text/html", "accept-encoding": "gzip"}
PLAIN = {"accept": "text/html", "accept-encoding": "identity"}


async def raw(site: Backend, path: str, headers: dict[str, str]) -> tuple[int, dict, bytes]:
    """Status, headers and the body as sent (not decoded by the client)."""
    async with site.client.stream("GET", path, headers=headers) as response:
        body = b"".join([chunk async for chunk in response.aiter_raw()])
        return response.status_code, dict(response.headers), body


async def test_pages_and_json_are_gzipped_and_still_revalidate(
    site: Backend, archive: Archive
) -> None:
    for path in ("/", f"/shows/{archive.shows['acne-ss25']}", "/api/shows", "/static/rk.css"):
        status, headers, body = await raw(site, path, GZIP)
        assert status == 200, path
        assert headers["content-encoding"] == "gzip", path
        assert "accept-encoding" in headers["vary"].lower(), path
        plain_status, plain_headers, plain = await raw(site, path, PLAIN)
        assert plain_status == 200
        assert "content-encoding" not in plain_headers
        assert gzip.decompress(body) == plain
        assert len(body) < len(plain) / 3, path
        assert headers["etag"] == plain_headers["etag"]
        _, cached_headers, cached = await raw(site, path, GZIP)  # from the page cache
        assert cached_headers["content-encoding"] == "gzip", path
        assert "accept-encoding" in cached_headers["vary"].lower(), path
        assert gzip.decompress(cached) == plain
        assert cached_headers["etag"] == headers["etag"]
        if path.startswith("/static/"):
            continue  # versioned URLs, kept a year: never revalidated
        again, again_headers, empty = await raw(
            site, path, {**GZIP, "if-none-match": headers["etag"]}
        )
        assert again == 304, path
        assert empty == b""
        assert "content-encoding" not in again_headers


async def test_images_go_out_as_they_are(site: Backend, archive: Archive) -> None:
    page = await site.client.get(f"/api/images/{archive.images['acne-ss25'][0]}")
    image = page.json()["image"]
    for url in (image["url"], image["thumb_url"], "/static/inter-latin-400.woff2"):
        status, headers, body = await raw(site, url.removeprefix(site.url), GZIP)
        assert status == 200, url
        assert "content-encoding" not in headers, url
        assert len(body) == int(headers["content-length"])
