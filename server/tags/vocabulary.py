"""The tag vocabulary: ``vocabulary.csv`` shipped with rk plus an operator's extra file.

Each row is one tag: a name, its group, a threshold and a margin (cosines, -1…1) and its
prompt ensemble. Both files are checked as hostile input: a bound on size and rows, names
and groups of a fixed alphabet, no duplicate, finite numbers in range, every prompt short;
any fault is one ``BadVocabulary`` line naming the file and the row. The digest says which
vocabulary computed a stored tag, so a changed file means the tags are computed again.
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from importlib import resources
from pathlib import Path

import msgspec
from msgspec import Struct

from rk.core.api.errors import RkError

VOCABULARY_FILE = "vocabulary.csv"
MAX_BYTES = 1024 * 1024
"""The largest vocabulary file read (1 MiB)."""
MAX_TAGS = 2000
"""The most tags of the shipped and extra files together."""
MAX_PROMPTS = 16
MAX_PROMPT = 200
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
COLUMNS = ("name", "group", "threshold", "margin", "prompts")


class BadVocabulary(RkError):
    """A vocabulary file rk cannot use: one line saying which file, row and why."""


class Tag(Struct, frozen=True, kw_only=True):
    """One tag: ``name`` in ``group``, applied at ``threshold`` and ``margin`` (cosines)."""

    name: str
    group: str
    threshold: float
    margin: float
    prompts: tuple[str, ...]


class Vocabulary(Struct, frozen=True, kw_only=True):
    """Every tag in file order, and the digest of their canonical form."""

    tags: tuple[Tag, ...]
    digest: str

    @property
    def names(self) -> frozenset[str]:
        """Every tag's name."""
        return frozenset(tag.name for tag in self.tags)

    @property
    def groups(self) -> dict[str, list[Tag]]:
        """The tags of each group, in file order."""
        found: dict[str, list[Tag]] = {}
        for tag in self.tags:
            found.setdefault(tag.group, []).append(tag)
        return found


def _number(where: str, column: str, text: str) -> float:
    """A finite number in -1…1 from ``text``; BadVocabulary otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise BadVocabulary(f"{where}: {column} {text[:20]!r} is not a number") from None
    if not math.isfinite(value) or not -1.0 <= value <= 1.0:
        raise BadVocabulary(f"{where}: {column} {text[:20]!r} is not between -1 and 1")
    return value


def _slug(where: str, column: str, text: str) -> str:
    """A lowercase name of letters, digits and single hyphens; BadVocabulary otherwise."""
    if not NAME.match(text) or len(text) > MAX_NAME:
        raise BadVocabulary(
            f"{where}: {column} {text[:40]!r} is not a lowercase name of letters, digits and"
            f" hyphens (at most {MAX_NAME})"
        )
    return text


def _prompts(where: str, text: str) -> tuple[str, ...]:
    """The ``|``-separated prompts, each non-empty, printable and short."""
    prompts = tuple(" ".join(part.split()) for part in text.split("|"))
    if not prompts or not all(prompts):
        raise BadVocabulary(f"{where}: prompts has an empty prompt")
    if len(prompts) > MAX_PROMPTS:
        raise BadVocabulary(f"{where}: {len(prompts)} prompts; at most {MAX_PROMPTS}")
    for prompt in prompts:
        if len(prompt) > MAX_PROMPT or not prompt.isprintable():
            raise BadVocabulary(
                f"{where}: prompt {prompt[:40]!r} is not printable text of at most {MAX_PROMPT}"
            )
    return prompts


def parse_vocabulary(text: str, source: str) -> list[Tag]:
    """The tags of one file's text (``#`` lines are comments); BadVocabulary on any fault."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise BadVocabulary(f"{source}: larger than {MAX_BYTES} bytes")
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    lines = [(n, line) for n, line in lines if not line.lstrip().startswith("#")]
    if not lines:
        raise BadVocabulary(f"{source}: no tags (the file is empty)")
    header = [cell.strip() for cell in next(csv.reader([lines[0][1]]))]
    if tuple(header) != COLUMNS:
        raise BadVocabulary(f"{source}: the header must be {','.join(COLUMNS)}")
    tags: list[Tag] = []
    for number, cells in zip(
        (n for n, _ in lines[1:]), csv.reader(line for _, line in lines[1:]), strict=True
    ):
        where = f"{source} line {number}"
        if len(cells) != len(COLUMNS):
            raise BadVocabulary(f"{where}: {len(cells)} columns; expected {len(COLUMNS)}")
        name, group, threshold, margin, prompts = (cell.strip() for cell in cells)
        tags.append(
            Tag(
                name=_slug(where, "name", name),
                group=_slug(where, "group", group),
                threshold=_number(where, "threshold", threshold),
                margin=_number(where, "margin", margin),
                prompts=_prompts(where, prompts),
            )
        )
        if len(tags) > MAX_TAGS:
            raise BadVocabulary(f"{source}: more than {MAX_TAGS} tags")
    if not tags:
        raise BadVocabulary(f"{source}: no tags (only a header)")
    return tags


def read_extra(path: str) -> str:
    """The text of an operator's vocabulary file; BadVocabulary when it cannot be read."""
    file = Path(path).expanduser()
    try:
        if file.stat().st_size > MAX_BYTES:
            raise BadVocabulary(f"{file}: larger than {MAX_BYTES} bytes")
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise BadVocabulary(f"cannot read the vocabulary {file}: {detail}") from None


def shipped_text() -> str:
    """The text of the vocabulary shipped with rk."""
    return resources.files(__package__).joinpath(VOCABULARY_FILE).read_text(encoding="utf-8")


def build_vocabulary(parts: list[tuple[str, str]]) -> Vocabulary:
    """One vocabulary from ``(text, source)`` files in order; BadVocabulary on a fault or a
    name given twice (within a file or across them)."""
    tags: list[Tag] = []
    seen: dict[str, str] = {}
    for text, source in parts:
        for tag in parse_vocabulary(text, source):
            if tag.name in seen:
                raise BadVocabulary(f"{source}: tag {tag.name!r} is already in {seen[tag.name]}")
            seen[tag.name] = source
            tags.append(tag)
    if len(tags) > MAX_TAGS:
        raise BadVocabulary(f"more than {MAX_TAGS} tags in the vocabulary files together")
    digest = hashlib.sha256(msgspec.json.encode(tags)).hexdigest()
    return Vocabulary(tags=tuple(tags), digest=digest)


def load_vocabulary(extra: str = "") -> Vocabulary:
    """The shipped vocabulary, extended by the file ``extra`` names ("" for none)."""
    parts = [(shipped_text(), VOCABULARY_FILE)]
    if extra:
        parts.append((read_extra(extra), str(Path(extra).expanduser())))
    return build_vocabulary(parts)
