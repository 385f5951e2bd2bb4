"""SQL of host budgets: one row per site host, the time of the next request start allowed."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import rows


async def reserve_starts(host: str, span_ms: int, not_before_ms: int, now: int) -> int:
    """Move ``host``'s next start past ``span_ms`` of starts that begin no sooner than
    ``not_before_ms``, in one atomic statement; the unix ms at which they begin."""
    found = await rows(
        "INSERT INTO host_budgets (host, next_ms, updated_at) VALUES ({}, {}, {})"
        " ON CONFLICT (host) DO UPDATE SET next_ms = CASE"
        " WHEN host_budgets.next_ms > {} THEN host_budgets.next_ms ELSE {} END + {},"
        " updated_at = {} RETURNING next_ms",
        host,
        not_before_ms + span_ms,
        now,
        not_before_ms,
        not_before_ms,
        span_ms,
        now,
    )
    return int(found[0]["next_ms"]) - span_ms
