"""One street-style post → ShowIngest, whichever route (REST, RSS, page) found the post."""

from __future__ import annotations

import logging

from rk.core.api.errors import ShowSkipped
from rk.core.api.wire import MAX_LOOKS, ImageRef, Look, ShowIngest
from rk.plugins.theimpression.images import ImagePolicy, harvest
from rk.plugins.theimpression.meta import city_of, is_street_style, photographer_of, season_of
from rk.plugins.theimpression.parse import Post, selector

log = logging.getLogger(__name__)


def credit_lines(content: str, url: str) -> list[str]:
    """The text pieces of a post body, one per text node, for credit lines."""
    texts = selector(content, url).xpath("//body//text()[normalize-space()]").getall()
    return [" ".join(text.split()) for text in texts]


def post_to_show(post: Post, policy: ImagePolicy) -> ShowIngest:
    """The post as a ShowIngest: its photos numbered 1..N as looks, no details.

    Raises:
        ShowSkipped: the post is not street style, or has no photos.
        ImpressionParseError: the body cannot be parsed at all.
    """
    path = post.url.split("?")[0]
    if not is_street_style([*post.categories, post.slug, path, post.title]):
        about = ", ".join(post.categories) or "none"
        raise ShowSkipped(f"{post.url}: not street style (categories: {about})")
    found = harvest(post.content, post.url, policy)
    if found.refused:
        log.warning(
            "theimpression: %s: %d images refused, their hosts are not in "
            "sources.theimpression.cdn_hosts: %s",
            post.url,
            sum(found.refused.values()),
            found.refused_line(),
        )
    images = found.urls[:MAX_LOOKS]
    if not images:
        refused = f" ({found.refused_line()} refused)" if found.refused else ""
        raise ShowSkipped(f"{post.url}: no images{refused}")
    return ShowIngest(
        source="theimpression",
        kind="street",
        show_key=post.slug[:512],
        title=(post.title or post.slug)[:200],
        season=season_of([post.title, *post.categories, post.slug])[:200],
        city=city_of(post.categories, [post.title, post.slug])[:200],
        date=post.date[:40],
        url=post.url[:4096],
        author=photographer_of(credit_lines(post.content, post.url)),
        looks=[
            Look(number=n, image=ImageRef(url=url, thumb_url=found.thumbs.get(url)))
            for n, url in enumerate(images, 1)
        ],
    )
