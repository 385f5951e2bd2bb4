"""The committed synthetic Vogue site is exactly what its generator writes."""

from __future__ import annotations

from pathlib import Path

from tests.sites.vogue import generate


def test_committed_pages_match_the_generator() -> None:
    files = generate.build(generate.HERE)
    assert len(files) >= 15
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, (
            f"regenerate {path}: python {generate.__file__}"
        )
    on_disk = set(Path(generate.HERE).rglob("*.html"))
    assert on_disk == set(files), "stray pages under tests/sites/vogue"
