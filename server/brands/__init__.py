"""rk.server.brands: brands and their uids: lookups for the spider API, an
instance's uid alphabet, and the operator's brand management (add, list, import).
"""

from __future__ import annotations
