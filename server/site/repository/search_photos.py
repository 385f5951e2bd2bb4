"""SQL of the kept search photos: store or refresh one by SHA-1, read one still kept, and
delete those past their time or beyond the cap."""

from __future__ import annotations

from typing import Any

from rk.server.platform.db.sql_rows import rows


async def keep_photo(
    sha1: str, data: bytes, size: tuple[int, int], vector: tuple[str, bytes], at: int, until: int
) -> None:
    """Store a photo (its ``size`` in pixels, ``vector`` as (model, bytes)) kept ``until``;
    the same photo again only moves its expiry and vector."""
    (width, height), (model, packed) = size, vector
    await rows(
        "INSERT INTO search_photos (sha1, data, width, height, model, vector, created_at,"
        " expires_at) VALUES ({}, {}, {}, {}, {}, {}, {}, {}) ON CONFLICT (sha1) DO UPDATE SET"
        " model = excluded.model, vector = excluded.vector, expires_at = excluded.expires_at",
        sha1,
        data,
        width,
        height,
        model,
        packed,
        at,
        until,
    )


async def kept_photo(sha1: str, now: int) -> dict[str, Any] | None:
    """The kept photo with this SHA-1 while it has not expired; None otherwise."""
    found = await rows(
        "SELECT sha1, data, width, height, model, vector, expires_at FROM search_photos"
        " WHERE sha1 = {} AND expires_at > {}",
        sha1,
        now,
    )
    return found[0] if found else None


async def set_vector(sha1: str, model: str, packed: bytes) -> None:
    """Keep ``model``'s vector of the photo (the backend's model changed since it was kept)."""
    await rows(
        "UPDATE search_photos SET model = {}, vector = {} WHERE sha1 = {}", model, packed, sha1
    )


async def drop_expired(now: int, cap: int) -> None:
    """Delete the photos past their expiry, then the oldest beyond ``cap`` photos."""
    await rows("DELETE FROM search_photos WHERE expires_at <= {}", now)
    await rows(
        "DELETE FROM search_photos WHERE expires_at < (SELECT MIN(expires_at) FROM"
        " (SELECT expires_at FROM search_photos ORDER BY expires_at DESC LIMIT {}) AS newest)",
        cap,
    )
