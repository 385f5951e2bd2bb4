"""The operator's labelled queries for ``rk eval``: a CSV read and checked before any search.

Columns (a header row names them, in any order): ``query`` (words) and/or ``image`` (a
local picture, relative to the CSV's folder), and ``expected`` (the image ids that should
come back, separated by spaces, ``;`` or ``|``). Each row has words or a picture, not both.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from msgspec import Struct

from rk.core.api.errors import RkError

MAX_ROWS = 100_000
MAX_IMAGE_BYTES = 30 * 1024 * 1024
SEPARATORS = re.compile(r"[\s;|]+")


class LabelsError(RkError):
    """The labels file cannot be used; the message names the row and what is wrong."""


class Label(Struct, frozen=True, kw_only=True):
    """One labelled query: words or a picture, and the ids that should come back."""

    row: int
    text: str | None = None
    image: bytes | None = None
    image_path: str = ""
    expected: tuple[int, ...]

    def describe(self) -> str:
        """The query as a person wrote it, for messages."""
        return repr(self.text) if self.text is not None else self.image_path


def _expected(cell: str, row: int) -> tuple[int, ...]:
    """The ids of one ``expected`` cell, in order, without repeats."""
    ids: list[int] = []
    for part in SEPARATORS.split(cell.strip()):
        if not part:
            continue
        if not part.isdigit() or not 0 < int(part) < 2**63:
            raise LabelsError(f"row {row}: expected id {part[:40]!r} is not an image id")
        if int(part) not in ids:
            ids.append(int(part))
    if not ids:
        raise LabelsError(f"row {row}: no expected ids")
    return tuple(ids)


def _picture(cell: str, base: Path, row: int) -> bytes:
    """The bytes of a local picture named by an ``image`` cell."""
    if "://" in cell:
        raise LabelsError(f"row {row}: image {cell[:80]!r} must be a local file, not a URL")
    path = (base / cell).expanduser()
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise LabelsError(f"row {row}: image {cell[:80]!r} is not a file")
        if size > MAX_IMAGE_BYTES:
            raise LabelsError(f"row {row}: image {cell[:80]!r} is over {MAX_IMAGE_BYTES} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise LabelsError(f"row {row}: image {cell[:80]!r}: {exc.strerror or exc}") from None


def read_labels(path: Path) -> list[Label]:
    """Every labelled query of the CSV at ``path``; LabelsError on the first problem."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise LabelsError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise LabelsError(f"{path}: {exc.strerror or exc}") from None
    reader = csv.DictReader(text.splitlines())
    columns = {name.strip() for name in reader.fieldnames or [] if name}
    if "expected" not in columns or not columns & {"query", "image"}:
        raise LabelsError(
            f"{path}: the header needs an 'expected' column and a 'query' or 'image' column"
        )
    labels: list[Label] = []
    try:
        for row, record in enumerate(reader, start=2):
            if len(labels) >= MAX_ROWS:
                raise LabelsError(f"{path}: more than {MAX_ROWS} labelled queries")
            cells = {(k or "").strip(): (v or "").strip() for k, v in record.items()}
            if not any(cells.values()):
                continue
            labels.append(_label(cells, path.parent, row))
    except csv.Error as exc:
        raise LabelsError(f"{path}: not a readable CSV ({exc})") from None
    if not labels:
        raise LabelsError(f"{path}: no labelled queries")
    return labels


def _label(cells: dict[str, str], base: Path, row: int) -> Label:
    """One CSV row as a Label."""
    words, picture = cells.get("query", ""), cells.get("image", "")
    if bool(words) == bool(picture):
        raise LabelsError(f"row {row}: give a query or an image, exactly one of them")
    expected = _expected(cells.get("expected", ""), row)
    if words:
        return Label(row=row, text=words, expected=expected)
    return Label(row=row, image=_picture(picture, base, row), image_path=picture, expected=expected)
