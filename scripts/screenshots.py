"""Screenshots of rk's pages at desktop (1280 px) and phone (390 px) width.

    python -m scripts.screenshots [--out docs/screenshots] [--only admin|public]

Runs what an operator runs — ``rk serve-backend`` on the embedded default in a temporary
directory — with a local image server, seeds the shared demo archive through the signed
ingest API (``shots/archive.py``), lets each page set seed what it needs and list its
pages (``shots/admin.py``, ``shots/public.py``), and shoots each page in headless
Chromium (Debian's, via Playwright; no browser download). A module that needs a signed-in
browser defines ``sign_in(page, world)``; its shots use that context.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, sync_playwright

from scripts.shots import archive
from scripts.shots.world import World, image_server

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
PARTS = ("admin", "public")


def shoot(browser: Browser, world: World, part: str, out: Path) -> list[Path]:
    """Seed ``part``, then shoot each of its pages at both widths; the files written."""
    module = importlib.import_module(f"scripts.shots.{part}")
    module.seed(world)
    written: list[Path] = []
    for width, viewport in WIDTHS.items():
        context: BrowserContext = browser.new_context(viewport=viewport)
        page = context.new_page()
        if hasattr(module, "sign_in"):
            module.sign_in(page, world)
        for shot in module.pages(world):
            page.goto(f"{world.url}{shot.path}", wait_until="networkidle")
            if shot.before is not None:
                shot.before(page)
            target = out / f"{part}-{shot.name}-{width}.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        context.close()
    return written


def main(argv: list[str] | None = None) -> int:
    """Parse the options, build the world, write the screenshots; 2 on bad options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/screenshots", help="folder for the PNG files")
    parser.add_argument("--only", choices=PARTS, help="only this set of pages")
    options = parser.parse_args(argv)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    parts = [options.only] if options.only else list(PARTS)
    with tempfile.TemporaryDirectory(prefix="rk-shots-") as tmp:
        world = World(root=Path(tmp), photos={})
        with image_server(world.photos) as image_base:
            world.start(image_base)
            try:
                archive.seed(world)
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                    for part in parts:
                        for path in shoot(browser, world, part, out):
                            print(f"wrote {path}")
                    browser.close()
            finally:
                world.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
