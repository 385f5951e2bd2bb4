"""A named lease in ``job_locks``: at most one holder at a time across every backend process.

The holder must renew it before ``until`` passes; a holder that died simply lets it run
out, and the next process to ask takes it over. Conditional ``UPDATE … RETURNING`` makes
taking and renewing atomic on both SQLite and PostgreSQL.
"""

from __future__ import annotations

import os
import socket
import time
import uuid

from rk.server.platform.jobs.repository import extend_lease, free_lease, take_lease


def new_holder(prefix: str) -> str:
    """A holder name unique to this process and call: ``prefix@host:pid:random``."""
    return f"{prefix}@{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class JobLease:
    """The lease called ``name`` as held (or wanted) by ``holder`` for ``ttl_s`` at a time."""

    def __init__(self, name: str, holder: str, ttl_s: int) -> None:
        if ttl_s < 2:
            raise ValueError("a job lease must last at least 2 s")
        self.name = name
        self.holder = holder
        self.ttl_s = ttl_s
        self.renewed_at = 0.0

    async def acquire(self) -> bool:
        """Take the lease if it is free, expired or already ours; True when we hold it."""
        now = int(time.time())
        taken = await take_lease(self.name, self.holder, now + self.ttl_s, now)
        if taken:
            self.renewed_at = time.monotonic()
        return taken

    async def renew(self) -> bool:
        """Extend our lease; False when another holder has taken it meanwhile."""
        renewed = await extend_lease(self.name, self.holder, int(time.time()) + self.ttl_s)
        if renewed:
            self.renewed_at = time.monotonic()
        return renewed

    async def renew_if_due(self) -> bool:
        """Renew once a third of the lease has passed; False when the lease was lost."""
        if time.monotonic() - self.renewed_at < self.ttl_s / 3:
            return True
        return await self.renew()

    async def release(self) -> None:
        """Give the lease up now (if we still hold it)."""
        await free_lease(self.name, self.holder)
