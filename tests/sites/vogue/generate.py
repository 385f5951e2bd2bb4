"""Writes the synthetic Vogue Runway site under tests/sites/vogue (run: python generate.py).

Every brand, person and show here is invented. The pages follow the structure described in
/work/shared/sources.md §1: server-rendered HTML whose data sits in
``window.__PRELOADED_STATE__`` (with ``/`` escaped as ``\\u002F``), found by marker among
other scripts. Image URLs use ``{{BASE}}``, which the local test server fills in.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
WIDTHS = {"sm": 360, "md": 640, "lg": 1280, "xl": 1600, "xxl": 2560}
SCRIPT_END = "@@SCRIPT_END@@"


def photo_id(seed: str) -> str:
    """A stable 24-hex photo id, like Vogue's Mongo-style ids."""
    return hashlib.sha1(seed.encode()).hexdigest()[:24]


def rendition(pid: str, width: int, filename: str, comma: str = ",") -> dict[str, Any]:
    url = f"{{{{BASE}}}}/photos/{pid}/master/w_{width}{comma}c_limit/{filename}"
    return {"aspectRatio": "master", "width": width, "height": width * 3 // 2, "url": url}


def image(
    seed: str, filename: str, keys: tuple[str, ...] = tuple(WIDTHS), comma: str = ","
) -> dict:
    """An image object shaped like a Verso photo: id, texts and renditions sm…xxl."""
    pid = photo_id(seed)
    sources = {key: rendition(pid, WIDTHS[key], filename, comma) for key in keys}
    return {
        "id": pid,
        "contentType": "photo",
        "altText": "Image may contain Clothing Apparel Human Person Fashion",
        "credit": "Photo: Invented Runway Agency",
        "caption": "",
        "modelName": "",
        "sources": sources,
        "segmentedSources": {
            "sm": [sources[k] for k in keys[:1]],
            "lg": [sources[k] for k in keys[-1:]],
        },
    }


def items(designer: str, season: str, count: int, kind: str = "") -> list[dict[str, Any]]:
    """``count`` gallery items with string look numbers and an image each."""
    middle = f"-{kind}" if kind else ""
    out = []
    for n in range(1, count + 1):
        name = f"{n:05d}-{designer}-{season}{middle}-credit-gorunway.jpg"
        out.append(
            {
                "caption": "",
                "lookNumber": str(n),
                "image": image(f"{designer}/{season}/{kind}/{n}", name),
            }
        )
    return out


def gallery(kind: str, title: str, gallery_items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": f"gallery-{kind}", "title": title, "items": gallery_items}


def noise(count: int) -> dict[str, Any]:
    """Unrelated state a real page carries (navigation, tracking), for a realistic size."""
    links = [{"text": f"Story {n}", "url": f"/article/story-{n}", "rank": n} for n in range(count)]
    return {
        "coreDataLayer": {"content": {"contentType": "runway", "functionalTags": ["runway"] * 4}},
        "navigation": {"links": links, "footer": [{"text": "Privacy; Terms", "url": "/privacy"}]},
        "ads": {"slots": [{"id": f"ad-{n}", "sizes": [[300, 250], [728, 90]]} for n in range(40)]},
    }


def page(title: str, state: dict[str, Any], tail: str = "") -> str:
    """A server-rendered page: a few scripts, then the state assignment, then more scripts."""
    blob = json.dumps(state, ensure_ascii=False, separators=(",", ":")).replace("/", "\\u002F")
    blob = blob.replace(SCRIPT_END, "</script>")
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">'
        f"<title>{title} | Vogue</title>\n"
        '<script type="text/javascript">window.dataLayer = window.dataLayer || [];</script>\n'
        '<script type="text/javascript">if (window.__PRELOADED_STATE__) { window.hydrate = 1; }'
        "</script>\n"
        f'<script type="text/javascript">window.__PRELOADED_STATE__ = {blob};{tail}</script>\n'
        '<script type="text/javascript">window.__TRACKING__ = {"page": "runway"};</script>\n'
        f'</head><body><div id="app"><h1>{title}</h1></div></body></html>\n'
    )


def show_state(
    brand: str, season_title: str, galleries: list[dict[str, Any]], **content: Any
) -> dict:
    """The state of a show page."""
    restricted = content.pop("restricted", False)
    show = {
        "brand": brand,
        "sectionHeader": {"hed": brand, "subHed": season_title},
        "designersDek": "",
        "contributors": {"author": {"items": [{"name": "Harriet Vale"}]}},
        "review": ["div", ["p", "A season of quiet tailoring; nothing shouted."]],
    } | content
    return {
        **noise(120),
        "transformed": {
            "access": {"contentRestricted": restricted},
            "runwayShowContent": show,
            "runwayShowGalleries": {"galleries": galleries},
        },
    }


def designer_state(name: str, shows: list[tuple[str, str]]) -> dict[str, Any]:
    """The state of a designer page: shows newest first as ``(hed, url)``."""
    collections = [
        {
            "hed": hed,
            "url": url,
            "image": {"sources": {"md": {"url": f"{{{{BASE}}}}/photos/cover{n}.jpg"}}},
        }
        for n, (hed, url) in enumerate(shows)
    ]
    content = {
        "name": name,
        "body": ["p", f"{name} is an invented label."],
        "designerCollections": collections,
    }
    return {**noise(20), "transformed": {"runwayDesignerContent": content}}


def az_state() -> dict[str, Any]:
    """The A–Z page: groups of UPPERCASE names; KESTREL & VINE has no url (slugified)."""
    groups = {
        "H": [{"text": "HALDEN & CO.", "url": "/fashion-shows/designer/halden-company"}],
        "K": [{"text": "KESTREL & VINE"}],
        "M": [{"text": "MAISON AURÈLE", "url": "/fashion-shows/designer/maison-aurele"}],
        "O": [{"text": "ODALYS NORTH", "url": "/fashion-shows/designer/odalys-north"}],
        "P": [{"text": "PALOMA QUINTERO", "url": "/fashion-shows/designer/paloma-quintero"}],
        "Z": [{"text": "ZÉPHYRINE LOOM", "url": "/fashion-shows/designer/zephyrine-loom"}],
    }
    grouped = [{"title": letter, "links": links} for letter, links in groups.items()]
    return {**noise(60), "transformed": {"allRunwayDesigners": {"groupedLinks": grouped}}}


def shows() -> dict[str, tuple[str, dict[str, Any], str]]:
    """Show pages by ``season/designer``: (title, state, text after the assignment)."""
    out: dict[str, tuple[str, dict[str, Any], str]] = {}
    ma, fw = "maison-aurele", "fall-2031-ready-to-wear"
    out[f"{fw}/{ma}"] = (
        "Maison Aurèle Fall 2031 Ready-to-Wear",
        show_state(
            "Maison Aurèle",
            "<span>Fall 2031</span> Ready-to-Wear",
            [
                gallery("collection", "Collection", items(ma, fw, 60)),
                gallery("detail", "Details", items(ma, fw, 24, "detail")),
                gallery("beauty", "Beauty", items(ma, fw, 12, "beauty")),
                gallery("front-row", "Front Row", items(ma, fw, 8, "front-row")),
            ],
            designersDek='Creative director: <a href="/people/ines-marlowe">Inès Marlowe</a>',
            eventDate="2031-03-04T19:00:00.000Z",
            pubDate="2031-03-04T21:12:00.000Z",
            contributors={
                "author": {"items": [{"name": "Harriet Vale"}, {"name": "Jonas Ekdahl"}]}
            },
        ),
        "",
    )
    ss = "spring-2031-ready-to-wear"
    mixed = items(ma, ss, 12)
    del mixed[1]["image"]["sources"]["xxl"]  # look 2: the largest left is xl
    mixed[3]["image"] = image(
        f"{ma}/{ss}/4", f"00004-{ma}-{ss}-credit-gorunway.jpg", ("md",), "%2C"
    )
    mixed[6]["lookNumber"] = 7  # a number, not a string: still look 7
    out[f"{ss}/{ma}"] = (
        "Maison Aurèle Spring 2031 Ready-to-Wear",
        show_state(
            "Maison Aurèle",
            "Spring 2031 Ready-to-Wear",
            [gallery("collection", "Collection", mixed)],
            pubDate="March 9, 2031",
        ),
        "",
    )
    hc = "halden-company"
    out[f"{ss}/{hc}"] = (
        "Halden & Co. Spring 2031 Ready-to-Wear",
        show_state(
            "Halden & Co.",
            "Spring 2031 Ready-to-Wear",
            [gallery("collection", "Collection", items(hc, ss, 6))],
            eventDate="2030-09-20",
        ),
        "",
    )
    resort = items(hc, "resort-2031", 5)
    for item in resort:
        del item["lookNumber"]  # numbered by position
    out[f"resort-2031/{hc}"] = (
        "Halden & Co. Resort 2031",
        show_state(
            "Halden & Co.",
            "Resort 2031",
            [{"title": "Collection", "items": resort}],
            eventDate="TBA",
        ),
        "",
    )
    kv = "kestrel-vine"
    for season, title, count in (
        ("copenhagen-fall-2031", "Copenhagen Fall 2031", 8),
        ("spring-2031-menswear", "Spring 2031 Menswear", 6),
        ("sao-paolo-spring-2030", "São Paolo Spring 2030", 4),
    ):
        out[f"{season}/{kv}"] = (
            f"Kestrel & Vine {title}",
            show_state(
                "Kestrel & Vine",
                title,
                [gallery("collection", "Collection", items(kv, season, count))],
                eventDate="2031-02-01T10:00:00.000Z",
            ),
            "",
        )
    pq = "paloma-quintero"
    out[f"{fw}/{pq}"] = (
        "Paloma Quintero Fall 2031 Ready-to-Wear",
        show_state("Paloma Quintero", "Fall 2031 Ready-to-Wear", [], restricted=True),
        "",
    )
    holes = items(pq, ss, 10)
    del holes[2]["image"]  # look 3: no image
    del holes[4]["image"]["sources"]  # look 5: image without sources
    holes[5]["image"]["sources"] = {}  # look 6: no rendition at all
    out[f"{ss}/{pq}"] = (
        "Paloma Quintero Spring 2031 Ready-to-Wear",
        show_state(
            "Paloma Quintero",
            "Spring 2031 Ready-to-Wear",
            [gallery("collection", "Collection", holes)],
            eventDate="2030-09-28T18:00:00.000Z",
        ),
        "",
    )
    tokyo = show_state(
        "Paloma Quintero",
        "Tokyo Spring 2031",
        [gallery("collection", "Collection", items(pq, "tokyo-spring-2031", 5))],
        eventDate="2030-10-14T11:00:00.000Z",
        review=["p", f"Doors at 8; lights out at 9{SCRIPT_END} and a standing ovation; {{brace}}"],
    )
    out[f"tokyo-spring-2031/{pq}"] = (
        "Paloma Quintero Tokyo Spring 2031",
        tokyo,
        'window.__APOLLO_STATE__ = {"a": ";"};',
    )
    return out


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
    files = {root / "fashion-shows" / "designers.html": page("Designers A–Z", az_state())}
    for slug, (name, listed) in designers().items():
        files[root / "fashion-shows" / "designer" / f"{slug}.html"] = page(
            name, designer_state(name, listed)
        )
    for key, (title, state, tail) in shows().items():
        files[root / "fashion-shows" / f"{key}.html"] = page(title, state, tail)
    return files


def main() -> None:
    for path, text in build(HERE).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
