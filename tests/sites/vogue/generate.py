"""Writes the synthetic Vogue Runway site under tests/sites/vogue (run: python generate.py).

Every brand, person and show here is invented. Most show pages have the real shape of
/work/shared/sources.md §4 (anchors in ``sectionHeader``, JSON-LD in ``head.jsonld``, items
with caption and ``url`` fragment); three keep the older shape (plain-text headers,
``lookNumber``) so the parser's fallbacks stay proven. Slideshow pages
(``…/slideshow/collection``) hold ``runwaymoment`` slides that link detail shots to looks and
name the model, at two different places in the state. Image URLs use ``{{BASE}}``, which the
local test server fills in.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.sites.vogue import pages
from tests.sites.vogue.pages import gallery, items, old_items

HERE = Path(__file__).parent
Show = tuple[str, dict[str, Any], str]


def aurele_fall() -> dict[str, Show]:
    """The big real-shape show: 60 looks, 24 details (22 linked), beauty and front row."""
    ma, fw = "maison-aurele", "fall-2031-ready-to-wear"
    state = pages.show_state(
        slug=ma,
        season=fw,
        designer="Maison Aurèle",
        season_title="Fall 2031 Ready-to-Wear",
        galleries=[
            gallery("collection", items(ma, fw, 60)),
            gallery("detail", items(ma, fw, 24, "detail")),
            gallery("beauty", items(ma, fw, 12, "beauty")),
            gallery("front-row", items(ma, fw, 8, "front-row")),
        ],
        published="2031-03-04T16:12:00.000-05:00",
        reviewers=("Harriet Vale", "Jonas Ekdahl"),
        pub_date="March 4, 2031",
    )
    return {f"{fw}/{ma}": ("Maison Aurèle Fall 2031 Ready-to-Wear", state, "")}


def aurele_fall_details(look: int) -> list[int]:
    """Details 1–22 belong two by two to looks 1, 4, 7, …, 31; details 23–24 to none."""
    first = (look - 1) // 3 * 2 + 1
    return [first, first + 1] if look % 3 == 1 and first <= 22 else []


def slideshows() -> dict[str, str]:
    """Slideshow pages by show key: slides found wherever they sit; one page unreadable."""
    out: dict[str, str] = {}
    ma, fw = "maison-aurele", "fall-2031-ready-to-wear"
    slides = [
        pages.runway_moment(
            ma, fw, n, aurele_fall_details(n), pages.MODELS[(n - 1) % 8], model_on_image=False
        )
        for n in range(1, 61)
    ]
    out[f"{fw}/{ma}"] = pages.page("Slideshow", pages.slideshow_state(slides, "nested"))
    va = "veyra-atelier"
    links = {2: [1, 2], 5: [3], 7: [4]}
    slides = [
        pages.runway_moment(va, fw, n, links.get(n, []), pages.MODELS[-n], model_on_image=True)
        for n in range(1, 9)
    ]
    out[f"{fw}/{va}"] = pages.page("Slideshow", pages.slideshow_state(slides, "flat"))
    kv, sp = "kestrel-vine", "sao-paolo-spring-2030"
    slides = [pages.runway_moment(kv, sp, n, [], pages.MODELS[n], False) for n in range(1, 5)]
    out[f"{sp}/{kv}"] = pages.page("Slideshow", pages.slideshow_state(slides, "nested"))
    broken = '<html><script>window.__PRELOADED_STATE__ = {"transformed": {"gal</script></html>\n'
    out[f"spring-2031-menswear/{kv}"] = broken
    return out


def real_shows() -> dict[str, Show]:
    """The other real-shape shows (a new designer, cities, numbering, holes, a paywall)."""
    out: dict[str, Show] = {}
    fw, va = "fall-2031-ready-to-wear", "veyra-atelier"
    out[f"{fw}/{va}"] = (
        "Veyra Atelier Fall 2031 Ready-to-Wear",
        pages.show_state(
            slug=va,
            season=fw,
            designer="Veyra Atelier",
            season_title="Fall 2031 Ready-to-Wear",
            galleries=[
                gallery("collection", items(va, fw, 8)),
                gallery("detail", items(va, fw, 4, "detail")),
            ],
            published="2031-03-06T10:30:00.000+01:00",
            reviewers=("Jonas Ekdahl",),
        ),
        "",
    )
    kv = "kestrel-vine"
    for season, title, looks, details, published in (
        ("copenhagen-fall-2031", "Copenhagen Fall 2031", 8, 3, ""),
        ("spring-2031-menswear", "Spring 2031 Menswear", 6, 2, "2030-06-20T09:00:00.000Z"),
        ("sao-paolo-spring-2030", "São Paolo Spring 2030", 4, 0, "2029-10-02T12:00:00.000-03:00"),
    ):
        galleries = [gallery("collection", items(kv, season, looks))]
        if details:
            galleries.append(gallery("detail", items(kv, season, details, "detail")))
        out[f"{season}/{kv}"] = (
            f"Kestrel & Vine {title}",
            pages.show_state(
                slug=kv,
                season=season,
                designer="Kestrel & Vine",
                season_title=title,
                galleries=galleries,
                published=published,
                reviewers=("Sabine Roux",),
                pub_date="February 1, 2031",
            ),
            "",
        )
    ss, hc = "spring-2031-ready-to-wear", "halden-company"
    numbered = items(hc, ss, 6)
    del numbered[2]["url"]  # look 3: the caption says it (with markup)
    numbered[2]["caption"] = "<em>Look</em>&nbsp;3"
    numbered[3]["url"] = f"/fashion-shows/{ss}/{hc}/slideshow/collection"  # look 4: position
    numbered[3]["caption"] = ""
    numbered[4]["caption"] = "Look 50"  # look 5: the url fragment wins over the caption
    out[f"{ss}/{hc}"] = (
        "Halden & Co. Spring 2031 Ready-to-Wear",
        pages.show_state(
            slug=hc,
            season=ss,
            designer="Halden & Co.",
            season_title="Spring 2031 Ready-to-Wear",
            galleries=[gallery("collection", numbered)],
            published="2030-09-20T14:00:00.000-04:00",
            reviewers=("Harriet Vale",),
        ),
        "",
    )
    pq = "paloma-quintero"
    out[f"{fw}/{pq}"] = (
        "Paloma Quintero Fall 2031 Ready-to-Wear",
        pages.show_state(
            slug=pq,
            season=fw,
            designer="Paloma Quintero",
            season_title="Fall 2031 Ready-to-Wear",
            galleries=[],
            restricted=True,
        ),
        "",
    )
    holes = items(pq, ss, 10)
    del holes[2]["image"]  # look 3: no image
    del holes[4]["image"]["sources"]  # look 5: image without sources
    holes[5]["image"]["sources"] = {}  # look 6: no rendition at all
    out[f"{ss}/{pq}"] = (
        "Paloma Quintero Spring 2031 Ready-to-Wear",
        pages.show_state(
            slug=pq,
            season=ss,
            designer="Paloma Quintero",
            season_title="Spring 2031 Ready-to-Wear",
            galleries=[gallery("collection", holes)],
            published="2030-09-28T18:00:00.000Z",
            reviewers=("Sabine Roux",),
        ),
        "",
    )
    return out


def old_shows() -> dict[str, Show]:
    """Shows in the older shape, proving the fallbacks."""
    out: dict[str, Show] = {}
    ma, ss = "maison-aurele", "spring-2031-ready-to-wear"
    mixed = old_items(ma, ss, 12)
    del mixed[1]["image"]["sources"]["xxl"]  # look 2: the largest left is xl
    mixed[3]["image"] = pages.image(
        f"{ma}/{ss}/collection/4", pages.file_name(ma, ss, "collection", 4), ("md",), "%2C", True
    )
    mixed[6]["lookNumber"] = 7  # a number, not a string: still look 7
    out[f"{ss}/{ma}"] = (
        "Maison Aurèle Spring 2031 Ready-to-Wear",
        pages.old_show_state(
            "Maison Aurèle",
            "<span>Spring 2031</span> Ready-to-Wear",
            [gallery("collection", mixed)],
            designersDek='Creative director: <a href="/people/ines-marlowe">Inès Marlowe</a>',
            pubDate="March 9, 2031",
            contributors={
                "author": {"items": [{"name": "Harriet Vale"}, {"name": "Jonas Ekdahl"}]}
            },
        ),
        "",
    )
    hc = "halden-company"
    resort = old_items(hc, "resort-2031", 5)
    for item in resort:
        del item["lookNumber"]  # numbered by position
    out[f"resort-2031/{hc}"] = (
        "Halden & Co. Resort 2031",
        pages.old_show_state(
            "Halden & Co.",
            "Resort 2031",
            [{"title": "Collection", "items": resort}],
            eventDate="TBA",
        ),
        "",
    )
    pq = "paloma-quintero"
    tokyo = pages.old_show_state(
        "Paloma Quintero",
        "Tokyo Spring 2031",
        [gallery("collection", old_items(pq, "tokyo-spring-2031", 5))],
        eventDate="2030-10-14T11:00:00.000Z",
        review=[
            "p",
            f"Doors at 8; lights out at 9{pages.SCRIPT_END} and a standing ovation; {{brace}}",
        ],
    )
    out[f"tokyo-spring-2031/{pq}"] = (
        "Paloma Quintero Tokyo Spring 2031",
        tokyo,
        'window.__APOLLO_STATE__ = {"a": ";"};',
    )
    return out


def seasons() -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Season pages by slug: the season's name and every show's (designer, slug)."""
    return {
        "fall-2031-ready-to-wear": (
            "Fall 2031 Ready-to-Wear",
            [
                ("Maison Aurèle", "maison-aurele"),
                ("Paloma Quintero", "paloma-quintero"),
                ("Veyra Atelier", "veyra-atelier"),
            ],
        ),
        "spring-2031-ready-to-wear": (
            "Spring 2031 Ready-to-Wear",
            [
                ("Halden & Co.", "halden-company"),
                ("Maison Aurèle", "maison-aurele"),
                ("Paloma Quintero", "paloma-quintero"),
            ],
        ),
    }


