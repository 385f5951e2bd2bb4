"""0046: stored URLs a browser would not open as http(s) are emptied, and counted in the log.

Before this release the ingest API checked the show's ``url`` for length only, so a crawled
page could store ``javascript:…`` as an article's source link (rendered as an ``href`` on the
public site and the console). Image ``source_url``s were checked, but by the scheme as
Python's ``urlsplit`` reads it rather than as a browser does. Every non-empty value is read
the way the wire now reads it (``rk.core.web_urls``); those that fail become ``""``, which
every page already shows as "no link". Rows are scanned by id in pages, so a large archive
is never loaded at once.
"""

from __future__ import annotations

import logging

from piccolo.engine.base import Engine
from piccolo.querystring import QueryString

from rk.core.web_urls import web_url_problem

log = logging.getLogger("rk.server")
PAGE = 5000
COLUMNS = {"articles": "url", "images": "source_url"}


async def _failing_ids(engine: Engine, table: str, column: str) -> list[int]:
    """The ids of ``table`` rows whose ``column`` is set and fails the web-URL rule."""
    failing: list[int] = []
    last = 0
    while True:
        rows = await engine.run_querystring(
            QueryString(
                f"SELECT id, {column} AS url FROM {table}"
                f" WHERE id > {{}} AND {column} <> '' ORDER BY id LIMIT {PAGE}",
                last,
            )
        )
        failing += [int(row["id"]) for row in rows if web_url_problem(str(row["url"]))]
        if len(rows) < PAGE:
            return failing
        last = int(rows[-1]["id"])


async def neutralise(engine: Engine) -> dict[str, int]:
    """Empty every failing URL; how many rows of each table were changed."""
    changed: dict[str, int] = {}
    for table, column in COLUMNS.items():
        ids = await _failing_ids(engine, table, column)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("{}" for _ in chunk)
            sql = f"UPDATE {table} SET {column} = '' WHERE id IN ({marks})"
            await engine.run_querystring(QueryString(sql, *chunk))
        changed[table] = len(ids)
    return changed


async def forwards(engine: Engine) -> None:
    """Empty failing article and image source URLs; log how many when there were any."""
    changed = await neutralise(engine)
    if any(changed.values()):
        log.warning(
            "migration 0046: emptied %d article URLs and %d image source URLs that a browser"
            " would not open as http(s) (javascript:, data:, no host, …)",
            changed["articles"],
            changed["images"],
        )
