"""A bad URL already stored renders as text, never as a link, on every page that shows it.

Rows stored before the wire checked show URLs (or written by hand) may hold
``javascript:…``; the public show and image pages and the console's review page pass
every stored URL through ``safe_href``. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import re

import pytest

from rk.server.platform.db.tables import Article
from tests.integration.admin.console import HTML, account, sign_in
from tests.integration.public.archive import Archive, add_show
from tests.integration.server.helpers import Backend

HOSTILE = ["javascript:alert(document.domain)", "  JaVaScRiPt:alert(1)", "data:text/html,x"]
HREF = re.compile(r'(?:href|src|srcset|data-large)="([^"]*)"')


def links(html: str) -> list[str]:
    """Every URL-valued attribute of the page."""
    return HREF.findall(html)


@pytest.mark.parametrize("url", HOSTILE)
async def test_a_stored_script_url_is_never_linked(site: Backend, url: str) -> None:
    archive = Archive()
    article = await add_show(site.storage, archive, "hostile", brand="Hostile", looks=2)
    await Article.update({Article.url: url}).where(Article.id == article)
    image = archive.images["hostile"][0]
    await account("mo", "moderator")
    await sign_in(site.client, "mo")
    pages = [f"/shows/{article}", f"/images/{image}", f"/admin/articles/{article}"]
    for path in pages:
        page = await site.client.get(path, headers=HTML)
        assert page.status_code == 200, (path, page.text[:300])
        found = links(page.text)
        assert found, path
        assert not [u for u in found if "script" in u.lower() or u.strip().startswith("data:")]
    public = await site.client.get(f"/shows/{article}", headers=HTML)
    assert "· Vogue" in public.text


async def test_a_good_stored_url_is_linked(site: Backend) -> None:
    archive = Archive()
    article = await add_show(site.storage, archive, "fine", brand="Fine", looks=1)
    page = await site.client.get(f"/shows/{article}", headers=HTML)
    assert 'href="https://example.invalid/fine"' in page.text
