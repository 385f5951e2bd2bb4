"""server/ is cut by feature: small folders, platform below every slice, slices through faces.

A slice (``server/<name>/``) imports ``rk.core``, ``rk.server.platform`` and other slices'
faces only (``from rk.server.<slice> import name``, what its ``__init__`` exports); the
import graph between slices and platform's subpackages has no cycle, deferred imports
included. ``server/app.py``, ``server/routes.py`` and ``server/deps.py`` wire slices together.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "server"
MAX_MODULES = 20


def slices(server: Path) -> set[str]:
    """The feature folders of ``server``: every package but ``platform``."""
    return {p.name for p in server.iterdir() if (p / "__init__.py").exists()} - {"platform"}


def node_of(server: Path, parts: list[str]) -> str | None:
    """The graph node a module belongs to: a slice, ``platform.<sub>``, or None (wiring)."""
    if len(parts) < 2 and not (parts and (server / parts[0]).is_dir()):
        return None
    if parts[0] == "platform" and len(parts) > 1 and (server / "platform" / parts[1]).is_dir():
        return f"platform.{parts[1]}"
    return parts[0] if (server / parts[0]).is_dir() else None


def server_imports(path: Path) -> Iterator[tuple[str, bool]]:
    """Every ``rk.server`` module ``path`` imports, and whether by ``from <module> import``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from ((a.name, False) for a in node.names if a.name.startswith("rk.server."))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rk.server."):
            yield str(node.module), True


def graph_and_faults(server: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph between nodes, and every import that breaks the slice rules."""
    names = slices(server)
    graph: dict[str, set[str]] = defaultdict(set)
    faults: list[str] = []
    for path in sorted(server.rglob("*.py")):
        parts = list(path.relative_to(server).with_suffix("").parts)
        src = node_of(server, parts)
        if src is None:
            continue
        for module, is_from in server_imports(path):
            target = module.split(".")[2:]
            dst = node_of(server, target)
            if dst is None or dst == src:
                continue
            graph[src].add(dst)
            where = f"{path.relative_to(server)} imports {module}"
            if src.startswith("platform.") and dst in names:
                faults.append(f"{where}: platform imports no slice")
            if dst in names and src in names and (len(target) > 1 or not is_from):
                faults.append(f"{where}: import names from rk.server.{dst}, its face")
    return graph, faults


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle's nodes (strongly connected components larger than one), by Tarjan."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_folder_holds_more_than_twenty_modules() -> None:
    crowded = {
        str(d.relative_to(ROOT)): n
        for d in [SERVER, *(p for p in SERVER.rglob("*") if p.is_dir())]
        if d.name != "migrations" and (n := len(list(d.glob("*.py")))) > MAX_MODULES
    }
    assert not crowded, crowded


def test_slices_import_platform_and_each_others_faces_only() -> None:
    graph, faults = graph_and_faults(SERVER)
    assert {"platform.db", "platform.http"} <= {d for ds in graph.values() for d in ds}
    assert not faults, "\n".join(faults)


def test_the_graph_between_slices_has_no_cycle() -> None:
    graph, _ = graph_and_faults(SERVER)
    assert len(graph) >= 8
    assert not cycles(graph), cycles(graph)


def test_the_checks_catch_violations(tmp_path: Path) -> None:
    for package in ("a", "b", "platform", "platform/db"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "a" / "x.py").write_text("from rk.server.b.inner import thing\n")
    (tmp_path / "b" / "y.py").write_text("def f():\n    import rk.server.a.x\n")
    (tmp_path / "platform" / "db" / "z.py").write_text("from rk.server.a import x\n")
    graph, faults = graph_and_faults(tmp_path)
    assert cycles(graph) == [["a", "b"]]
    assert len(faults) == 3
    assert cycles({"p": {"q"}, "q": {"r"}}) == []