def designers() -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Designer pages by slug: display name and shows newest first. Pre-Fall 2031 is a 404."""

    def link(season: str, slug: str) -> str:
        return f"/fashion-shows/{season}/{slug}"

    return {
        "maison-aurele": (
            "Maison Aurèle",
            [
                ("Fall 2031 Ready-to-Wear", link("fall-2031-ready-to-wear", "maison-aurele")),
                ("Pre-Fall 2031", link("pre-fall-2031", "maison-aurele")),
                ("Spring 2031 Ready-to-Wear", link("spring-2031-ready-to-wear", "maison-aurele")),
            ],
        ),
        "halden-company": (
            "Halden & Co.",
            [
                ("Resort 2031", f"{{{{BASE}}}}{link('resort-2031', 'halden-company')}"),
                ("Spring 2031 Ready-to-Wear", link("spring-2031-ready-to-wear", "halden-company")),
            ],
        ),
        "kestrel-vine": (
            "Kestrel & Vine",
            [
                ("Copenhagen Fall 2031", link("copenhagen-fall-2031", "kestrel-vine")),
                ("Spring 2031 Menswear", link("spring-2031-menswear", "kestrel-vine")),
                ("São Paolo Spring 2030", link("sao-paolo-spring-2030", "kestrel-vine")),
            ],
        ),
        "odalys-north": ("Odalys North", []),
        "paloma-quintero": (
            "Paloma Quintero",
            [
                ("Fall 2031 Ready-to-Wear", link("fall-2031-ready-to-wear", "paloma-quintero")),
                ("Tokyo Spring 2031", link("tokyo-spring-2031", "paloma-quintero")),
                ("Spring 2031 Ready-to-Wear", link("spring-2031-ready-to-wear", "paloma-quintero")),
            ],
        ),
    }


def build(root: Path) -> dict[Path, str]:
    """Every file of the site, by path under ``root``."""
    shows = root / "fashion-shows"
    files = {shows / "designers.html": pages.page("Designers A–Z", pages.az_state())}
    for slug, (name, listed) in designers().items():
        files[shows / "designer" / f"{slug}.html"] = pages.page(
            name, pages.designer_state(name, listed)
        )
    for slug, (name, listed) in seasons().items():
        files[shows / slug / "index.html"] = pages.page(
            name, pages.season_state(name, slug, listed)
        )
    for key, (title, state, tail) in (aurele_fall() | real_shows() | old_shows()).items():
        files[shows / f"{key}.html"] = pages.page(title, state, tail)
    for key, text in slideshows().items():
        files[shows / key / "slideshow" / "collection.html"] = text
    return files


def main() -> None:
    for path, text in build(HERE).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
