"""rk.server.platform.http: the HTTP plumbing every route shares: errors,
request context and metrics, strict bodies, security headers, slow clients, proxies,
compression.
"""

from __future__ import annotations
