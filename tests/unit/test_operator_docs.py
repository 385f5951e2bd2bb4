"""docs/operators.md documents every setting rk has, with its default."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from rk.core.config import Settings

DOC = (Path(__file__).resolve().parents[2] / "docs" / "operators.md").read_text(encoding="utf-8")


def section_text(name: str) -> str:
    """The text of the ``### `name` …`` subsection of Configure."""
    match = re.search(rf"^### `{name}`.*?(?=^### |^## )", DOC, re.S | re.M)
    assert match, f"docs/operators.md has no ### `{name}` section"
    return match.group(0)


def rows(text: str) -> dict[str, str]:
    """``{setting: default cell}`` of the markdown table rows in ``text``."""
    found = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                found[name] = cells[1]
    return found


SECTIONS = [
    name
    for name, value in msgspec.structs.asdict(Settings()).items()
    if isinstance(value, msgspec.Struct)
]


@pytest.mark.parametrize("section", SECTIONS)
def test_every_setting_of_a_section_is_documented_with_its_default(section: str) -> None:
    documented = rows(section_text(section))
    struct = getattr(Settings(), section)
    for field in struct.__struct_fields__:
        assert field in documented, f"{section}.{field} is not in docs/operators.md"
        default = getattr(struct, field)
        if isinstance(default, bool | int | float) or (
            isinstance(default, str) and len(default) < 40
        ):
            cell = documented[field].lower()
            shown = str(default).lower() if not isinstance(default, str) else default
            assert shown in cell or (default == "" and '""' in cell), (
                f"{section}.{field}: default {default!r} not in {documented[field]!r}"
            )


def test_top_level_and_source_options_are_documented() -> None:
    top = rows(DOC.split("### Top level", 1)[1].split("###", 1)[0])
    assert {"data_dir", "database", "storage"} <= set(top)
    for option in ("vogue.base_url", "theimpression.cdn_hosts", "theimpression.original"):
        assert f"`sources.{option}`" in DOC
