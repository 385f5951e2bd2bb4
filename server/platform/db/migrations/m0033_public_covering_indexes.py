"""0033: the public show lists' partial indexes (m0020) made covering for the filter counts.

A filtered home page counts the values of every other filter among the shows it lists
(``/?season=…`` counts cities, brands, years and kinds within that season). With m0020's
indexes each count read the index range and then every matching article row; these
indexes carry the filter columns too (``INCLUDE`` on PostgreSQL, trailing key columns on
SQLite), so the counts and the year range read the index alone.
"""

from __future__ import annotations

from piccolo.engine.base import Engine

from rk.server.platform.db.migrate import execute

LIVE = "WHERE status = 'published' AND deleted_at = 0"
FILTERS = ["brand_id", "season", "city", "kind"]
OLD = [
    "articles_public_date_idx",
    "articles_public_brand_idx",
    "articles_public_season_idx",
    "articles_public_city_idx",
    "articles_public_kind_idx",
]
NEW = {
    "articles_live_date_idx": "",
    "articles_live_brand_idx": "brand_id",
    "articles_live_season_idx": "season",
    "articles_live_city_idx": "city",
    "articles_live_kind_idx": "kind",
}
"""Each index and the filter column leading its key (none: the date index)."""


def columns(lead: str, engine_type: str) -> str:
    """The column list of the index led by ``lead``: key (lead, date, id), then the rest."""
    key = ", ".join([*([lead] if lead else []), "date", "id"])
    rest = ", ".join(f for f in FILTERS if f != lead)
    if engine_type == "sqlite":
        return f"({key}, {rest})"
    return f"({key}) INCLUDE ({rest})"


async def forwards(engine: Engine) -> None:
    """Create the covering indexes, then drop m0020's."""
    for name, lead in NEW.items():
        await execute(
            engine, f"CREATE INDEX {name} ON articles {columns(lead, engine.engine_type)} {LIVE}"
        )
    for name in OLD:
        await execute(engine, f"DROP INDEX {name}")
