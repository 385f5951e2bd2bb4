"""Core imports no plugin, server or CLI; plugins import no server or CLI; inside core, the
plugin API (core/api) imports nothing of the runtime (core/runtime), and an interface module
never reaches for the plugin manager (the lookups do)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RULES = {
    "core": ("rk.server", "rk.cli", "rk.plugins"),
    "plugins": ("rk.server", "rk.cli"),
    "core/api": ("rk.core.runtime",),
}
INTERFACES = ("sources", "storage", "embedders", "queues", "vector_indexes")
MANAGER = ("rk.core.api.plugins", "rk.core.api.lookups")


def imported_modules(path: Path) -> list[str]:
    """Every absolute module name ``path`` imports, at the top or inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def violations(folder: str, banned: tuple[str, ...]) -> list[str]:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no Python files under {folder}/"
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in imported_modules(path)
        if name.startswith(banned) or name.split(".")[0] in {"core", "server", "cli"}
    ]


@pytest.mark.parametrize("folder", sorted(RULES))
def test_layering(folder: str) -> None:
    bad = violations(folder, RULES[folder])
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", INTERFACES)
def test_interfaces_do_not_look_plugins_up(name: str) -> None:
    path = ROOT / "core" / "api" / f"{name}.py"
    bad = [module for module in imported_modules(path) if module.startswith(MANAGER)]
    assert not bad, f"core/api/{name}.py imports {bad}: lookups belong in rk.core.api.lookups"


def test_core_shows_two_halves() -> None:
    halves = {p.name for p in (ROOT / "core").iterdir() if (p / "__init__.py").is_file()}
    assert halves == {"api", "runtime"}


def test_checker_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from rk.server.app import create_app\nimport rk.cli.main\n"
        "def f():\n    from rk.core.runtime.crawler import crawl\n"
    )
    assert imported_modules(bad) == ["rk.server.app", "rk.cli.main", "rk.core.runtime.crawler"]
    runtime = [name for name in imported_modules(bad) if name.startswith(RULES["core/api"])]
    assert runtime == ["rk.core.runtime.crawler"]
