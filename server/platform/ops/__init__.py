"""rk.server.platform.ops: operations endpoints: ``/healthz``, ``/readyz`` and
``/metrics``, with the readiness checks and archive figures behind them.
"""

from __future__ import annotations
