"""A lazily created asyncpg pool: backends are constructed synchronously, connect on first use."""

from __future__ import annotations

import asyncio

import asyncpg


def asyncpg_dsn(dsn: str) -> str:
    """Drop a ``+driver`` suffix from the scheme (``postgresql+asyncpg://`` → ``postgresql://``)."""
    scheme, sep, rest = dsn.partition("://")
    if not sep or scheme.split("+", 1)[0] not in {"postgresql", "postgres"}:
        raise ValueError(f"not a PostgreSQL DSN: {dsn!r}")
    return f"postgresql://{rest}"


class PgPool:
    """One asyncpg pool per backend instance, opened on the first query."""

    def __init__(self, dsn: str, max_size: int = 8) -> None:
        self.dsn = asyncpg_dsn(dsn)
        self.max_size = max_size
        self._pool: asyncpg.Pool | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> asyncpg.Pool:
        """The pool, created on first call."""
        if self._pool is None:
            async with self._lock:
                if self._pool is None:
                    self._pool = await asyncpg.create_pool(
                        self.dsn, min_size=1, max_size=self.max_size
                    )
        return self._pool

    async def close(self) -> None:
        """Close every connection of the pool."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()
