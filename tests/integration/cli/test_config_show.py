"""``rk config show``: effective database and storage, and where every value came from."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import rk


def lines_of(text: str) -> dict[str, str]:
    """``{"  port": "9100  # /path/config.yml", …}`` keyed by the indented key."""
    out = {}
    for line in text.splitlines():
        if ": " in line and not line.startswith("#"):
            key, _, rest = line.partition(": ")
            out[key] = rest
    return out


def test_embedded_default_spelled_out(tmp_path: Path) -> None:
    shown = rk("config", "show", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    found = lines_of(shown.stdout)
    data = (tmp_path / "rk-data").resolve()
    assert found["database"] == (
        f"sqlite:///{data}/rk.sqlite3  # embedded default: <data_dir>/rk.sqlite3,"
        " data_dir from default"
    )
    assert found["storage"].startswith(f"file://{data}/media  # embedded default")
    assert found["  port"] == "8092  # default"


def test_each_value_says_where_it_came_from(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text(
        "server: {port: 9100}\n"
        "ingest: {enabled: true, secret: hunter2}\n"
        "storage: s3://bucket/p?endpoint=http://s3&secret_access_key=sk-123456\n"
        "sources: {theimpression: {cdn_hosts: [cdn.example]}}\n"
    )
    env = {"RK_DATABASE": "postgresql://rk:pg-pass-99@db/rk", "RK_SERVER_WORKERS": "3"}
    shown = rk("config", "show", "--data-dir", str(tmp_path / "d"), cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    found = lines_of(shown.stdout)
    assert found["database"] == "postgresql://rk:***@db/rk  # RK_DATABASE"
    assert (
        found["storage"] == "s3://bucket/p?endpoint=http://s3&secret_access_key=***  # config.yml"
    )
    assert found["data_dir"] == f"{tmp_path / 'd'}  # --data-dir"
    assert found["  port"] == "9100  # config.yml"
    assert found["  workers"] == "3  # RK_SERVER_WORKERS"
    assert "  secret: '***'  # config.yml" in shown.stdout
    assert found["    cdn_hosts"] == "[cdn.example]  # config.yml"
    for secret in ("hunter2", "pg-pass-99", "sk-123456"):
        assert secret not in shown.stdout
