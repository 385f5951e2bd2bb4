"""rk.server.hosts: each site host's request budget, shared by every spider of the archive,
and the signed ``hosts/tokens`` API spiders take request starts from (issue 32).
"""

from __future__ import annotations

from rk.server.hosts.budgets import take_tokens
from rk.server.hosts.routes import HostTokensController

__all__ = ["HostTokensController", "take_tokens"]
