"""One layout for every tool: rk/ links to the top-level folders; the wheel and the editable
install both give ``rk.*`` from them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import rk.core

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ("core", "plugins", "server", "cli")


def source_files() -> set[str]:
    """Every file under the top-level folders, as wheel paths: all of them must ship."""
    found: set[str] = set()
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            found.add(f"rk/{path.relative_to(ROOT).as_posix()}")
    return found


def test_rk_folder_links_to_the_top_level_folders() -> None:
    for folder in FOLDERS:
        link = ROOT / "rk" / folder
        assert link.is_symlink(), f"rk/{folder} should be a link to ../{folder}"
        assert os.readlink(link) == f"../{folder}"


def test_editable_install_resolves_to_the_checkout() -> None:
    assert Path(rk.core.__file__).resolve() == ROOT / "core" / "__init__.py"


def test_wheel_ships_every_module_and_data_file(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    for name in ("rk", *FOLDERS):
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / name, tree / name, symlinks=True, ignore=ignore)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(tree),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("rk-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if not name.startswith("rk-")}
    assert shipped - {"rk/__init__.py"} == source_files()
