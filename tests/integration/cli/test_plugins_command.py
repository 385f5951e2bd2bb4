"""The installed package exposes its built-ins, and third parties, through the rk entry points."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from tests.support.cli import rk

BUILT_INS = {"vogue", "theimpression", "s4_storage", "clip_embed", "queues"}


def test_builtins_listed_from_entry_points() -> None:
    result = rk("plugins", "--json")
    assert result.returncode == 0, result.stderr
    plugins = {info["name"]: info for info in json.loads(result.stdout)}
    assert set(plugins) >= BUILT_INS
    assert "rk_register_queues" in plugins["queues"]["hooks"]
    assert all(plugins[name]["version"] for name in BUILT_INS)


def test_rk_load_plugins_restricts() -> None:
    result = rk("plugins", "--json", env={"RK_LOAD_PLUGINS": "queues"})
    assert [info["name"] for info in json.loads(result.stdout)] == ["queues"]
    none = rk("plugins", "--json", env={"RK_LOAD_PLUGINS": ""})
    assert json.loads(none.stdout) == []


def test_unknown_name_in_rk_load_plugins_is_an_error() -> None:
    result = rk("plugins", env={"RK_LOAD_PLUGINS": "vogue, vouge"})
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: RK_LOAD_PLUGINS names vouge, which no installed plugin is")
    assert "vogue" in line


def make_distribution(root: Path, name: str, module_body: str) -> None:
    """A tiny installed distribution on ``root`` with its own entry_points.txt."""
    (root / f"{name}.py").write_text(textwrap.dedent(module_body))
    info = root / f"{name}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[rk]\n{name} = {name}\n")
    (info / "RECORD").write_text("")


THIRD_PARTY = """
    from rk.core import ShowIngest, ShowSummary, Look, ImageRef, hookimpl

    class LocalSource:
        name = "thirdsite"
        kind = "street"
        needs_brand = False

        def __init__(self, client, options):
            self.options = options

        async def list_shows(self, brand, limit):
            return [ShowSummary(url="http://third/post-1")]

        async def fetch_show(self, show, brand):
            return ShowIngest(source="thirdsite", kind="street", show_key="post-1", title="Post 1",
                              looks=[Look(number=1, image=ImageRef(url="http://third/1.jpg"))])

    @hookimpl
    def rk_register_sources():
        return [LocalSource]
"""

USE_IT = """
import asyncio, msgspec
from rk.core.api.lookups import get_source
source = get_source("thirdsite")(None, {})
shows = asyncio.run(source.list_shows(None, 1))
print(msgspec.json.encode(asyncio.run(source.fetch_show(shows[0], None))).decode())
"""


def test_third_party_plugin_loaded_and_usable(tmp_path: Path) -> None:
    make_distribution(tmp_path, "rk_thirdsite", THIRD_PARTY)
    env = {"PYTHONPATH": str(tmp_path)}
    listed = json.loads(rk("plugins", "--json", env=env).stdout)
    info = next(i for i in listed if i["name"] == "rk_thirdsite")
    assert info["version"] == "1.2.3"
    assert info["hooks"] == ["rk_register_sources"]

    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", USE_IT],
        env={**env, "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["show_key"] == "post-1"


def test_broken_plugin_is_reported_not_fatal(tmp_path: Path) -> None:
    make_distribution(tmp_path, "rk_broken", "import no_such_module_anywhere\n")
    result = rk("plugins", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 0
    line = next(line for line in result.stdout.splitlines() if line.startswith("rk_broken"))
    assert "ERROR ModuleNotFoundError" in line
    assert "vogue" in result.stdout


def test_version_and_config_show(tmp_path: Path) -> None:
    assert rk("--version").stdout.startswith("rk ")
    config = tmp_path / "config.yml"
    config.write_text("ingest: {enabled: true, secret: hunter2}\n")
    shown = rk("config", "show", "--config", str(config))
    assert shown.returncode == 0
    assert "hunter2" not in shown.stdout
    assert "secret: '***'" in shown.stdout


def test_bad_config_exits_2_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text("server: {port: eighty}\n")
    result = rk("config", "show", "--config", str(config))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "server.port" in result.stderr
    assert str(config) in result.stderr
