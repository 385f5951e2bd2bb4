"""The photos of a post body: the largest copy of each ``<img>``, site and CDN images only,
and the smallest ``-WxH`` copy that covers a thumbnail.

WordPress names resized copies ``name-683x1024.jpg`` and the largest web copy
``name-scaled.jpg``; the original upload is ``name.jpg``. Lazy-load plugins move the real
URL to ``data-src``/``data-lazy-src`` (and ``data-srcset``) and leave a placeholder in
``src``, often with a ``<noscript>`` copy, so candidates are pooled and duplicates merged.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from lxml.html import HtmlElement
from msgspec import Struct

from rk.plugins.theimpression.parse import selector

URL_ATTRS = ("src", "data-src", "data-lazy-src", "data-original", "data-orig-file")
SRCSET_ATTRS = ("srcset", "data-srcset", "data-lazy-srcset")
EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".avif")
# Images inside these (a class or id word, split at - and _) are site furniture, not photos.
FURNITURE = frozenset(
    {"avatar", "gravatar", "emoji", "smiley", "icon", "icons", "logo", "related", "relatedposts"}
    | {"share", "sharing", "sharedaddy", "author", "comment", "comments", "widget", "sidebar"}
)
_WORD_SPLIT = re.compile(r"[-_]")
ORIGINAL_WIDTH = 10**6  # an upload without a size suffix is the original, larger than any copy
SCALED_WIDTH = 2560  # WordPress's "-scaled" copy: long side 2560 px
_SIZE_SUFFIX = re.compile(r"-(\d+)x\d+(?=\.[A-Za-z0-9]+$)|-scaled(?=\.[A-Za-z0-9]+$)")
_DIMENSIONS = re.compile(r"-(\d{1,5})x(\d{1,5})(?=\.[A-Za-z0-9]+$)")
_SRCSET_URL = re.compile(r"[\s,]*(\S+)")
_DESCRIPTOR = re.compile(r"\s*(\d+(?:\.\d+)?)([wx])\s*$", re.IGNORECASE)


class Harvest(Struct, frozen=True, kw_only=True):
    """A post body's photos, the photos refused because no allowed host serves them, and the
    rendition covering a thumbnail of each photo that has one (by photo URL)."""

    urls: list[str]
    refused: dict[str, int] = {}
    thumbs: dict[str, str] = {}

    def refused_line(self) -> str:
        """``a.test (3), b.test (1)``: refused hosts, most refused first."""
        ranked = sorted(self.refused.items(), key=lambda item: (-item[1], item[0]))
        return ", ".join(f"{host} ({count})" for host, count in ranked)


class ImagePolicy(Struct, frozen=True, kw_only=True):
    """Which hosts serve a post's photos, whether to point at the original upload, and the
    thumbnail size (shortest side) renditions must cover (None: name no rendition)."""

    upload_hosts: frozenset[str]
    cdn_hosts: frozenset[str] = frozenset({"img.theimpression.com"})
    original: bool = False
    thumb_size: int | None = None


def to_original(url: str) -> str:
    """``…/name-683x1024.jpg`` or ``…/name-scaled.jpg`` → ``…/name.jpg``."""
    parts = urlsplit(url)
    path = parts.path
    while (stripped := _SIZE_SUFFIX.sub("", path)) != path:
        path = stripped
    return parts._replace(path=path).geturl()


def parse_srcset(value: str) -> list[tuple[str, str]]:
    """``srcset`` → [(url, descriptor)], following the HTML rules (URLs may hold commas)."""
    entries = []
    pos = 0
    while (found := _SRCSET_URL.match(value, pos)) is not None and found.group(1):
        url, pos = found.group(1), found.end()
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            end = value.find(",", pos)
            end = len(value) if end == -1 else end
            descriptor, pos = value[pos:end].strip(), end + 1
        if url:
            entries.append((url, descriptor))
    return entries


def content_images(content: str, page_url: str, policy: ImagePolicy) -> list[str]:
    """The post's photos in body order: the largest accepted candidate of each ``<img>``."""
    return harvest(content, page_url, policy).urls


def harvest(content: str, page_url: str, policy: ImagePolicy) -> Harvest:
    """The post's photos, and per host how many photos were refused for their host alone.

    A photo counts as refused when none of its candidates is accepted and one of them is
    an image file on a host that is neither the site's uploads nor an allowed CDN host.
    """
    best: dict[str, tuple[int, str]] = {}
    order: list[str] = []
    refused: dict[str, int] = {}
    renditions: dict[str, list[tuple[int, int, str]]] = {}
    for img in selector(content, page_url).xpath("//img"):
        element = img.root
        if not isinstance(element, HtmlElement) or _is_furniture(element):
            continue
        chosen = _largest(element, page_url, policy)
        if chosen is None:
            host = _foreign_host(element, page_url, policy)
            if host:
                refused[host] = refused.get(host, 0) + 1
            continue
        width, url = chosen
        final = to_original(url) if policy.original else url
        key = to_original(urlsplit(url)._replace(query="", fragment="").geturl())
        if key not in best:
            order.append(key)
            best[key] = (width, final)
        elif width > best[key][0]:
            best[key] = (width, final)
        if policy.thumb_size is not None:
            renditions.setdefault(key, []).extend(_sized(element, page_url, policy))
    thumbs = {}
    for key in order if policy.thumb_size is not None else []:
        thumb = _covering(renditions[key], policy.thumb_size or 0)
        if thumb is not None and thumb != best[key][1]:
            thumbs[best[key][1]] = thumb
    return Harvest(urls=[best[key][1] for key in order], refused=refused, thumbs=thumbs)


