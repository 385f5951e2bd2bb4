"""A Vogue-shaped site with a known ground truth, and the faults a real site has.

Built from the same page builders as ``tests/sites/vogue`` (real page shape), drawn from the
run's seed: several brands, each with one or two shows of 20–60 looks and a few detail
shots, some photos answering 404, one subscriber-only show, some slow photos. Every photo is
a distinct JPEG keyed by its photo id (every rendition of a photo is the same bytes). The
site can answer 429 (with Retry-After) or 503 to everything for a while.
"""

from __future__ import annotations

import random
import re
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.integration.spider.photos import PhotoSite
from tests.sites.vogue import pages

SEASONS = (
    ("fall-2031-ready-to-wear", "Fall 2031 Ready-to-Wear", "2031-03-04T16:12:00.000-05:00"),
    ("spring-2031-ready-to-wear", "Spring 2031 Ready-to-Wear", "2030-09-30T11:00:00.000-04:00"),
)
BRANDS = (
    "Aurelian Vey",
    "Brisk Meridian",
    "Calloway Rue",
    "Dunmore Saint",
    "Esker Hollis",
    "Fenwick Lys",
)
PHOTO_ID = re.compile(r"^/photos/([0-9a-f]{24})/")


@dataclass
class ShowTruth:
    """One show as the site serves it: which photos exist, which are missing (404)."""

    key: str
    brand: str
    looks: int
    details: int
    missing_looks: list[int] = field(default_factory=list)
    paywalled: bool = False

    def photo(self, role: str, n: int) -> str:
        """The photo id of look or detail ``n``."""
        season, slug = self.key.split("/")
        kind = "collection" if role == "look" else "detail"
        return pages.photo_id(pages.image_seed(slug, season, kind, n))

    def served(self) -> set[str]:
        """Photo ids the site answers with an image."""
        looks = {self.photo("look", n) for n in range(1, self.looks + 1)}
        looks -= {self.photo("look", n) for n in self.missing_looks}
        return looks | {self.photo("detail", n) for n in range(1, self.details + 1)}


@dataclass
class GroundTruth:
    """Every brand (name → slug) and show of the site; ``slow`` photo ids answer late."""

    brands: dict[str, str]
    shows: list[ShowTruth]
    slow: set[str]

    def archivable(self) -> list[ShowTruth]:
        """The shows that must end in the archive (not the subscriber-only one)."""
        return [show for show in self.shows if not show.paywalled]

    def missing(self) -> set[str]:
        """Photo ids that answer 404."""
        return {s.photo("look", n) for s in self.shows for n in s.missing_looks}


def draw(rng: random.Random, brands: int = 6) -> GroundTruth:
    """A ground truth from ``rng``: 20–60 looks per show, one paywalled show, some 404s."""
    names = list(BRANDS[:brands])
    slugs = {name: name.lower().replace(" ", "-") for name in names}
    shows: list[ShowTruth] = []
    for name in names:
        for season, _, _ in SEASONS[: rng.choice((1, 2))]:
            show = ShowTruth(
                f"{season}/{slugs[name]}", name, rng.randint(20, 60), rng.randint(0, 6)
            )
            if rng.random() < 0.5:
                show.missing_looks = sorted(rng.sample(range(1, show.looks + 1), rng.randint(1, 2)))
            shows.append(show)
    rng.choice(shows[1:]).paywalled = True
    photos = sorted(p for s in shows if not s.paywalled for p in s.served())
    return GroundTruth(brands=slugs, shows=shows, slow=set(rng.sample(photos, 6)))


def write_site(truth: GroundTruth, root: Path) -> None:
    """The designer and show pages of ``truth`` under ``root``."""
    titles = {season: (title, published) for season, title, published in SEASONS}
    for name, slug in truth.brands.items():
        mine = [s for s in truth.shows if s.brand == name]
        listed = [
            (titles[s.key.split("/")[0]][0], f"/fashion-shows/{s.key}")
            for s in sorted(mine, key=lambda s: s.key)
        ]
        designer = root / "fashion-shows" / "designer" / f"{slug}.html"
        designer.parent.mkdir(parents=True, exist_ok=True)
        designer.write_text(pages.page(name, pages.designer_state(name, listed)), "utf-8")
        for show in mine:
            season = show.key.split("/")[0]
            title, published = titles[season]
            galleries = [pages.gallery("collection", pages.items(slug, season, show.looks))]
            if show.details:
                galleries.append(
                    pages.gallery("detail", pages.items(slug, season, show.details, "detail"))
                )
            state = pages.show_state(
                slug=slug,
                season=season,
                designer=name,
                season_title=title,
                galleries=galleries,
                published=published,
                reviewers=("Harriet Vale",),
                restricted=show.paywalled,
            )
            path = root / "fashion-shows" / season / f"{slug}.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(pages.page(f"{name} {title}", state), "utf-8")


class FaultySite(PhotoSite):
    """The ground truth's pages and photos, with 404s, slow photos and outage windows."""

    def __init__(self, truth: GroundTruth, slow_s: float = 3.0) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rk-system-site-"))
        write_site(truth, self.dir)
        super().__init__(self.dir, photo_size=(64, 96))
        self.truth = truth
        self.slow_s = slow_s
        self._missing = truth.missing()
        self._outage: tuple[int, float] | None = None
        self._outage_lock = threading.Lock()
        self.outage_answers = 0
        # A client killed or timed out mid-answer is part of the run, not an error to print.
        self._server.handle_error = lambda request, client_address: None

    def outage(self, status: int, seconds: float) -> None:
        """Answer ``status`` to every request for ``seconds`` (429 with Retry-After: 2)."""
        with self._outage_lock:
            self._outage = (status, time.monotonic() + seconds)

    def photo(self, path: str) -> bytes:
        """One JPEG per photo id, whatever the rendition."""
        match = PHOTO_ID.match(path)
        return super().photo(match.group(1) if match else path)

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        with self._outage_lock:
            outage = self._outage
            if outage and time.monotonic() >= outage[1]:
                outage = self._outage = None
            if outage:
                self.outage_answers += 1
        if outage:
            headers = {"Retry-After": "2"} if outage[0] == 429 else {}
            return outage[0], headers, b"busy"
        match = PHOTO_ID.match(path)
        if match and match.group(1) in self._missing:
            return 404, {}, b"not found"
        if match and match.group(1) in self.truth.slow:
            time.sleep(self.slow_s)
        return super().answer(path, query)


def photo_of(url: str) -> str | None:
    """The photo id in a site URL (an image row's ``source_url``)."""
    path = "/" + url.split("://", 1)[-1].split("/", 1)[-1]
    match = PHOTO_ID.match(path)
    return match.group(1) if match else None
