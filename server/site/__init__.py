"""rk.server.site: the visitors' site (published articles only) and its JSON twin under /api.

Pages (``pages``, ``search_pages``) and the API (``api``) are thin: a page and its JSON
twin call the same view (``views``) and differ only in rendering. The views call the site's
services (``shows``, ``show``, ``image``, ``brands``, ``facets``, ``seasons/``, ``search``,
``photo_search``, ``colours/`` for search by colour, …), whose SQL lives in
``repository/``. ``http_cache`` gives every answer its ETag, Last-Modified and
Cache-Control; ``schema_page`` is the offline ``/schema``. ``dated_seasons`` is the site's
one order of seasons and ``send``/``render_html``/``render_json`` its way of answering, for
other slices (trends) to follow.
"""

from __future__ import annotations

from litestar.types import ControllerRouterHandler

from rk.server.site.exports import Paper as ExportPaper
from rk.server.site.exports import Rendition as ExportRendition
from rk.server.site.exports import sheet_of as export_sheet
from rk.server.site.exports import zip_of as export_zip
from rk.server.site.http_cache import render_html, render_json, send
from rk.server.site.pictures import Picture, picture
from rk.server.site.repository.images import IMAGE_COLUMNS, live_tile_rows
from rk.server.site.schema_page import openapi_config
from rk.server.site.search_api import SearchController
from rk.server.site.seasons.index import Dated, dated_seasons


def public_routes() -> list[ControllerRouterHandler]:
    """Every handler of the public site and its API, for ``routes.all_routes``."""
    from rk.server.site.api import PublicApi
    from rk.server.site.citing.routes import CitePages
    from rk.server.site.exports.routes import export_routes
    from rk.server.site.pages import PublicPages
    from rk.server.site.search_pages import SearchPages

    return [PublicPages, SearchPages, PublicApi, CitePages, export_routes()]


__all__ = [
    "IMAGE_COLUMNS",
    "Dated",
    "ExportPaper",
    "ExportRendition",
    "Picture",
    "SearchController",
    "dated_seasons",
    "export_sheet",
    "export_zip",
    "live_tile_rows",
    "openapi_config",
    "picture",
    "render_html",
    "render_json",
    "send",
]
