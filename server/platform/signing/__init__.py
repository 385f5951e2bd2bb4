"""rk.server.platform.signing: the signed spider API's trust: the backend
secret, the HMAC guard, the replay record, and a signed ping.
"""

from __future__ import annotations
