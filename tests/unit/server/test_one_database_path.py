"""Only ``server/platform/db`` opens database connections: everything else goes through its
Database."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OPENERS = {
    ("asyncpg", "connect"),
    ("asyncpg", "create_pool"),
    ("sqlite3", "connect"),
    ("aiosqlite", "connect"),
}


def openers_in(path: Path) -> list[str]:
    """``module.function`` calls of ``path`` that open a connection or a pool."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in OPENERS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module in {"asyncpg", "aiosqlite"}:
            names = {alias.name for alias in node.names}
            if names & {"connect", "create_pool"}:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module}")
    return found


def test_no_connection_is_opened_outside_server_db() -> None:
    files = [
        path
        for folder in ("server", "cli", "core", "plugins")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if not path.is_relative_to(ROOT / "server" / "platform" / "db")
    ]
    assert len(files) > 50
    bad = [hit for path in files for hit in openers_in(path)]
    assert not bad, "\n".join(bad)
