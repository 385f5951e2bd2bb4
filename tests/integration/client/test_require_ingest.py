"""``require_ingest``: a serving spider's ingest settings, or one clear ConfigError."""

from __future__ import annotations

import pytest

from rk.core.api.errors import ConfigError
from rk.core.config import IngestSettings, Settings
from rk.core.runtime.client import BackendClient, require_ingest

GOOD = "http://backend:8092/admin/internal/ingest"


def with_ingest(*, enabled: bool = True, endpoint: str = GOOD, secret: str = "s") -> Settings:
    """Settings whose ingest section is complete unless a field is overridden."""
    return Settings(ingest=IngestSettings(enabled=enabled, endpoint=endpoint, secret=secret))


def test_complete_settings_pass() -> None:
    assert require_ingest(with_ingest()).endpoint == GOOD


def test_disabled() -> None:
    with pytest.raises(ConfigError, match=r"^ingest.enabled is false: .*ingest.enabled: true"):
        require_ingest(with_ingest(enabled=False))


def test_missing_secret() -> None:
    with pytest.raises(ConfigError, match=r"^ingest.secret is empty"):
        require_ingest(with_ingest(secret=""))


@pytest.mark.parametrize(
    "endpoint",
    [
        "",
        "http://backend:8092/admin/internal/",
        "http://backend:8092/admin/internal/ingest/",
        "backend:8092/admin/internal/ingest",
        "ftp://backend/admin/internal/ingest",
        "http://backend/admin/internal/ingest?x=1",
    ],
)
def test_endpoint_must_end_in_ingest(endpoint: str) -> None:
    with pytest.raises(ConfigError, match=r"^ingest.endpoint must be the backend's"):
        require_ingest(with_ingest(endpoint=endpoint))


async def test_client_from_settings_checks_them() -> None:
    with pytest.raises(ConfigError):
        BackendClient.from_settings(Settings())
    async with BackendClient.from_settings(with_ingest()) as client:
        assert client.base == "http://backend:8092/admin/internal/"
