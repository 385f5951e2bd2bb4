"""With S3 storage the takedown rule holds too: pages link rk's /media, never the bucket.

Issue 27 row 3, S3 direct serving: a presigned GET outlives a takedown until it expires, a
``public_base_url`` link for ever. Pages and the public API must hand out only
``{backend}/media/<key>``, which reads the object from the bucket while its article is
published. moto's S3 server over a real socket; each test on SQLite and PostgreSQL.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from rk.core.api.plugins import RkPluginManager
from tests.integration.admin.console import HTML
from tests.integration.public.archive import Archive, add_show, set_status
from tests.integration.public.test_media_takedown import assert_withheld, keys_of
from tests.integration.server.helpers import Backend, backend_settings, running_backend
from tests.integration.storage.helpers import new_bucket, run_moto, s3_url

CDN = "https://cdn.example/rk"
URL = re.compile(r"""(?:src|href|srcset)="([^"]+)""")


@pytest.fixture(scope="module")
def moto() -> Iterator[str]:
    """One moto S3 server for the module's tests (each uses its own bucket)."""
    with run_moto() as endpoint:
        yield endpoint


@pytest.fixture(params=["presigned", "public_base_url"])
async def s3_site(
    request: pytest.FixtureRequest,
    moto: str,
    tmp_path: Path,
    plugin_manager: RkPluginManager,
    any_dsn: str,
) -> AsyncIterator[Backend]:
    """A backend on S3 whose store signs GETs, or names a CDN as its public base URL."""
    extra = f"public_base_url={CDN}" if request.param == "public_base_url" else ""
    storage = s3_url(moto, new_bucket(moto), extra)
    settings = backend_settings(tmp_path, database=any_dsn, storage=storage)
    async with running_backend(settings, plugin_manager) as backend:
        yield backend


def image_urls(text: str) -> list[str]:
    """Every image URL a page or an answer names (srcset entries split)."""
    urls = [u for found in URL.findall(text) for u in found.split(", ")]
    urls += re.findall(r'"(?:url|thumb_url)":\s*"([^"]*)"', text)
    return [u.split(" ")[0] for u in urls if "/media/" in u or "amz" in u.lower() or CDN in u]


async def test_pages_link_rk_media_and_it_reads_the_bucket_while_published(
    s3_site: Backend, moto: str
) -> None:
    archive = Archive()
    show = await add_show(s3_site.storage, archive, "shown", status="published", looks=2, seed=1)
    direct = await s3_site.storage.url_for((await keys_of(show))[0], 60)
    assert not direct.startswith(f"{s3_site.url}/media/")  # the store itself serves directly
    answers = [await s3_site.client.get(path, headers=HTML) for path in ("/", f"/shows/{show}")] + [
        await s3_site.client.get(f"/api/shows/{show}")
    ]
    linked = [url for answer in answers for url in image_urls(answer.text)]
    assert linked
    for url in linked:
        assert url.startswith(f"{s3_site.url}/media/"), url
    for answer in answers:
        assert moto not in answer.text
        assert CDN not in answer.text
        assert "X-Amz-" not in answer.text
    for key in await keys_of(show):
        served = await s3_site.client.get(f"/media/{key}")
        assert served.status_code == 200
        assert served.content == await s3_site.storage.get(key)
    await set_status(show, "rejected")
    for key in await keys_of(show):
        assert_withheld(await s3_site.client.get(f"/media/{key}"))


async def test_a_pending_image_in_the_bucket_is_not_served(s3_site: Backend) -> None:
    archive = Archive()
    show = await add_show(s3_site.storage, archive, "waiting", status="pending", looks=1, seed=2)
    for key in await keys_of(show):
        assert await s3_site.storage.head(key) is not None
        assert_withheld(await s3_site.client.get(f"/media/{key}"))
