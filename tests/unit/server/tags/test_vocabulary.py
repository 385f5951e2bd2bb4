"""The tag vocabulary: the shipped file, an operator's extra file, and every way a file is bad."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk.server.tags import BadVocabulary, load_vocabulary
from rk.server.tags.vocabulary import (
    MAX_BYTES,
    MAX_PROMPTS,
    MAX_TAGS,
    build_vocabulary,
    parse_vocabulary,
    shipped_text,
)

HEADER = "name,group,threshold,margin,prompts\n"


def test_the_shipped_vocabulary_names_fashionpedia_groups_and_credits_it() -> None:
    vocabulary = load_vocabulary()
    groups = vocabulary.groups
    assert set(groups) == {"garment", "silhouette", "neckline", "pattern", "material"}
    names = vocabulary.names
    assert {"dress", "coat", "jumpsuit", "cape", "skirt", "pants"} <= names
    assert {"a-line", "v-neck", "crew-neck", "plaid", "floral", "stripe", "dot"} <= names
    assert {"leather", "denim", "lace", "sheer"} <= names
    assert all(len(tag.prompts) >= 3 for tag in vocabulary.tags)
    assert "Fashionpedia" in shipped_text()
    assert len(vocabulary.digest) == 64


def test_an_extra_file_extends_the_vocabulary_and_changes_its_digest(tmp_path: Path) -> None:
    extra = tmp_path / "extra.csv"
    extra.write_text(
        "# our own\n" + HEADER + 'trench-coat,garment,0.25,0.01,"a trench coat|a belted trench"\n',
        encoding="utf-8",
    )
    shipped = load_vocabulary()
    extended = load_vocabulary(str(extra))
    assert extended.names == shipped.names | {"trench-coat"}
    assert extended.digest != shipped.digest
    added = next(tag for tag in extended.tags if tag.name == "trench-coat")
    assert added.prompts == ("a trench coat", "a belted trench")
    assert (added.threshold, added.margin) == (0.25, 0.01)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "x.csv: no tags (the file is empty)"),
        ("# only a comment\n\n", "x.csv: no tags (the file is empty)"),
        (HEADER, "x.csv: no tags (only a header)"),
        ("name,group\nfoo,bar\n", "x.csv: the header must be name,group,threshold,margin,prompts"),
        (HEADER + "Dress,garment,0.2,0,a dress\n", "x.csv line 2: name 'Dress' is not a lowercase"),
        (HEADER + "dress,garment,abc,0,a dress\n", "x.csv line 2: threshold 'abc' is not a number"),
        (HEADER + "dress,garment,nan,0,a dress\n", "x.csv line 2: threshold 'nan' is not between"),
        (HEADER + "dress,garment,0.2,1.5,a dress\n", "x.csv line 2: margin '1.5' is not between"),
        (HEADER + "dress,garment,0.2,0,a dress|\n", "x.csv line 2: prompts has an empty prompt"),
        (HEADER + "dress,garment,0.2,0\n", "x.csv line 2: 4 columns; expected 5"),
        (HEADER + "dress,Gar ment,0.2,0,a dress\n", "x.csv line 2: group 'Gar ment' is not"),
        (
            HEADER + "dress,garment,0.2,0," + "|".join(["p"] * (MAX_PROMPTS + 1)) + "\n",
            f"x.csv line 2: {MAX_PROMPTS + 1} prompts; at most {MAX_PROMPTS}",
        ),
    ],
)
def test_a_bad_file_is_one_line_naming_the_file_and_row(text: str, message: str) -> None:
    with pytest.raises(BadVocabulary) as caught:
        parse_vocabulary(text, "x.csv")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_huge_file_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    huge = tmp_path / "huge.csv"
    huge.write_text(HEADER + "x" * MAX_BYTES, encoding="utf-8")
    with pytest.raises(BadVocabulary, match=f"huge.csv: larger than {MAX_BYTES} bytes"):
        load_vocabulary(str(huge))
    rows = "".join(f"t{n},garment,0.2,0,a thing\n" for n in range(MAX_TAGS + 1))
    with pytest.raises(BadVocabulary, match=f"more than {MAX_TAGS} tags"):
        parse_vocabulary(HEADER + rows, "many.csv")


def test_a_name_given_twice_is_refused_within_a_file_and_across_files(tmp_path: Path) -> None:
    twice = HEADER + "dress,garment,0.2,0,a dress\ndress,garment,0.3,0,a gown\n"
    with pytest.raises(BadVocabulary, match="x.csv: tag 'dress' is already in x.csv"):
        build_vocabulary([(twice, "x.csv")])
    extra = tmp_path / "extra.csv"
    extra.write_text(HEADER + "plaid,pattern,0.2,0,plaid\n", encoding="utf-8")
    with pytest.raises(BadVocabulary, match="tag 'plaid' is already in vocabulary.csv"):
        load_vocabulary(str(extra))


def test_a_missing_extra_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BadVocabulary, match="cannot read the vocabulary .*nothing.csv"):
        load_vocabulary(str(tmp_path / "nothing.csv"))
