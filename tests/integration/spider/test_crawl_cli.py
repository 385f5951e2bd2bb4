"""``rk crawl add|batch|list|retry|cancel|delete`` against a real database, on both engines.

The commands run in this process through Typer's runner (the same code as the console
script, minus a process start per call); the end-to-end tests run them as subprocesses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rk.cli.main import app
from rk.core.api.lookups import source_registry

Rk = Callable[..., Result]


@pytest.fixture
def crawl(any_dsn: str, tmp_path: Path) -> Rk:
    """``rk ARGS`` with RK_DATABASE pointing at the database under test."""
    runner = CliRunner()
    env = {"RK_DATABASE": any_dsn, "RK_DATA_DIR": str(tmp_path / "data")}

    def run(*args: str) -> Result:
        return runner.invoke(app, list(args), env=env)

    return run


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.stderr
    return result.stdout


def refused(result: Result, message: str) -> None:
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: {message}"]


def rows(listing: str) -> list[list[str]]:
    """The table's body rows split on runs of two or more spaces."""
    return [re.split(r"\s{2,}", line.strip()) for line in listing.splitlines()[1:]]


def test_add_batch_list_cancel_retry_delete(crawl: Rk, tmp_path: Path) -> None:
    brands = tmp_path / "brands.txt"
    brands.write_text("Alder\nAcme Studio\nBeta Label\nalpha & co\n", encoding="utf-8")
    ok(crawl("brands", "import", str(brands)))

    assert ok(crawl("crawl", "add", "alpha & co", "--max-shows", "2", "--priority", "3")) == (
        "queued task 1: alpha & co (id=4) on vogue, max 2\n"
    )
    assert ok(crawl("crawl", "add", "--id", "3")).startswith("queued task 2: Beta Label (id=3)")
    batch = ok(crawl("crawl", "batch", "--prefix", "A", "--max-shows", "1", "--count", "50"))
    assert batch == "queued 2 tasks for brands starting with 'A': 3, 4\n"  # alpha has one

    listing = ok(crawl("crawl", "list"))
    assert listing.splitlines()[0].split() == [
        "id",
        "status",
        "brand",
        "source",
        "max_shows",
        "season",
        "worker",
        "attempts",
        "shows_submitted",
        "last_error",
    ]
    assert [row[:5] for row in rows(listing)] == [
        ["4", "queued", "Alder", "vogue", "1"],
        ["3", "queued", "Acme Studio", "vogue", "1"],
        ["2", "queued", "Beta Label", "vogue", "3"],
        ["1", "queued", "alpha & co", "vogue", "2"],
    ]

    assert ok(crawl("crawl", "cancel", "1")) == "task 1 canceled\n"
    refused(crawl("crawl", "cancel", "1"), "crawl task 1 is canceled and cannot be canceled")
    assert [row[0] for row in rows(ok(crawl("crawl", "list", "--status", "canceled")))] == ["1"]
    assert ok(crawl("crawl", "retry", "1")) == "task 1 queued again\n"
    assert ok(crawl("crawl", "delete", "2")) == "task 2 deleted\n"
    assert [row[:2] for row in rows(ok(crawl("crawl", "list", "--status", "queued")))] == [
        ["4", "queued"],
        ["3", "queued"],
        ["1", "queued"],
    ]
    assert ok(crawl("crawl", "list", "--status", "done")) == "no crawl tasks with status done\n"
    again = ok(crawl("crawl", "batch", "--prefix", "a", "--count", "5"))
    assert again == "queued 0 tasks for brands starting with 'a'\n"


def test_bad_input_exits_2_with_one_line_and_changes_nothing(crawl: Rk) -> None:
    ok(crawl("brands", "add", "Alder"))
    refused(
        crawl("crawl", "add", "Nobody"),
        "no brand named 'Nobody' (see: rk brands list; --id N takes an id)",
    )
    refused(
        crawl("crawl", "add", "Alder", "--source", "nope"),
        f"no source named 'nope'; available: {', '.join(source_registry().names())}",
    )
    refused(
        crawl("crawl", "list", "--status", "bogus"),
        "unknown status 'bogus': one of queued, running, done, failed, canceled",
    )
    for verb in ("retry", "cancel", "delete"):
        refused(crawl("crawl", verb, "99"), "crawl task 99 does not exist")
    assert crawl("crawl", "add", "Alder", "--max-shows", "-1").exit_code == 2
    either = "name the brand, or give --id N (not both)"
    refused(crawl("crawl", "add"), either)
    refused(crawl("crawl", "add", "Alder", "--id", "1"), either)
    refused(crawl("crawl", "add", "--id", "7"), "no brand with id 7 (see: rk brands list)")
    assert crawl("crawl", "batch", "--prefix", "A", "--count", "0").exit_code == 2
    assert ok(crawl("crawl", "list")) == "no crawl tasks\n"


def test_a_name_is_a_name_and_an_id_is_given_with_id(crawl: Rk) -> None:
    ok(crawl("brands", "add", "Alder"))
    ok(crawl("brands", "add", "Beta Label"))
    ok(crawl("brands", "add", "3"))
    assert ok(crawl("crawl", "add", "3")) == "queued task 1: 3 (id=3) on vogue, max 3\n"
    assert ok(crawl("crawl", "add", "--id", "2")).startswith("queued task 2: Beta Label (id=2)")
    assert ok(crawl("crawl", "add", "ALDER")).startswith("queued task 3: Alder (id=1)")


def test_a_second_task_is_refused_with_the_first_ones_id_unless_again(crawl: Rk) -> None:
    ok(crawl("brands", "add", "Alder"))
    assert ok(crawl("crawl", "add", "Alder", "--max-shows", "0")) == (
        "queued task 1: Alder (id=1) on vogue, every show\n"
    )
    refused(
        crawl("crawl", "add", "Alder"),
        "Alder (id=1) already has task 1 queued or running on vogue (--again queues another)",
    )
    assert ok(crawl("crawl", "add", "Alder", "--again")).startswith("queued task 2: Alder")
    ok(crawl("crawl", "cancel", "1"))
    ok(crawl("crawl", "cancel", "2"))
    assert ok(crawl("crawl", "add", "Alder")).startswith("queued task 3: Alder")
