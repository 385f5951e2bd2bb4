"""``rk crawl add-season``: a whole season queued in one command, on both database engines.

The season page comes from the synthetic Vogue site over HTTP; brands that are missing are
created with their slug, and each task is for the brand's show of that season.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rk.cli.main import app
from rk.core.api.lookups import source_registry
from tests.integration.spider.photos import PhotoSite
from tests.support.net import free_port

Rk = Callable[..., Result]
FW = "fall-2031-ready-to-wear"


def runner_for(dsn: str, data: Path, base_url: str) -> Rk:
    runner = CliRunner()
    env = {
        "RK_DATABASE": dsn,
        "RK_DATA_DIR": str(data),
        "RK_SOURCES": f"{{vogue: {{base_url: '{base_url}'}}}}",
        "RK_SPIDER_MIN_INTERVAL_S": "0",
        "RK_SPIDER_RETRIES": "0",
    }

    def run(*args: str) -> Result:
        return runner.invoke(app, list(args), env=env)

    return run


@pytest.fixture
def rk(any_dsn: str, tmp_path: Path, site: PhotoSite) -> Rk:
    """``rk ARGS`` against the database under test and the local Vogue site."""
    return runner_for(any_dsn, tmp_path / "data", site.base_url)


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.stderr
    return result.stdout


def refused(result: Result, message: str, code: int = 2) -> None:
    assert result.exit_code == code, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert re.fullmatch(f"error: {message}", lines[0]), lines[0]


def test_a_season_queues_one_task_per_brand_and_creates_missing_brands(
    rk: Rk, site: PhotoSite
) -> None:
    ok(rk("brands", "add", "Maison Aurèle"))
    ok(rk("brands", "add", "Paloma Quintero", "--slug", "vogue=paloma-q"))
    out = ok(rk("crawl", "add-season", "vogue", FW, "--priority", "2"))
    assert out.splitlines() == [
        "queued task 1: Maison Aurèle",
        "queued task 2: Paloma Quintero",
        "queued task 3: Veyra Atelier",
        f"queued 3 tasks for {FW} on vogue (1 brands created, 0 already queued); kept their "
        "own vogue slug: Paloma Quintero (paloma-q, listed paloma-quintero)",
    ]
    assert site.paths() == ["/robots.txt", f"/fashion-shows/{FW}"]  # robots.txt obeyed first
    brands = ok(rk("brands", "list"))
    assert re.search(r"Maison Aurèle\s+vogue=maison-aurele", brands)
    assert re.search(r"Paloma Quintero\s+vogue=paloma-q$", brands, re.MULTILINE)
    assert re.search(r"Veyra Atelier\s+vogue=veyra-atelier", brands)
    listing = ok(rk("crawl", "list")).splitlines()
    assert [re.split(r"\s{2,}", line.strip())[:6] for line in listing[1:]] == [
        ["3", "queued", "Veyra Atelier", "vogue", "0", FW],
        ["2", "queued", "Paloma Quintero", "vogue", "0", FW],
        ["1", "queued", "Maison Aurèle", "vogue", "0", FW],
    ]

    again = ok(rk("crawl", "add-season", "vogue", FW))
    assert again.splitlines()[-1].startswith(
        f"queued 0 tasks for {FW} on vogue (0 brands created, 3 already queued)"
    )
    other = ok(rk("crawl", "add-season", "vogue", "spring-2031-ready-to-wear"))
    assert other.splitlines()[-1].startswith(
        "queued 3 tasks for spring-2031-ready-to-wear on vogue (1 brands created"
    )  # Halden & Co. is new; a task per season, so Maison Aurèle gets a second one


def test_bad_seasons_and_sources_exit_with_one_line_and_queue_nothing(
    rk: Rk, site: PhotoSite, any_dsn: str, tmp_path: Path
) -> None:
    refused(
        rk("crawl", "add-season", "vogue", "Fall 2031"),
        r"season 'Fall 2031' is not a season slug .*",
    )
    refused(
        rk("crawl", "add-season", "vogue", "fall-2099-couture"),
        rf"vogue: no season 'fall-2099-couture': {site.base_url}/fashion-shows/fall-2099-couture"
        " answered HTTP 404",
    )
    refused(
        rk("crawl", "add-season", "theimpression", FW),
        "theimpression cannot list a season's shows",
    )
    refused(
        rk("crawl", "add-season", "nope", FW),
        f"no source named 'nope'; available: {', '.join(source_registry().names())}",
    )
    down = runner_for(any_dsn, tmp_path / "data", f"http://127.0.0.1:{free_port()}")
    refused(down("crawl", "add-season", "vogue", FW), r"vogue: GET .* failed: ConnectError.*", 1)
    assert ok(rk("crawl", "list")) == "no crawl tasks\n"
    assert "Veyra" not in ok(rk("brands", "list"))  # no brand created either
