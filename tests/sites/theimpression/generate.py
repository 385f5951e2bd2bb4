"""Writes the synthetic The Impression site under tests/sites/theimpression.

Run ``python generate.py``. Every post, person and photo here is invented. The shapes follow
/work/shared/sources.md §2: WordPress permalinks at the root, uploads under
``/wp-content/uploads/YYYY/MM/`` with ``-WxH``/``-scaled`` copies, the image CDN
(``{{CDN}}``, a second host name of the local server), the REST API
(``wp-json/posts-N.json``, routed by the tests with paging headers), the RSS feed and
listing pages. The same body HTML goes into every route so they can be compared.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).parent
PER_PAGE = 4  # REST posts per page file
FEED_SIZE = 5
LISTING = ((1, 2, 3), (4, 5, 6), (7,))  # post numbers on /, /page/2/, /page/3/
PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
CEST = timezone(timedelta(hours=2))
CATEGORY_IDS = {"Street Style": 11, "Fashion News": 12, "Runway": 13}


@dataclass
class Post:
    number: int
    slug: str
    title: str  # as WordPress renders it (entities kept)
    date: datetime
    categories: list[str]
    body: str
    tags: list[str] = field(default_factory=list)


def media_id(name: str) -> int:
    """A stable WordPress attachment id for an image name."""
    return int(hashlib.md5(name.encode()).hexdigest()[:4], 16)


def upload(name: str, suffix: str = "") -> str:
    return f"{{{{BASE}}}}/wp-content/uploads/2030/10/{name}{suffix}.jpg"


def figure(name: str) -> str:
    """A block-editor image: a mid-size src and a srcset up to the -scaled copy."""
    srcset = ", ".join(
        [
            f"{upload(name, '-683x1024')} 683w",
            f"{upload(name, '-200x300')} 200w",
            f"{upload(name, '-1365x2048')} 1365w",
            f"{upload(name, '-scaled')} 1707w",
        ]
    )
    return (
        '<figure class="wp-block-image size-large">'
        '<img decoding="async" width="683" height="1024" '
        f'src="{upload(name, "-683x1024")}" alt="" class="wp-image-{media_id(name)}" '
        f'srcset="{srcset}" sizes="(max-width: 683px) 100vw, 683px" /></figure>'
    )


def lazy(name: str, style: str) -> str:
    """A lazy-loaded image: placeholder src, real URLs in data-* and a noscript copy."""
    mid, big = upload(name, "-1024x1536"), upload(name, "-1366x2048")
    if style == "data-src":
        return (
            f'<p><img src="{PLACEHOLDER}" data-src="{mid}" '
            f'data-srcset="{upload(name, "-683x1024")} 683w, {mid} 1024w, {big} 1366w" '
            'class="lazyload" alt="" />'
            f'<noscript><img src="{mid}" alt="" /></noscript></p>'
        )
    return (
        f'<p><img src="{PLACEHOLDER}" data-lazy-src="{mid}" '
        f'data-lazy-srcset="{mid} 1024w, {big} 1366w" class="rocket-lazyload" alt="" />'
        f'<noscript><img src="{mid}" /></noscript></p>'
    )


def furniture() -> str:
    """Things in a post body that are not photos and must be ignored."""
    return (
        '<p>Loved it <img draggable="false" role="img" class="emoji" alt="😍" '
        'src="https://s.w.org/images/core/emoji/15.0.3/svg/1f60d.svg"></p>'
        '<img src="https://pixel.tracker.example/p.gif?id=1" width="1" height="1" alt="" />'
        '<p><img src="https://ads.partner.example/banners/spring-banner.jpg" alt="ad" /></p>'
        '<div class="sharedaddy sd-sharing-enabled">'
        '<img src="{{BASE}}/wp-content/uploads/2030/01/share-instagram.jpg" alt="" /></div>'
        '<div id="jp-relatedposts" class="jp-relatedposts">'
        '<img src="{{BASE}}/wp-content/uploads/2030/09/older-post-300x200.jpg" alt="" /></div>'
    )


def cdn(name: str, n: int) -> str:
    digest = hashlib.md5(f"{name}-{n}".encode()).hexdigest()
    src = f"{{{{CDN}}}}/{digest}/{name}-{n:02d}.jpg"
    return f'<figure class="wp-block-image"><img src="{src}" alt="" /></figure>'


def posts() -> list[Post]:
    """The posts, newest first."""
    paris = "street-style-paris-fashion-week-spring-2031-day-1"
    cph = "street-style-copenhagen-fashion-week-fall-2031-day-2"
    nyc = "street-style-new-york-fashion-week-spring-2031-day-4"
    tokyo = "street-style-tokyo-fashion-week-fall-2031"
    t0 = datetime(2030, 10, 1, 18, 20, tzinfo=CEST)
    return [
        Post(
            1,
            paris,
            "Street Style: Paris Fashion Week Spring 2031, Day&nbsp;1",
            t0,
            ["Street Style", "Paris Fashion Week"],
            "<p>The first day&#8217;s best looks outside the shows.</p>"
            + "".join(figure(f"{paris}-the-impression-{n:03d}") for n in range(1, 9))
            + furniture()
            + "<p>Photographer | Mira Solenne</p>",
            ["Spring 2031"],
        ),
        Post(
            2,
            cph,
            "Street Style: Copenhagen Fashion Week Fall 2031, Day 2",
            t0 - timedelta(days=2),
            ["Street Style", "Copenhagen Fashion Week"],
            "".join(lazy(f"{cph}-{n:03d}", "data-src") for n in range(1, 7))
            + "".join(lazy(f"{cph}-{n:03d}", "data-lazy-src") for n in range(7, 10))
            + '<p>Photographer | <a href="https://instagram.example/anouk">Anouk Bremer</a></p>',
        ),
        Post(
            3,
            "street-style-coachella-2031",
            "Street Style: Coachella 2031",
            t0 - timedelta(days=5),
            ["Street Style"],
            "".join(cdn("street-style-coachella-2031-d3-theimpression", n) for n in range(1, 6))
            + "<p>Photos by Teo Varga</p>",
        ),
        Post(
            4,
            "the-others-milan-best-collections-spring-2031",
            "The Others Milan: The Best Collections of Spring 2031",
            t0 - timedelta(days=8),
            ["Fashion News"],
            "".join(figure(f"others-milan-{n}") for n in range(1, 4))
            + "<p>Designer | Invented Atelier</p>",
        ),
        Post(
            5,
            "street-style-london-fashion-week-spring-2031-day-3",
            "Street Style: London Fashion Week Spring 2031, Day 3",
            t0 - timedelta(days=12),
            ["Street Style", "London Fashion Week"],
            "<p>Our gallery for this day is coming soon.</p>" + furniture(),
        ),
        Post(
            6,
            nyc,
            "Street Style: New York Fashion Week Spring 2031, Day 4",
            t0 - timedelta(days=20),
            ["Street Style", "New York Fashion Week"],
            "".join(
                f'<p><img src="{upload(f"{nyc}-{n:02d}", "-scaled")}" '
                'width="1707" height="2560" alt="" /></p>'
                for n in range(1, 5)
            )
            + "<p>Photographer/ Director | Lior Castellane</p>",
        ),
        Post(
            7,
            tokyo,
            "Street Style: Tokyo Fashion Week Fall 2031",
            t0 - timedelta(days=30),
            ["Street Style", "Tokyo Fashion Week"],
            "".join(
                f'<img src="{upload(f"{tokyo}-{n}", "-683x1024")}" '
                f'srcset="{upload(f"{tokyo}-{n}", "-683x1024")} 1x, '
                f'{upload(f"{tokyo}-{n}", "-1366x2048")} 2x" />'
                for n in range(1, 4)
            )
            + f'<img src="{upload(f"{tokyo}-4", "-683x1024")}?resize=683%2C1024&amp;ssl=1" />',
        ),
    ]


def rest_item(post: Post) -> dict:
    link = f"{{{{BASE}}}}/{post.slug}/"
    cats = [
        {
            "id": CATEGORY_IDS.get(c, 20 + i),
            "name": c,
            "slug": c.lower().replace(" ", "-"),
            "taxonomy": "category",
            "link": f"{{{{BASE}}}}/category/{c.lower().replace(' ', '-')}/",
        }
        for i, c in enumerate(post.categories)
    ]
    tags = [{"id": 90 + i, "name": t, "taxonomy": "post_tag"} for i, t in enumerate(post.tags)]
    return {
        "id": 4000 + post.number,
        "date": post.date.replace(tzinfo=None).isoformat(),
        "date_gmt": post.date.astimezone(UTC).replace(tzinfo=None).isoformat(),
        "slug": post.slug,
        "status": "publish",
        "type": "post",
        "link": link,
        "title": {"rendered": post.title},
        "content": {"rendered": post.body, "protected": False},
        "excerpt": {"rendered": "<p>…</p>", "protected": False},
        "author": 3,
        "featured_media": 0,
        "categories": [c["id"] for c in cats],
        "tags": [t["id"] for t in tags],
        "_embedded": {"author": [{"id": 3, "name": "The Impression"}], "wp:term": [cats, tags]},
    }


def feed(items: list[Post]) -> str:
    entries = []
    for post in items:
        cats = "".join(f"<category><![CDATA[{c}]]></category>" for c in post.categories + post.tags)
        entries.append(
            f"<item><title>{escape(post.title)}</title><link>{{{{BASE}}}}/{post.slug}/</link>"
            f"<dc:creator><![CDATA[The Impression]]></dc:creator>"
            f"<pubDate>{format_datetime(post.date.astimezone(UTC))}</pubDate>{cats}"
            f'<guid isPermaLink="false">{{{{BASE}}}}/?p={4000 + post.number}</guid>'
            f"<description><![CDATA[A look at the day.]]></description>"
            f"<content:encoded><![CDATA[{post.body}]]></content:encoded></item>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>The Impression</title>'
        "<link>{{BASE}}</link><description>Fashion news, runway and street style</description>"
        + "".join(entries)
        + "</channel></rss>\n"
    )


HEADER = (
    '<header class="site-header"><a href="{{BASE}}/"><img class="custom-logo" '
    'src="{{BASE}}/wp-content/uploads/2020/01/logo.png" /></a>'
    '<nav><a href="{{BASE}}/street-style/paris-fashion-week/">Paris</a> '
    '<a href="{{BASE}}/category/fashion-news/">News</a>'
    ' <a href="{{BASE}}/about/">About</a></nav></header>'
)


def listing(items: list[Post], page: int) -> str:
    articles = "".join(
        f'<article class="post-{4000 + p.number} post type-post"><h2 class="entry-title">'
        f'<a href="{{{{BASE}}}}/{p.slug}/" rel="bookmark">{p.title}</a></h2>'
        f'<a href="{{{{BASE}}}}/{p.slug}/#comments">Comments</a></article>'
        for p in items
    )
    aside = (
        '<aside class="widget"><a href="{{BASE}}/street-style-coachella-2031/">Popular</a></aside>'
    )
    return (
        f"<!DOCTYPE html><html><head><title>The Impression – Page {page}</title></head><body>"
        f'{HEADER}<main id="main">{articles}</main>{aside}</body></html>\n'
    )


def post_page(post: Post) -> str:
    cat_links = " ".join(
        f'<a href="{{{{BASE}}}}/category/{c.lower().replace(" ", "-")}/" rel="category tag">{c}</a>'
        for c in post.categories
    )
    classes = " ".join(f"category-{c.lower().replace(' ', '-')}" for c in post.categories)
    plain_title = post.title.replace("&nbsp;", " ")
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8">'
        f"<title>{post.title} - The Impression</title>"
        f'<meta property="og:title" content="{plain_title} - The Impression" />'
        f'<meta property="article:published_time" content="{post.date.isoformat()}" />'
        f'<meta property="article:section" content="{post.categories[0]}" /></head>'
        f'<body class="single">{HEADER}<main id="main">'
        f'<article class="post-{4000 + post.number} post type-post {classes} tag-icons">'
        f'<h1 class="entry-title">{post.title}</h1><div class="entry-meta">'
        f'<time class="entry-date" datetime="{post.date.isoformat()}">{post.date:%B %d, %Y}</time>'
        f" {cat_links}</div>"
        f'<div class="entry-content">{post.body}</div></article>'
        '<section id="comments"><img class="avatar avatar-48" '
        'src="https://secure.gravatar.example/avatar/1.jpg" />'
        "<p>Great shots!</p></section></main></body></html>\n"
    )


def build(root: Path) -> dict[Path, str]:
    """Every file of the site, by path under ``root``."""
    all_posts = posts()
    files: dict[Path, str] = {}
    for start in range(0, len(all_posts), PER_PAGE):
        chunk = [rest_item(p) for p in all_posts[start : start + PER_PAGE]]
        text = json.dumps(chunk, ensure_ascii=False, indent=1).replace("/", "\\/")
        files[root / "wp-json" / f"posts-{start // PER_PAGE + 1}.json"] = text + "\n"
    files[root / "feed" / "index.xml"] = feed(all_posts[:FEED_SIZE])
    by_number = {p.number: p for p in all_posts}
    for page, numbers in enumerate(LISTING, 1):
        target = root / "index.html" if page == 1 else root / "page" / str(page) / "index.html"
        files[target] = listing([by_number[n] for n in numbers], page)
    for post in all_posts:
        files[root / post.slug / "index.html"] = post_page(post)
    return files


def main() -> None:
    for path, text in build(HERE).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
