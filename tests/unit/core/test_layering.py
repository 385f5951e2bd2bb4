"""Core imports no plugin, server or CLI; plugins import no server or CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RULES = {
    "core": ("rk.server", "rk.cli", "rk.plugins"),
    "plugins": ("rk.server", "rk.cli"),
}


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("folder", sorted(RULES))
def test_layering(folder: str) -> None:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no Python files under {folder}/"
    bad = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in imported_modules(path)
        if name.startswith(RULES[folder]) or name.split(".")[0] in {"core", "server", "cli"}
    ]
    assert not bad, "\n".join(bad)


def test_checker_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from rk.server.app import create_app\nimport rk.cli.main\n")
    assert imported_modules(bad) == ["rk.server.app", "rk.cli.main"]
