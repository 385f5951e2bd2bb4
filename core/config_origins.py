"""Where each effective setting came from: a default, the config file, ``RK_*`` or a flag.

``rk config show`` and ``rk doctor`` print it beside each value, so an operator can tell
why the backend uses the database it uses without reading the lookup rules.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from rk.core.config import Settings, env_overrides, find_config


def _leaves(node: Any, prefix: str = "") -> dict[str, Any]:
    """``{"server.port": 9000, …}`` for every leaf of nested mappings."""
    if not isinstance(node, dict) or not node:
        return {prefix: node} if prefix else {}
    out: dict[str, Any] = {}
    for key, value in node.items():
        out.update(_leaves(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _env_name(dotted: str) -> str:
    return "RK_" + dotted.replace(".", "_").upper()


def setting_origins(
    config: str | Path | None = None,
    *,
    data_dir: str | None = None,
    environ: dict[str, str] | os._Environ[str] | None = None,
) -> dict[str, str]:
    """``{"server.port": "RK_SERVER_PORT", "database": "config.yml", …}`` for set keys.

    Keys absent from the answer hold their default. Call after ``load_settings`` has
    accepted the same arguments (this does not validate anything).
    """
    path, _ = find_config(config)
    origins: dict[str, str] = {}
    if path is not None:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        origins.update(dict.fromkeys(_leaves(loaded), str(path)))
    overrides = env_overrides(os.environ if environ is None else environ)
    for key in _leaves(overrides):
        origins[key] = _env_name(key)
    if data_dir:
        origins["data_dir"] = "--data-dir"
    return origins


def origin_of(key: str, origins: dict[str, str]) -> str:
    """Where ``key`` (dotted) came from: its own entry, a parent's, or ``default``."""
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        found = origins.get(".".join(parts[:end]))
        if found:
            return found
    return "default"


def effective(settings: Settings, origins: dict[str, str]) -> dict[str, str]:
    """Origins with the embedded defaults of ``database`` and ``storage`` spelled out."""
    out = dict(origins)
    data = origin_of("data_dir", origins)
    for key, under in (("database", "rk.sqlite3"), ("storage", "media")):
        if not getattr(settings, key):
            out[key] = f"embedded default: <data_dir>/{under}, data_dir from {data}"
    return out
