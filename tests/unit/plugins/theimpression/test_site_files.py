"""The committed synthetic The Impression site is exactly what its generator writes."""

from __future__ import annotations

from pathlib import Path

from tests.sites.theimpression import generate


def test_committed_files_match_the_generator() -> None:
    files = generate.build(generate.HERE)
    assert len(files) == 13
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, (
            f"regenerate {path}: python {generate.__file__}"
        )
    on_disk = {p for p in Path(generate.HERE).rglob("*") if p.is_file() and p.suffix != ".py"}
    assert on_disk == set(files), "stray files under tests/sites/theimpression"
