"""Every kind of answer carries the security headers, on SQLite and PostgreSQL.

HTML pages, JSON, the schema, ``/static``, ``/media``, ``/metrics``, health checks, 304s,
errors of every status and the router's own 404 and 405: each has ``nosniff``, the
referrer policy, ``X-Frame-Options: DENY`` and the content security policy. HSTS is sent
only when ``server.public_url`` is https.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import msgspec

from rk.core.api.plugins import RkPluginManager
from rk.server.platform.web.static_files import static_url
from tests.integration.admin.console import HTML, account, sign_in
from tests.integration.public.archive import Archive
from tests.integration.server.helpers import Backend, backend_settings, running_backend

EXPECTED = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
}
CSP_PARTS = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
]


def assert_secured(name: str, response: httpx.Response) -> None:
    """The answer has every header rk promises (and no HSTS over plain http)."""
    for header, value in EXPECTED.items():
        assert response.headers.get(header) == value, (name, response.status_code, header)
    policy = response.headers.get("content-security-policy", "")
    for part in CSP_PARTS:
        assert part in policy, (name, policy)
    assert "strict-transport-security" not in response.headers, name


async def answers(site: Backend, archive: Archive) -> dict[str, httpx.Response]:
    """One answer of each kind the backend gives, by what it is."""
    client = site.client
    show = archive.shows["acne-ss25"]
    image = archive.images["acne-ss25"][0]
    uid = archive.brands["Acne Studios"]
    sha1 = hashlib.sha1(archive.pictures[image]).hexdigest()
    get = {
        "home": "/",
        "home filtered": "/?kind=street",
        "brands": "/brands",
        "brand": f"/brands/{uid}",
        "show": f"/shows/{show}",
        "image": f"/images/{image}",
        "search": "/search?q=boots",
        "schema page": "/schema",
        "openapi json": "/schema/openapi.json",
        "openapi yaml": "/schema/openapi.yaml",
        "api shows": "/api/shows",
        "api show": f"/api/shows/{show}",
        "api image": f"/api/images/{image}",
        "api brands": "/api/brands",
        "api facets": "/api/facets",
        "css": static_url("rk.css"),
        "js": static_url("rk.js"),
        "favicon": static_url("favicon.svg"),
        "media": f"/media/runway/{sha1}.jpg",
        "thumbnail": f"/media/thumb/{sha1}.jpg",
        "healthz": "/healthz",
        "readyz": "/readyz",
        "metrics": "/metrics",
        "unknown page": "/no/such/page",
        "unknown static": "/static/nope.css",
        "unknown media": f"/media/runway/{'0' * 40}.jpg",
        "bad show id": "/shows/999999",
        "bad api id": "/api/shows/notanumber",
        "sign-in form": "/admin/sign-in",
        "console unsigned": "/admin/articles",
        "internal unsigned": "/admin/internal/ping",
    }
    found = {name: await client.get(path, headers=HTML) for name, path in get.items()}
    found["unknown page, json"] = await client.get("/no/such/page")
    found["method not allowed"] = await client.delete("/api/shows")
    found["ingest unsigned"] = await client.post("/admin/internal/ingest", content=b"{}")
    found["ingest bad body"] = await site.signed("POST", "/admin/internal/ingest", b"[]")
    found["ingest not json"] = await site.signed("POST", "/admin/internal/ingest", b"{x")
    found["photo search, not a photo"] = await client.post(
        "/search", files={"image": ("x.txt", b"not a photo", "text/plain")}, headers=HTML
    )
    found["csrf refused"] = await client.post("/admin/sign-in", data={"username": "x"})
    etag = found["show"].headers["etag"]
    found["not modified"] = await client.get(
        f"/shows/{show}", headers={**HTML, "if-none-match": etag}
    )
    await account("mo", "admin")
    found["signed in"] = await sign_in(client, "mo")
    for name, path in {
        "dashboard": "/admin",
        "articles": "/admin/articles",
        "review": f"/admin/articles/{show}",
        "users": "/admin/users",
        "crawl": "/admin/crawl",
        "jobs": "/admin/ingest-jobs",
        "audit": "/admin/audit",
        "console 404": "/admin/articles/999999",
    }.items():
        found[name] = await client.get(path, headers=HTML)
    return found


async def test_every_answer_carries_the_headers(site: Backend, archive: Archive) -> None:
    found = await answers(site, archive)
    statuses = {response.status_code for response in found.values()}
    assert {200, 303, 304, 400, 401, 403, 404, 405, 422, 503} <= statuses, statuses
    assert found["not modified"].status_code == 304
    for name, response in found.items():
        assert_secured(name, response)
    media_origin = (
        site.settings.server.public_url or f"http://127.0.0.1:{site.settings.server.port}"
    )
    assert f"img-src 'self' {media_origin}" in found["home"].headers["content-security-policy"]


async def test_hsts_only_when_the_public_url_is_https(
    tmp_path: Path, plugin_manager: RkPluginManager
) -> None:
    settings = backend_settings(tmp_path)
    server = msgspec.structs.replace(settings.server, public_url="https://rk.example")
    https = msgspec.structs.replace(settings, server=server)
    async with running_backend(https, plugin_manager) as backend:
        for path in ("/", "/api/shows", "/healthz", "/no/such/page"):
            response = await backend.client.get(path)
            assert response.headers["strict-transport-security"] == "max-age=31536000", path
            assert response.headers["x-frame-options"] == "DENY"
        policy = (await backend.client.get("/")).headers["content-security-policy"]
        assert "img-src 'self' https://rk.example;" in policy
