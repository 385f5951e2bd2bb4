"""``bench.vector_codes`` on a few thousand vectors: a float32 row and a row per prescan size,
each with a recall and the memory held (issue 31). No timing is asserted."""

from __future__ import annotations

from bench import vector_codes


def test_each_prescan_has_a_row_with_recall_and_memory() -> None:
    rows = vector_codes.rows_for("cone", 3000, 3)
    assert len(rows) == 1 + len(vector_codes.PRESCANS)
    assert rows[0].startswith("| cone | float32 scan (before) |")
    for row, prescan in zip(rows[1:], vector_codes.PRESCANS, strict=True):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[1] == f"codes, prescan {prescan:,} → 40"
        assert cells[3] == "1.000"  # 3,000 rows: every prescan holds the whole top 20
        assert 0 < float(cells[6].replace(",", "")) < float(rows[0].split("|")[-2].replace(",", ""))
