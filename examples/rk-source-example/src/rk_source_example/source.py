"""rk plugin "example": runway shows from the demo lookbook site this package ships."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal
from urllib.parse import urljoin

import httpx
from parsel import Selector

from rk.core import BrandTarget, ImageRef, Look, ShowIngest, ShowSummary, hookimpl


class ExampleSource:
    """A designer's shows (``/designers/<slug>/``, newest first), each page with its looks."""

    name: ClassVar[str] = "example"
    kind: ClassVar[Literal["runway", "street"]] = "runway"
    needs_brand: ClassVar[bool] = True

    def __init__(self, client: httpx.AsyncClient, options: Mapping[str, Any]) -> None:
        self.client = client  # rk's shared client: politeness, retries and timeouts included
        # sources.example.base_url in config.yml
        self.base = str(options.get("base_url", "http://127.0.0.1:8300")).rstrip("/") + "/"

    async def _page(self, url: str) -> Selector:
        response = await self.client.get(urljoin(self.base, url))
        return Selector(response.raise_for_status().text)  # an HTTP error fails this show

    async def list_shows(self, brand: BrandTarget | None, limit: int | None) -> list[ShowSummary]:
        """The designer's shows as the designer page lists them (newest first)."""
        name = brand.name if brand else ""
        slug = (brand and brand.slug) or re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        page = await self._page(f"designers/{slug}/")
        hrefs = page.css("a.show::attr(href)").getall()[: limit or None]
        return [ShowSummary(url=urljoin(self.base, href)) for href in hrefs]

    async def fetch_show(self, show: ShowSummary, brand: BrandTarget | None) -> ShowIngest:
        """One show page as a ShowIngest: title, season, and every look in order."""
        page = await self._page(show.url)
        srcs = page.css("ol.looks img::attr(src)").getall()
        looks = [
            Look(number=n, image=ImageRef(url=urljoin(show.url, s))) for n, s in enumerate(srcs, 1)
        ]
        return ShowIngest(
            source=self.name,
            kind=self.kind,
            show_key=show.url.removeprefix(self.base).strip("/"),
            title=page.css("h1::text").get("").strip(),
            season=page.css(".season::text").get("").strip(),
            url=show.url,
            looks=looks,
        )


@hookimpl
def rk_register_sources() -> list[type[ExampleSource]]:
    """The one source of this plugin."""
    return [ExampleSource]
