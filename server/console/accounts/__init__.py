"""rk.server.console.accounts: who may use the console: accounts, passwords,
sessions, the sign-in limit, and the sign-in and user pages.
"""

from __future__ import annotations
