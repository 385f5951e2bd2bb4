"""Page budgets: Lighthouse (mobile preset) and axe-core on every public page type.

A backend on the embedded default serves a small archive whose photos have the shape and
weight of runway originals (``--width`` x 1.5 ``--width``, 250-400 kB), so image bytes and
LCP are what a phone would see. Lighthouse 12.2.3 and axe-core come from the npm registry
(``bench/audit``, ``tests/browser/axe``; installed on first run). The originals are given
their rendition ladders the way an operator does it (``rk storage renditions``) before
anything is measured. Prints one row a page: Lighthouse performance and accessibility
scores (median of ``--runs`` and their range), LCP, TBT, CLS, total and image bytes, and
axe-core's violations (rules and nodes), with the machine's load average. Scores are
printed, never asserted: the machine is shared and Lighthouse's performance score moves
with its load.

    .venv/bin/python -m bench.page_audit [--width 1280] [--looks 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image as PILImage
from playwright.sync_api import sync_playwright

from rk.core.api.lookups import open_storage
from rk.core.api.plugins import new_plugin_manager
from rk.core.api.storage import Storage, StorageContext
from rk.server.platform.db.engine import close, connect
from tests.browser.conftest import ARGS, CHROMIUM, PHONE
from tests.browser.test_accessibility import AXE, violations
from tests.integration.public.archive import Archive, add_image, add_show
from tests.integration.spider.procs import RK, Backend, clean_env

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "bench" / "audit" / "node_modules" / ".bin" / "lighthouse"
SHOWS = (
    ("Acne Studios", "Spring 2025 Ready-to-Wear", "Paris", "2024-10-02"),
    ("Maison Aurèle", "Spring 2025 Ready-to-Wear", "Milan", "2024-09-20"),
    ("Zeta", "Fall 2024 Ready-to-Wear", "London", "2024-02-16"),
    ("Acne Studios", "Fall 2024 Ready-to-Wear", "Paris", "2024-03-01"),
)


def runway_photo(seed: int, width: int) -> bytes:
    """A JPEG of a runway original's shape and weight: a figure on a graded, grainy ground."""
    rng = np.random.default_rng(seed)
    height = width * 3 // 2
    y, x = np.mgrid[0:height, 0:width]
    ground = rng.integers(150, 230, 3)
    pixels = ground + (y[..., None] / height * 30) + rng.normal(0, 9, (height, width, 3))
    figure = (abs(x - width / 2) < width / 6) & (y > height / 8)
    pixels[figure] = rng.integers(20, 200, 3) + rng.normal(0, 14, (int(figure.sum()), 3))
    out = io.BytesIO()
    PILImage.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(out, "JPEG", quality=84)
    return out.getvalue()


async def fill(storage: Storage, looks: int, width: int) -> Archive:
    """The archive: four published shows of ``looks`` runway-weight looks each."""
    archive = Archive()
    for n, (brand, season, city, date) in enumerate(SHOWS):
        name = f"show-{n}"
        article = await add_show(
            storage, archive, name, brand=brand, season=season, city=city, date=date, looks=0
        )
        for position in range(1, looks + 1):
            data = runway_photo(n * 100 + position, width)
            image = await add_image(storage, article, "look", position, data, "runway")
            archive.images.setdefault(name, []).append(image)
    return archive


def make_renditions(backend: Backend) -> str:
    """Run ``rk storage renditions`` against the backend's data as an operator would; its
    last progress line (a loaded machine may take minutes: no short timeout)."""
    where = ("--config", str(backend.config), "--data-dir", str(backend.data_dir))
    done = subprocess.run(
        [RK, "storage", "renditions", *where],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=True,
        timeout=3600,
    )
    return done.stdout.splitlines()[-2]


def npm_ci(folder: Path) -> None:
    """Install a folder's pinned npm packages once."""
    if not (folder / "node_modules").exists():
        subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=folder, check=True)


