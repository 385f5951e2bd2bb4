"""The signed host-budget API under ``/admin/internal/hosts``: spiders take request starts.

Spiders call it through ``rk.core.runtime.host_budget.FleetBudget``; the rules live in
``rk.server.hosts.budgets``.
"""

from __future__ import annotations

import time

from litestar import Controller, post
from litestar.params import JSONBody

from rk.core.api.wire import HostTokens, HostTokensWanted
from rk.server.hosts.budgets import take_tokens


class HostTokensController(Controller):
    """What a spider calls before it starts requests on a site host."""

    path = "/hosts"
    tags = ("internal",)

    @post("/tokens", status_code=200, summary="Take request starts on a site host")
    async def tokens(self, data: JSONBody[HostTokensWanted]) -> HostTokens:
        """``want`` starts ``interval_s`` apart, the first ``wait_s`` from now."""
        return await take_tokens(data, time.time)
