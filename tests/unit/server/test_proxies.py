"""uvicorn's proxy options come from ``server.trusted_proxies``, never from uvicorn's default."""

from __future__ import annotations

from pathlib import Path

import pytest
import uvicorn

from rk.core.api.errors import ConfigError
from rk.core.config import ServerSettings, load_settings
from rk.server.platform.http.proxies import proxy_options


def test_no_trusted_proxies_means_no_forwarded_headers() -> None:
    options = proxy_options(ServerSettings())
    assert options == {"proxy_headers": False, "forwarded_allow_ips": ""}
    config = uvicorn.Config(app=None, **options)
    assert config.forwarded_allow_ips == ""
    assert not config.proxy_headers


def test_trusted_proxies_are_passed_to_uvicorn() -> None:
    server = ServerSettings(trusted_proxies=["10.0.0.0/8", "::1"])
    assert proxy_options(server) == {"proxy_headers": True, "forwarded_allow_ips": "10.0.0.0/8,::1"}


@pytest.mark.parametrize("bad", ["10.0.0.0/99", "lb.example.org", "*"])
def test_a_trusted_proxy_must_be_an_address_or_network(tmp_path: Path, bad: str) -> None:
    config = tmp_path / "config.yml"
    config.write_text(f"server:\n  trusted_proxies: [{bad!r}]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not an IP address or CIDR network"):
        load_settings(config, environ={})