def _sized(img: HtmlElement, page_url: str, policy: ImagePolicy) -> list[tuple[int, int, str]]:
    """(width, height, url) of each accepted ``-WxH`` copy an ``<img>`` offers."""
    found = []
    for _, raw in _candidates(img):
        url = urljoin(page_url, raw)
        dims = _DIMENSIONS.search(urlsplit(url).path) if _accepted(url, policy) else None
        if dims is not None and int(dims.group(1)) > 0 and int(dims.group(2)) > 0:
            found.append((int(dims.group(1)), int(dims.group(2)), url))
    return found


def _covering(sized: list[tuple[int, int, str]], thumb_size: int) -> str | None:
    """The smallest copy whose shortest side is at least ``thumb_size`` and whose shape is
    the largest copy's within a pixel (WordPress crops some sizes square), or None."""
    if not sized:
        return None
    big_w, big_h, _ = max(sized)
    fits = [
        (w * h, url)
        for w, h, url in sized
        if min(w, h) >= thumb_size
        and (abs(h - w * big_h / big_w) <= 1 or abs(w - h * big_w / big_h) <= 1)
    ]
    return min(fits)[1] if fits else None


def _is_furniture(img: HtmlElement) -> bool:
    """Icons, avatars, share buttons, related-post thumbnails and tracking pixels."""
    for size in (img.get("width"), img.get("height")):
        if size and size.strip().isdecimal() and int(size) < 100:
            return True
    for node in (img, *img.iterancestors()):
        for token in f"{node.get('class') or ''} {node.get('id') or ''}".lower().split():
            # WordPress adds tag-{slug} / category-{slug} classes: words chosen by editors.
            if token.startswith(("tag-", "category-")):
                continue
            if FURNITURE.intersection(_WORD_SPLIT.split(token)):
                return True
    return False


def _foreign_host(img: HtmlElement, page_url: str, policy: ImagePolicy) -> str:
    """The host of the first candidate that is an image file on a host rk does not accept."""
    for _, raw in _candidates(img):
        url = urljoin(page_url, raw)
        try:
            parts = urlsplit(url)
            host = parts.netloc.lower()
        except ValueError:
            continue
        if parts.scheme not in ("http", "https") or not host:
            continue
        if not parts.path.lower().endswith(EXTENSIONS):
            continue
        if host not in policy.cdn_hosts and host not in policy.upload_hosts:
            return host
    return ""


def _candidates(img: HtmlElement) -> list[tuple[int, str]]:
    """(width, url) of every URL an ``<img>`` offers (0: width not said)."""
    candidates: list[tuple[int, str]] = []
    for attr in URL_ATTRS:
        if value := (img.get(attr) or "").strip():
            candidates.append((0, value))
    for attr in SRCSET_ATTRS:
        for url, descriptor in parse_srcset(img.get(attr) or ""):
            match = _DESCRIPTOR.match(descriptor)
            width = 0
            if match and match.group(2).lower() == "w":
                width = int(float(match.group(1)))
            candidates.append((width, url))
    return candidates


def _largest(img: HtmlElement, page_url: str, policy: ImagePolicy) -> tuple[int, str] | None:
    """(width, url) of the widest accepted candidate; the first wins a tie."""
    chosen: tuple[int, str] | None = None
    for width, raw in _candidates(img):
        url = urljoin(page_url, raw)
        if not _accepted(url, policy):
            continue
        width = width or _width_hint(url, policy)
        if chosen is None or width > chosen[0]:
            chosen = (width, url)
    return chosen


def _accepted(url: str, policy: ImagePolicy) -> bool:
    """An image file on the site's uploads or on the image CDN; nothing else."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.lower()
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or len(url) > 4096:
        return False
    if not parts.path.lower().endswith(EXTENSIONS):
        return False
    if host in policy.cdn_hosts:
        return True
    return host in policy.upload_hosts and "/wp-content/uploads/" in parts.path


def _width_hint(url: str, policy: ImagePolicy) -> int:
    """Width told by a WordPress file name: ``-683x1024`` → 683, ``-scaled``, or the original."""
    parts = urlsplit(url)
    if parts.netloc.lower() in policy.cdn_hosts:
        return 1
    found = _SIZE_SUFFIX.search(parts.path)
    if found is None:
        return ORIGINAL_WIDTH
    return int(found.group(1)) if found.group(1) else SCALED_WIDTH
