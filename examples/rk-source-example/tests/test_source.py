"""The example source against the demo site it ships, and its registration through rk."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator

import httpx
import pytest
from rk_source_example.demo_site import make_server
from rk_source_example.source import ExampleSource

from rk.core import BrandTarget
from rk.core.api.lookups import get_source


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The demo site on a free port of 127.0.0.1."""
    server = make_server(port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


async def test_lists_a_designers_shows_newest_first(site: str) -> None:
    async with httpx.AsyncClient() as client:
        source = ExampleSource(client, {"base_url": site})
        shows = await source.list_shows(BrandTarget(name="Maison Aurele"), None)
        assert [s.url for s in shows] == [
            f"{site}/shows/maison-aurele-spring-2025/",
            f"{site}/shows/maison-aurele-fall-2024/",
        ]
        assert len(await source.list_shows(BrandTarget(name="Maison Aurele"), 1)) == 1
        by_slug = await source.list_shows(BrandTarget(name="K&V", slug="kestrel-vine"), None)
        assert [s.url for s in by_slug] == [f"{site}/shows/kestrel-vine-resort-2025/"]


async def test_fetches_a_show_with_its_looks_in_order(site: str) -> None:
    async with httpx.AsyncClient() as client:
        source = ExampleSource(client, {"base_url": site})
        [newest, _] = await source.list_shows(BrandTarget(name="Maison Aurele"), None)
        show = await source.fetch_show(newest, None)
        assert show.source == "example"
        assert show.show_key == "shows/maison-aurele-spring-2025"
        assert (show.title, show.season) == (
            "Maison Aurele Spring 2025",
            "Spring 2025 Ready-to-Wear",
        )
        assert [look.number for look in show.looks] == [1, 2, 3]
        assert show.looks[0].image.url == f"{site}/shows/maison-aurele-spring-2025/look-1.jpg"
        image = await client.get(show.looks[2].image.url)
        assert image.headers["content-type"] == "image/jpeg"


async def test_an_unknown_designer_is_an_http_error(site: str) -> None:
    async with httpx.AsyncClient() as client:
        source = ExampleSource(client, {"base_url": site})
        with pytest.raises(httpx.HTTPStatusError):
            await source.list_shows(BrandTarget(name="Nobody Here"), None)


def test_registered_with_rk_through_its_entry_point() -> None:
    assert get_source("example") is ExampleSource
    rk = shutil.which("rk")
    assert rk, "rk is installed alongside this plugin"
    listed = json.loads(
        subprocess.run([rk, "plugins", "--json"], capture_output=True, check=True).stdout
    )
    [info] = [plugin for plugin in listed if plugin["name"] == "example"]
    assert info["version"] == "0.1.0"
    assert info["hooks"] == ["rk_register_sources"]
