"""The backend secret: the ``ingest.secret`` setting, else one generated once per data dir.

The generated secret lives in ``<data_dir>/ingest.secret`` (mode 0600), so the embedded
default needs no configuration and keeps the same secret across restarts. The same secret
signs the backend's own media upload URLs unless ``server.secret`` is set.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from msgspec import Struct

from rk.core.api.errors import ConfigError
from rk.core.config import Settings

SECRET_FILE = "ingest.secret"


class Secrets(Struct, frozen=True, kw_only=True):
    """The resolved secrets and where they came from."""

    ingest: str
    media: str
    source: str
    created: bool = False


def secret_path(settings: Settings) -> Path:
    """Where the generated secret is kept."""
    return settings.data_path / SECRET_FILE


def _read_or_create(path: Path) -> tuple[str, bool]:
    """The secret in ``path``, creating it (0600, exclusively) when missing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            value = path.read_text(encoding="ascii").strip()
            if not value:
                raise ConfigError(f"{path} is empty: delete it to generate a new secret") from None
            return value, False
        value = secrets.token_hex(32)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(value + "\n")
        return value, True
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read or create the secret file {path}: {exc}") from None


def resolve_secrets(settings: Settings) -> Secrets:
    """The ingest and media secrets for this backend (generating the file on first use)."""
    if settings.ingest.secret:
        ingest, source, created = settings.ingest.secret, "setting ingest.secret", False
    else:
        path = secret_path(settings)
        ingest, created = _read_or_create(path)
        source = str(path)
    return Secrets(
        ingest=ingest, media=settings.server.secret or ingest, source=source, created=created
    )
