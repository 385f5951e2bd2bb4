"""``server.ops_allow`` and ``server.ops_token`` are checked when the settings load, and the
address they are matched against is the scope's client (IPv4-mapped IPv6 read as IPv4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rk.core.api.errors import ConfigError
from rk.core.config import ServerSettings, Settings, load_settings, masked
from rk.server.platform.ops.ops_access import OpsAccess

TOKEN = "ops-token-0123456789abcdef"


def scope(host: str | None, authorization: str = "") -> dict[str, object]:
    headers = [(b"authorization", authorization.encode())] if authorization else []
    return {"client": (host, 50000) if host else None, "headers": headers}


@pytest.mark.parametrize("bad", ["10.0.0.0/99", "prometheus.internal", "*", "10.0.0.0/8 "])
def test_a_bad_ops_allow_entry_is_a_config_error(tmp_path: Path, bad: str) -> None:
    config = tmp_path / "config.yml"
    config.write_text(f"server:\n  ops_allow: [{bad!r}]\n", encoding="utf-8")
    with pytest.raises(
        ConfigError, match=re.escape(f"server: ops_allow: {bad!r} is not an IP address")
    ):
        load_settings(config, environ={})


@pytest.mark.parametrize("bad", ["short", "x" * 15, "with a space 0123456789", "é" * 20])
def test_a_weak_or_unsendable_ops_token_is_a_config_error(bad: str) -> None:
    with pytest.raises(ConfigError, match="server: ops_token: at least 16 printable ASCII"):
        load_settings(environ={"RK_SERVER_OPS_TOKEN": bad})


def test_the_ops_token_comes_from_the_environment_and_is_masked() -> None:
    settings = load_settings(environ={"RK_SERVER_OPS_TOKEN": TOKEN})
    assert settings.server.ops_token == TOKEN
    assert masked(settings)["server"]["ops_token"] == "***"
    assert Settings().server.ops_allow == ["127.0.0.1/32", "::1/128"]


def test_matching_by_network_and_token() -> None:
    access = OpsAccess(ServerSettings(ops_allow=["10.0.0.0/8", "fd00::/8"], ops_token=TOKEN))
    assert access.allows(scope("10.1.2.3"))
    assert access.allows(scope("::ffff:10.1.2.3"))
    assert access.allows(scope("fd00::5"))
    assert not access.allows(scope("127.0.0.1"))
    assert not access.allows(scope("::1"))
    assert not access.allows(scope(None))
    assert not access.allows(scope("testclient"))
    assert access.allows(scope("203.0.113.9", f"Bearer {TOKEN}"))
    assert access.allows(scope(None, f"BEARER  {TOKEN}"))
    assert not access.allows(scope("203.0.113.9", f"Bearer {TOKEN[:-1]}"))
    assert not access.allows(scope("203.0.113.9", f"Token {TOKEN}"))


def test_without_a_token_no_header_opens_anything() -> None:
    access = OpsAccess(ServerSettings(ops_allow=[]))
    assert not access.allows(scope("127.0.0.1", "Bearer "))
    assert not access.allows(scope("127.0.0.1", "Bearer"))