def lighthouse(url: str, keep: Path | None = None) -> dict[str, float]:
    """One Lighthouse run (mobile preset): scores, LCP and bytes; the whole report is
    written to ``keep`` when given (its opportunities and diagnostics say what costs)."""
    done = subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            "--output-path=stdout",
            "--only-categories=performance,accessibility",
            f"--chrome-flags={' '.join(ARGS)}",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
        check=True,
        timeout=300,
    )
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        keep.write_text(done.stdout)
    report = json.loads(done.stdout)
    audits = report["audits"]
    items = audits["resource-summary"]["details"]["items"]
    sizes = {item["resourceType"]: item["transferSize"] for item in items}
    return {
        "performance": report["categories"]["performance"]["score"] * 100,
        "accessibility": report["categories"]["accessibility"]["score"] * 100,
        "lcp_s": audits["largest-contentful-paint"]["numericValue"] / 1000,
        "tbt_ms": audits["total-blocking-time"]["numericValue"],
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "total_kb": sizes.get("total", 0) / 1024,
        "image_kb": sizes.get("image", 0) / 1024,
    }


def axe_counts(base: str, paths: dict[str, str]) -> dict[str, tuple[int, int]]:
    """axe-core violations per page at phone width: (rules, nodes)."""
    axe = AXE.read_text()
    counts: dict[str, tuple[int, int]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_context(viewport=PHONE).new_page()
        for name, path in paths.items():
            page.goto(f"{base}{path}")
            found = violations(page, axe)
            counts[name] = (len(found), sum(v["count"] for v in found))
        browser.close()
    return counts


def load() -> str:
    """The machine's 1, 5 and 15 minute load averages and its cores, for the table's header."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--width", type=int, default=1280, help="original width in px")
    parser.add_argument("--looks", type=int, default=8, help="looks per show")
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page (median)")
    parser.add_argument("--reports", type=Path, help="keep each page's last Lighthouse report here")
    args = parser.parse_args()
    npm_ci(ROOT / "bench" / "audit")
    npm_ci(AXE.parents[2])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "backend"
        dsn = f"sqlite:///{root / 'data' / 'rk.sqlite3'}"
        backend = Backend(root, dsn).start()
        try:

            async def seeded() -> Archive:
                engine = await connect(dsn)
                try:
                    storage = open_storage(
                        f"file://{root / 'data' / 'media'}",
                        StorageContext(backend_url=backend.url),
                        new_plugin_manager(),
                    )
                    return await fill(storage, args.looks, args.width)
                finally:
                    await close(engine)

            archive = asyncio.run(seeded())
            print(make_renditions(backend))
            paths = {
                "home": "/",
                "show": f"/shows/{archive.shows['show-0']}",
                "image": f"/images/{archive.images['show-0'][0]}",
                "designer": f"/brands/{archive.brands['Acne Studios']}",
                "seasons": "/seasons",
                "season": "/seasons/spring-2025-ready-to-wear",
                "search": "/search",
            }
            counts = axe_counts(backend.url, paths)
            print(f"page audit: {len(SHOWS)} shows x {args.looks} looks, originals {args.width} px")
            print(f"{args.runs} Lighthouse runs a page (median, range); load {load()} before")
            print(
                f"{'page':<10} {'perf':>5} {'range':>7} {'a11y':>5} {'LCP s':>6} "
                f"{'TBT ms':>7} {'CLS':>6} {'total kB':>9} {'image kB':>9} "
                f"{'axe rules':>9} {'axe nodes':>9}"
            )
            for name, path in paths.items():
                keep = args.reports / f"{name}.json" if args.reports else None
                runs = [lighthouse(f"{backend.url}{path}", keep) for _ in range(args.runs)]
                mid = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                scores = [r["performance"] for r in runs]
                spread = f"{min(scores):.0f}-{max(scores):.0f}"
                rules, nodes = counts[name]
                print(
                    f"{name:<10} {mid['performance']:>5.0f} {spread:>7} "
                    f"{mid['accessibility']:>5.0f} {mid['lcp_s']:>6.2f} {mid['tbt_ms']:>7.0f} "
                    f"{mid['cls']:>6.3f} {mid['total_kb']:>9.0f} {mid['image_kb']:>9.0f} "
                    f"{rules:>9} {nodes:>9}"
                )
            print(f"load {load()} after")
        finally:
            backend.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
