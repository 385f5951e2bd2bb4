"""The replay record's SQL: record signatures first-come, sweep the expired ones."""

from __future__ import annotations

from rk.server.platform.db.sql_rows import rows


async def record_new_signatures(signatures: list[tuple[str, int]]) -> set[str]:
    """Record each ``(signature, expires_at)``; the signatures that were not recorded before."""
    values = ", ".join("({}, {})" for _ in signatures)
    args: list[object] = []
    for signature, expires_at in signatures:
        args += [signature, expires_at]
    sql = (
        f"INSERT INTO signed_requests (signature, expires_at) VALUES {values}"
        " ON CONFLICT (signature) DO NOTHING RETURNING signature"
    )
    return {str(row["signature"]) for row in await rows(sql, *args)}


async def delete_signatures_expired_before(moment: int) -> None:
    """Forget every signature whose window closed before ``moment`` (epoch seconds)."""
    await rows("DELETE FROM signed_requests WHERE expires_at < {}", moment)
