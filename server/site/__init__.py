"""rk.server.site: the visitors' site (published articles only) and its JSON twin under /api.

Pages (``pages``, ``search_pages``) and the API (``api``) are thin: a page and its JSON
twin call the same view (``views``) and differ only in rendering. The views call the site's
services (``shows``, ``show``, ``image``, ``brands``, ``facets``, ``seasons/``, ``search``,
``photo_search``, ``colours/`` for search by colour, …), whose SQL lives in
``repository/``. ``http_cache`` gives every answer its ETag, Last-Modified and
Cache-Control; ``schema_page`` is the offline ``/schema``.
"""

from __future__ import annotations

from litestar.types import ControllerRouterHandler

from rk.server.site.pictures import Picture, picture
from rk.server.site.repository.images import IMAGE_COLUMNS
from rk.server.site.schema_page import openapi_config
from rk.server.site.search_api import SearchController


def public_routes() -> list[ControllerRouterHandler]:
    """Every handler of the public site and its API, for ``routes.all_routes``."""
    from rk.server.site.api import PublicApi
    from rk.server.site.citing.routes import CitePages
    from rk.server.site.pages import PublicPages
    from rk.server.site.search_pages import SearchPages

    return [PublicPages, SearchPages, PublicApi, CitePages]


__all__ = [
    "IMAGE_COLUMNS",
    "Picture",
    "SearchController",
    "openapi_config",
    "picture",
]
