"""Settings load from config.yml with RK_* overrides; errors name file, key and expectation."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk import __version__
from rk.core.api.errors import ConfigError
from rk.core.api.sources import thumb_size_option
from rk.core.config import find_config, load_settings, masked


def write(tmp_path: Path, text: str, name: str = "config.yml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_embedded_default(tmp_path: Path) -> None:
    settings = load_settings(environ={})
    assert find_config(None) == (None, "embedded default")
    assert settings.database_url == f"sqlite:///{tmp_path / 'rk-data' / 'rk.sqlite3'}"
    assert settings.storage_url == f"file://{tmp_path / 'rk-data' / 'media'}"
    assert settings.server.port == 8092


def test_lookup_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "server: {port: 1}\n")
    env_file = write(tmp_path, "server: {port: 2}\n", "env.yml")
    explicit = write(tmp_path, "server: {port: 3}\n", "explicit.yml")
    assert load_settings(environ={}).server.port == 1
    monkeypatch.setenv("RK_CONFIG", str(env_file))
    assert find_config(None)[1] == "RK_CONFIG"
    assert load_settings(environ={}).server.port == 2
    assert load_settings(explicit, environ={}).server.port == 3


def test_env_overrides(tmp_path: Path) -> None:
    path = write(tmp_path, "ingest: {enabled: false, secret: abc}\nmedia: {concurrency: 2}\n")
    settings = load_settings(
        path,
        environ={
            "RK_INGEST_ENABLED": "true",
            "RK_MEDIA_CONCURRENCY": "9",
            "RK_SECURITY_ALLOW_PRIVATE_HOSTS": '["127.0.0.1:8000", "localhost:80"]',
            "RK_DATABASE": "postgresql://u@h/db",
            "RK_INGEST_SECRET": "12345",
            "RK_LOAD_PLUGINS": "vogue",
        },
    )
    assert settings.ingest.enabled is True
    assert settings.ingest.secret == "12345"
    assert settings.media.concurrency == 9
    assert settings.security.allow_private_hosts == ["127.0.0.1:8000", "localhost:80"]
    assert settings.database_url == "postgresql://u@h/db"


def test_data_dir_override(tmp_path: Path) -> None:
    settings = load_settings(environ={}, data_dir=str(tmp_path / "elsewhere"))
    assert settings.data_path == tmp_path / "elsewhere"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("server: {port: eighty}\n", "config.yml: server.port: expected `int`, got `str`"),
        ("server: {prot: 1}\n", "config.yml: server.prot: not a setting (did you mean port?)"),
        ("sever: {port: 1}\n", "config.yml: sever: not a setting (did you mean server?)"),
        ("colour: red\n", "config.yml: colour: not a setting"),
        ("media: [1, 2]\n", "config.yml: media: expected `object`, got `array`"),
        ("- just\n- a list\n", "config.yml: expected a mapping"),
        ("server: {port: 1\n", "config.yml: not valid YAML at line"),
        ("admin: {session_idle_s: 30}\n", "config.yml: admin.session_idle_s: expected `int` >= 60"),
        (
            "admin: {session_idle_minutes: 60}\n",
            "config.yml: admin.session_idle_minutes: not a setting (did you mean session_idle_s?)",
        ),
    ],
)
def test_errors_name_file_key_and_expectation(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(write(tmp_path, text), environ={})
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_env_error_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"RK_\* environment overrides\): server.port"):
        load_settings(environ={"RK_SERVER_PORT": "high"})


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.yml: file not found"):
        load_settings(tmp_path / "nope.yml", environ={})


def test_masked_hides_secrets(tmp_path: Path) -> None:
    path = write(tmp_path, "ingest: {secret: hunter2}\nserver: {secret: s3cr3t}\n")
    shown = masked(load_settings(path, environ={}))
    assert shown["ingest"]["secret"] == "***"
    assert shown["server"]["secret"] == "***"
    assert "hunter2" not in repr(shown)


def test_masked_hides_url_credentials(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "database: postgresql://rk:pa55@db:5432/rk\n"
        "storage: s3://b/p?endpoint=http://s3&access_key_id=AK&secret_access_key=SK&region=x\n",
    )
    shown = masked(load_settings(path, environ={}))
    assert shown["database"] == "postgresql://rk:***@db:5432/rk"
    assert shown["storage"] == (
        "s3://b/p?endpoint=http://s3&access_key_id=AK&secret_access_key=***&region=x"
    )


def test_allow_private_hosts_entries_name_a_port(tmp_path: Path) -> None:
    """A bare host would open every port of it (the backend's own included)."""
    path = tmp_path / "config.yml"
    path.write_text("security: {allow_private_hosts: [127.0.0.1]}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"allow_private_hosts.0: expected host:port"):
        load_settings(path, environ={})


def test_sources_learn_the_thumbnail_size(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text("media: {thumb_size: 200}\nsources: {vogue: {original: true}}\n")
    settings = load_settings(config, environ={})
    assert settings.source_options("vogue") == {"thumb_size": 200, "original": True}
    assert settings.source_options("theimpression") == {"thumb_size": 200}
    own = load_settings(config, environ={"RK_SOURCES": "{vogue: {thumb_size: '300'}}"})
    assert thumb_size_option(own.source_options("vogue"), "vogue") == 300
    assert thumb_size_option({}, "vogue") == 256
    for bad in ("big", 0, True, 1.5):
        with pytest.raises(ConfigError, match=r"sources\.vogue\.thumb_size must be a whole number"):
            thumb_size_option({"thumb_size": bad}, "vogue")


def test_the_user_agent_names_rk_and_the_contact(tmp_path: Path) -> None:
    spider = load_settings(environ={}).spider
    assert (spider.user_agent, spider.contact, spider.robots) == ("", "", "obey")
    assert spider.effective_user_agent == f"rk/{__version__}"
    for contact in ("https://archive.example.org/crawler", "crawler@archive.example.org"):
        config = write(tmp_path, f"spider: {{contact: '{contact}', robots: ignore}}\n")
        spider = load_settings(config, environ={}).spider
        assert spider.effective_user_agent == f"rk/{__version__} (+{contact})"
        assert spider.robots == "ignore"
    own = write(tmp_path, "spider: {user_agent: my-agent/1, contact: a@b.org}\n")
    assert load_settings(own, environ={}).spider.effective_user_agent == "my-agent/1"


@pytest.mark.parametrize(
    "contact", ["archive.example.org", "ftp://example.org/x", "https://", "a b@c.org", "me@host"]
)
def test_a_bad_contact_is_a_one_line_error(tmp_path: Path, contact: str) -> None:
    config = write(tmp_path, f"spider: {{contact: '{contact}'}}\n")
    with pytest.raises(ConfigError) as err:
        load_settings(config, environ={})
    assert str(err.value) == (
        f"{config}: spider: contact: {contact!r} is not an http(s) URL or an e-mail address"
        " (https://example.org/crawler, crawler@example.org)"
    )


def test_robots_is_obey_or_ignore(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config.yml: spider.robots: invalid enum value 'maybe'"):
        load_settings(write(tmp_path, "spider: {robots: maybe}\n"), environ={})
