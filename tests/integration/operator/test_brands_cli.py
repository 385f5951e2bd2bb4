"""``rk brands add|list|import`` against a real database, through the installed console script."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from tests.support.cli import rk
from tests.support.net import free_port


@pytest.fixture
def db_env(any_dsn: str) -> dict[str, str]:
    """Point every rk command of the test at the database under test."""
    return {"RK_DATABASE": any_dsn}


def test_add_list_import(db_env: dict[str, str], tmp_path: Path) -> None:
    added = rk("brands", "add", "Acne Studios", "--slug", "vogue=acne-studios", env=db_env)
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("added: id=1 uid=")
    again = rk("brands", "add", "  Acne   Studios ", env=db_env)
    assert again.stdout.startswith("exists: id=1 ")

    listing = tmp_path / "brands.txt"
    listing.write_text(
        "# invented brands\nKestrel & Vine | vogue=kestrel-vine\nAlaïa\n\n | vogue=x\n"
        "Maison Aurèle | vogue\nAcne Studios\n"
    )
    imported = rk("brands", "import", str(listing), env=db_env)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "imported 2 brands, 1 already present, 2 bad lines"
    assert "skipped line 5: brand name is empty" in imported.stderr
    assert "skipped line 6: slug 'vogue' must look like source=slug" in imported.stderr

    rows = rk("brands", "list", env=db_env).stdout.splitlines()
    assert [row.split()[2] for row in rows] == ["Acne", "Alaïa", "Kestrel"]
    assert rows[0].endswith("vogue=acne-studios")
    only_k = rk("brands", "list", "--prefix", "k", env=db_env).stdout.splitlines()
    assert len(only_k) == 1
    assert "Kestrel & Vine" in only_k[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["brands", "add", "   "], "error: brand name is empty"),
        (["brands", "add", "X", "--slug", "noequals"], "must look like source=slug"),
        (["brands", "add", "x" * 201], "longer than 200 characters"),
        (["brands", "import", "/nonexistent/file.txt"], "cannot read"),
    ],
)
def test_bad_input_exits_2(db_env: dict[str, str], args: list[str], message: str) -> None:
    result = rk(*args, env=db_env)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert rk("brands", "list", env=db_env).stdout == ""


def test_names_are_nfc_and_unique_in_any_case(db_env: dict[str, str]) -> None:
    nfc = "Comme des Garçons"
    added = rk("brands", "add", nfc, env=db_env)
    assert added.stdout.startswith("added: id=1 ")
    same = rk("brands", "add", unicodedata.normalize("NFD", nfc), env=db_env)
    assert same.returncode == 0, same.stderr
    assert same.stdout.startswith("exists: id=1 uid=")
    assert f"name={nfc} " in same.stdout
    other_case = rk("brands", "add", "COMME DES GARÇONS", env=db_env)
    assert other_case.returncode == 2
    assert other_case.stderr.splitlines() == [
        "error: brand name 'COMME DES GARÇONS' clashes with the existing brand"
        " 'Comme des Garçons' (id=1); names are unique ignoring case"
    ]
    assert len(rk("brands", "list", env=db_env).stdout.splitlines()) == 1


@pytest.mark.parametrize(
    ("slug", "message"),
    [
        ("nosuchsource=x", "error: slug nosuchsource=x: no source named 'nosuchsource'"),
        (
            "vogue=Not A Slug!",
            "error: vogue slug 'Not A Slug!': not a Vogue designer slug: a slug is lowercase",
        ),
        (
            "vogue=acne-studios",
            "error: vogue slug 'acne-studios' belongs to the brand 'Acne' (id=1)",
        ),
    ],
)
def test_slugs_are_checked_by_their_source_and_unique(
    db_env: dict[str, str], slug: str, message: str
) -> None:
    assert rk("brands", "add", "Acne", "--slug", "vogue=acne-studios", env=db_env).returncode == 0
    done = rk("brands", "add", "Other", "--slug", slug, env=db_env)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(message)
    assert len(rk("brands", "list", env=db_env).stdout.splitlines()) == 1


@pytest.mark.parametrize("command", [["brands", "add", "Acne Studios"], ["crawl", "add", "Acne"]])
def test_unreachable_database_is_one_line(command: list[str]) -> None:
    port = free_port()  # nothing listens there: PostgreSQL is down
    done = rk(*command, env={"RK_DATABASE": f"postgresql://rk:pw@127.0.0.1:{port}/rk"})
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: cannot open the database postgresql://rk:***@127.0.0.1:{port}")
    assert "pw" not in line
