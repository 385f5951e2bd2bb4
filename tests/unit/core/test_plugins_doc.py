"""docs/plugins.md, which the README says covers every hook, names every hookspec and every
built-in plugin (with its module and the hooks it implements)."""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib
from pathlib import Path

import pytest

from rk.core.api import hookspecs

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
PROJECT = "rk"


def hookspec_names() -> list[str]:
    """Every function of rk.core.api.hookspecs marked as a hookspec."""
    return sorted(
        name
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, f"{PROJECT}_spec")
    )


def builtin_entry_points() -> dict[str, str]:
    """``{entry point: module}`` of the ``rk`` group in rk's own pyproject.toml."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry_points: dict[str, str] = pyproject["project"]["entry-points"][PROJECT]
    return entry_points


def builtin_rows() -> dict[str, list[str]]:
    """``{entry point: [module, hooks cell]}`` from the Built-in plugins table."""
    section = DOC.split("## Built-in plugins", 1)
    assert len(section) == 2, "docs/plugins.md has no '## Built-in plugins' section"
    rows = {}
    for line in section[1].split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = [cells[1].strip("`"), cells[2]]
    return rows


def test_the_hookspecs_are_found() -> None:
    assert {"rk_register_sources", "rk_register_vector_indexes"} <= set(hookspec_names())


@pytest.mark.parametrize("name", hookspec_names())
def test_every_hookspec_has_its_own_heading(name: str) -> None:
    headings = [line for line in DOC.splitlines() if line.startswith("### ")]
    assert any(f"`{name}" in heading for heading in headings), (
        f"docs/plugins.md has no ### heading for the hookspec {name}"
    )


@pytest.mark.parametrize(("name", "module"), sorted(builtin_entry_points().items()))
def test_every_builtin_plugin_is_listed_with_its_module_and_hooks(name: str, module: str) -> None:
    rows = builtin_rows()
    assert name in rows, f"docs/plugins.md's Built-in plugins table has no row for {name}"
    documented_module, hooks_cell = rows[name]
    assert documented_module == module
    plugin = importlib.import_module(module)
    implemented = {
        hook
        for hook, fn in inspect.getmembers(plugin, inspect.isfunction)
        if hasattr(fn, f"{PROJECT}_impl")
    }
    assert implemented, f"{module} implements no hook"
    assert set(re.findall(r"`(rk_\w+)`", hooks_cell)) == implemented
