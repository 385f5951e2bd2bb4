"""Settings as operators see them: every secret (keys, passwords, URL credentials) as ``***``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from rk.core.config import Settings

SECRET_KEYS = {"secret", "password", "ops_token"}


URL_SECRETS = re.compile(
    r"(?i)((?:secret_access_key|session_token|password|token)=)[^&]+|(://[^:/@]+:)[^@]+(@)"
)


def _mask_url(value: str) -> str:
    """A URL or DSN with its password and secret query parameters replaced by ``***``."""

    def hide(match: re.Match[str]) -> str:
        return f"{match.group(1)}***" if match.group(1) else f"{match.group(2)}***@"

    return URL_SECRETS.sub(hide, value)


def masked(settings: Settings) -> dict[str, Any]:
    """The settings as plain data with every secret (keys, URL passwords) replaced by ``***``."""

    def mask(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: ("***" if k in SECRET_KEYS and v else mask(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [mask(v) for v in node]
        if isinstance(node, str) and "://" in node:
            return _mask_url(node)
        return node

    data: dict[str, Any] = mask(msgspec.to_builtins(settings))
    return data
