"""``/trends`` (the page), ``/trends.csv`` (its table as CSV) and ``/api/trends`` (JSON, or CSV
with ``format=csv``): the same checked query and the same counts behind all three.

Answers are computed per request and sent with an ETag and ``Cache-Control: no-cache``:
retagging moves no public change counter, so the site's page cache could not tell a stale
answer, while a client's revalidation still costs a 304 when nothing changed. A bad
parameter is a 400: one JSON line on ``/api`` and the CSV, the page again with the reason
beside the form. The counting holds one of the process's trend slots (``slots``): a flood
waits its turn or gets 503 with ``Retry-After``.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency, Provide
from litestar.params import QueryParameter

from rk.server.colour import named_colours
from rk.server.site import render_html, render_json, send
from rk.server.trends.chart import chart_of, percent
from rk.server.trends.csv_export import csv_filename, trend_csv
from rk.server.trends.query import KINDS, BadTrend, CheckedQuery, TrendQuery, checked
from rk.server.trends.repository import season_looks
from rk.server.trends.service import (
    Trend,
    Trends,
    compared,
    season_order,
    trend_of,
    trends,
)
from rk.server.trends.slots import slots_of

CACHE_CONTROL = "no-cache"
CSV_TYPE = "text/csv"
"""Sent as ``text/csv; charset=utf-8`` (Litestar adds the charset)."""

Format = Annotated[str | None, QueryParameter(description="json (default) or csv")]
QUERY = {"raw": Provide(TrendQuery, sync_to_thread=False)}
"""The dependency that reads the trend parameters, once for all three routes."""


async def csv_answer(request: Request[Any, Any, Any], query: CheckedQuery) -> Response[Any]:
    """The trend of ``query`` as a CSV download; BadTrend when it follows nothing."""
    if not query.by:
        raise BadTrend("a CSV needs a tag or a colour to follow")
    async with slots_of(request.app.state).hold():
        order = await season_order()
        looks = await season_looks(query.scope)
        compared(query, order, looks)  # the seasons compared must exist, as on the page
        trend = await trend_of(query, order, looks)
    if trend is None:
        raise BadTrend("a CSV needs a tag or a colour to follow")
    return Response(
        trend_csv(trend),
        media_type=CSV_TYPE,
        headers={
            "Content-Disposition": f'attachment; filename="{csv_filename(trend)}"',
            "Cache-Control": CACHE_CONTROL,
            "X-Content-Type-Options": "nosniff",
        },
    )


def url_query(raw: TrendQuery, **changes: str) -> str:
    """The query string of ``raw``'s parameters with ``changes`` (blank ones left out)."""
    values = {
        "tag": raw.tag,
        "colour": raw.colour,
        "designer": raw.designer,
        "city": raw.city,
        "kind": raw.kind,
        "from": raw.before,
        "to": raw.after,
        **changes,
    }
    return urlencode({key: value for key, value in values.items() if value})


def page_context(
    raw: TrendQuery, found: Trends | None, query: CheckedQuery | None, error: str
) -> dict[str, Any]:
    """What the template shows: the form as filled in, the chart and tables, or the error."""
    trend: Trend | None = found.trend if found else None
    return {
        "raw": raw,
        "query": query,
        "found": found,
        "trend": trend,
        "chart": chart_of(trend.points) if trend and trend.points else None,
        "percent": percent,
        "colours": [swatch.name for swatch in named_colours()],
        "kinds": KINDS,
        "error": error,
        "csv_query": url_query(raw),
        "follow_query": lambda by, name: url_query(raw, **{"tag": "", "colour": "", by: name}),
    }


class TrendsPages(Controller):
    """The trends page and its CSV download."""

    include_in_schema = False
    tags = ("public",)
    dependencies = QUERY

    @get("/trends", name="public:trends")
    async def page(
        self, request: Request[Any, Any, Any], raw: NamedDependency[TrendQuery]
    ) -> Response[Any]:
        """A tag's or colour's share of looks per season, and the risers and fallers."""
        try:
            query = await checked(raw)
            async with slots_of(request.app.state).hold():
                found = await trends(query)
        except BadTrend as exc:
            context = page_context(raw, None, None, str(exc))
            context["seasons"] = [season for season, _ in await season_order()]
            rendered = render_html(request, "trends/trends.html", context)
            return send(request, rendered, status_code=400, cache_control=CACHE_CONTROL)
        context = page_context(raw, found, query, "")
        context["seasons"] = found.seasons
        rendered = render_html(request, "trends/trends.html", context)
        return send(request, rendered, cache_control=CACHE_CONTROL)

    @get("/trends.csv", name="public:trends-csv")
    async def download(
        self, request: Request[Any, Any, Any], raw: NamedDependency[TrendQuery]
    ) -> Response[Any]:
        """The trend's table as CSV (same parameters as the page)."""
        return await csv_answer(request, await checked(raw))


class TrendsApi(Controller):
    """Trends as JSON (or CSV)."""

    path = "/api"
    tags = ("public",)
    dependencies = QUERY

    @get("/trends", summary="A tag's or colour's share of looks per season; risers and fallers")
    async def trends(
        self,
        request: Request[Any, Any, Any],
        raw: NamedDependency[TrendQuery],
        format: Format = None,
    ) -> Response[Trends]:
        """Share = looks with the tag or colour ÷ published looks of the season in scope."""
        kind_of = (format or "json").strip().lower()
        if kind_of not in ("json", "csv"):
            raise BadTrend(f"format must be json or csv, not {kind_of[:20]!r}")
        query = await checked(raw)
        if kind_of == "csv":
            return await csv_answer(request, query)
        async with slots_of(request.app.state).hold():
            rendered = render_json(await trends(query))
        return send(request, rendered, cache_control=CACHE_CONTROL)
