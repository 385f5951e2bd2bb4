"""rk.server.trends: how often a tag or a colour is worn, season by season, across the archive.

``/trends`` and its JSON twin ``/api/trends`` give, for one tag or colour name, the share of
published looks per season (looks with it ÷ looks of that season, after the designer, city
and kind filters), drawn as a server-rendered SVG chart with a table and a CSV download; and
the tags and colours that rose or fell most between two seasons. Counts are ``GROUP BY``
queries run per request (``repository``), so they are exact after every publish, unpublish
and retag.
"""

from __future__ import annotations

from litestar.types import ControllerRouterHandler


def trends_routes() -> list[ControllerRouterHandler]:
    """The handlers of ``/trends``, ``/trends.csv`` and ``/api/trends`` (``routes.all_routes``)."""
    from rk.server.trends.routes import TrendsApi, TrendsPages

    return [TrendsPages, TrendsApi]


__all__ = ["trends_routes"]
