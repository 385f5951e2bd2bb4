"""``stays_under``: a key's path leaves the file store's root by no name and no link."""

from __future__ import annotations

from pathlib import Path

import pytest

from rk.plugins.s4_storage.root import stays_under

SHA1 = "a" * 40


def test_a_key_whose_parts_do_not_exist_yet_stays_under(tmp_path: Path) -> None:
    assert stays_under(str(tmp_path), f"runway/{SHA1}.jpg")
    assert stays_under(str(tmp_path), f"r/640/{SHA1}.webp")


def test_existing_plain_directories_and_files_stay_under(tmp_path: Path) -> None:
    (tmp_path / "runway").mkdir()
    (tmp_path / "runway" / f"{SHA1}.jpg").write_bytes(b"x")
    assert stays_under(str(tmp_path), f"runway/{SHA1}.jpg")


@pytest.mark.parametrize(
    "key", ["../escape.jpg", f"runway/../../{SHA1}.jpg", "runway/./x.jpg", "/etc/passwd", "a//b"]
)
def test_dot_dot_dot_and_empty_parts_never_stay_under(tmp_path: Path, key: str) -> None:
    assert not stays_under(str(tmp_path), key)


def test_a_linked_directory_leaves_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "runway").symlink_to(outside)
    assert not stays_under(str(root), f"runway/{SHA1}.jpg")


def test_a_linked_file_leaves_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "thumb").mkdir(parents=True)
    (tmp_path / "secret").write_bytes(b"not media")
    (root / "thumb" / f"{SHA1}.jpg").symlink_to(tmp_path / "secret")
    assert not stays_under(str(root), f"thumb/{SHA1}.jpg")


def test_a_link_back_inside_the_root_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "street").mkdir()
    (tmp_path / "runway").symlink_to(tmp_path / "street")
    assert not stays_under(str(tmp_path), f"runway/{SHA1}.jpg")


def test_a_part_under_a_file_cannot_lead_anywhere(tmp_path: Path) -> None:
    (tmp_path / "runway").write_bytes(b"a file where a directory would be")
    assert stays_under(str(tmp_path), f"runway/{SHA1}.jpg")
